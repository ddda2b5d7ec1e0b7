"""The op database's entry format: one ``OpInfo`` per op, run by the generic checks in test_ops.py.

An entry names a function written once for both libraries, ``fn(lib, *args, **kwargs)`` where ``lib``
is ``ember`` or ``torch`` (``lambda lib, x, y: lib.add(x, y)`` or ``lambda lib, x: x.sum(1)``), and a
``samples(dtype)`` generator of ``Sample``s whose args are NumPy arrays (turned into each library's
tensors), Python scalars, or ``T(...)`` markers for non-contiguous / requires-grad control.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["OpInfo", "Sample", "arr", "noncontig", "RNG", "FLOAT", "ALL_NUMERIC", "INT", "BOOL"]

FLOAT = ("float32", "float64")
INT = ("int64", "int32")
BOOL = ("bool",)
ALL_NUMERIC = FLOAT + INT

RNG = np.random.default_rng(0)


class NonContig:
    """A sample argument laid out non-contiguously (a transposed or strided view of a bigger array)."""

    def __init__(self, array: np.ndarray):
        self.array = array


def noncontig(a: np.ndarray) -> NonContig:
    return NonContig(a)


def arr(shape, dtype: str = "float32", low: float = -3, high: float = 3, *, rng=None) -> np.ndarray:
    """A random NumPy array of ``shape`` and ember/torch dtype name (bool, ints, floats, complex)."""
    return np.asarray(_arr(shape, dtype, low, high, rng=rng))


def _arr(shape, dtype, low, high, *, rng=None):
    rng = rng or RNG
    shape = tuple(shape)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype in ("int64", "int32", "int16", "int8", "uint8"):
        lo = max(int(low), 0) if dtype == "uint8" else int(low)
        return rng.integers(lo, int(high) + 1, size=shape).astype(dtype)
    if dtype.startswith("complex"):
        real = rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)
        return real.astype(dtype)
    if dtype == "bfloat16":
        return rng.uniform(low, high, shape).astype(np.float32)
    return rng.uniform(low, high, shape).astype(dtype)


@dataclass
class Sample:
    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""


@dataclass
class OpInfo:
    name: str                                   # unique id shown in test names
    fn: Callable                                # fn(lib, *args, **kwargs) for lib in (ember, torch)
    samples: Callable[[str], list]              # samples(dtype_name) -> [Sample]
    dtypes: tuple = FLOAT                       # dtypes to check forward on
    grad: bool = True                           # compare gradients w.r.t. float tensor args with torch
    gradcheck: bool = True                      # finite-difference gradcheck in float64
    gradgrad: bool = False                      # second derivatives on the first two samples too (every
                                                # float64-differentiable entry checks its smallest one)
    inplace: Callable | None = None             # fn_(lib, *args, **kwargs) writing into args[0]
    out: Callable | None = None                 # fn(lib, *args, out=..., **kwargs)
    view: bool = False                          # result shares memory with args[0]
    meta: bool = True                           # meta-device shapes/dtypes equal the real result's
    atol: float = 1e-5
    rtol: float = 1.3e-6
    grad_atol: float = 1e-4
    grad_rtol: float = 1e-4
    skip_checks: tuple = ()                     # names of checks that do not apply, with a reason below
    notes: str = ""                             # why a check is skipped
    error_samples: Callable[[str], list] | None = None  # samples where torch raises: ember must raise
                                                # the same exception class with the same message
