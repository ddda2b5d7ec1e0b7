"""``ReduceOp`` and ``Backend``: torch's names and values.

Example:
    >>> ReduceOp.SUM, ReduceOp.AVG == ReduceOp.RedOpType.AVG
    (<RedOpType.SUM: 0>, True)
    >>> Backend("GLOO"), Backend.MPI
    ('gloo', 'mpi')
"""
from __future__ import annotations

import enum

__all__ = ["ReduceOp", "Backend"]


class RedOpType(enum.Enum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


class ReduceOp:
    """The reduction of ``all_reduce``/``reduce``/``reduce_scatter``: ``ReduceOp.SUM`` ... ``ReduceOp.BXOR``."""

    RedOpType = RedOpType
    SUM, AVG, PRODUCT, MIN, MAX = RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN, RedOpType.MAX
    BAND, BOR, BXOR, PREMUL_SUM = RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR, RedOpType.PREMUL_SUM


class Backend(str):
    """A backend name, lower-cased (``Backend("GLOO") == "gloo"``); ember runs every one it accepts on MPI."""

    UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE = "undefined", "gloo", "nccl", "xccl", "ucc", "mpi", "fake"
    backend_list = ["undefined", "gloo", "nccl", "xccl", "ucc", "mpi", "fake"]
    default_device_backend_map = {"cpu": "gloo"}

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = name.lower()
        if value not in cls.backend_list and ":" not in value:
            value = name  # a third-party backend name is kept as written, as torch does
        return super().__new__(cls, value)
