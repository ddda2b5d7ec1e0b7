"""The loop IR: one ``Buffer`` per value of a lowered graph (layer L7).

Kinds: ``input`` (a graph input), ``extern`` (a NumPy/BLAS or eager call producing fresh arrays),
``item`` (one element of an extern's tuple), ``view`` (a NumPy view: no data moves), ``pointwise``
(an expression over its inputs' elements at the same index, or broadcast), ``reduction`` (``sum``,
``mean``, ``max``, ``min`` over the trailing ``k`` dims of its input), ``const`` (a Python scalar
graph value). A pointwise expression is a template over its inputs (``"{0} * {1}"``) using typed
constants and the helper names of ``codegen.helpers`` (``where``, ``maxnan`` ...), so the same text
is Numba scalar code and NumPy array code. ``transcendental`` marks exp/log/tanh/sigmoid/erf/...
(the scheduler may run those as NumPy ufunc calls).

Example:
    >>> import numpy as np
    >>> x = Buffer("input", (4, 8), np.dtype("float32"), [])
    >>> y = Buffer("pointwise", (4, 8), np.dtype("float32"), [x], expr="{0} * {0}")
    >>> y.inputs[0] is x, x.users == [y]
    (True, True)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["Buffer", "const_str", "numel", "FUSABLE_DTYPES"]

FUSABLE_DTYPES = (np.dtype("float32"), np.dtype("float64"), np.dtype("bool"))


def numel(shape) -> int:
    return math.prod(shape)


class Buffer:
    """One value: kind, shape, NumPy dtype, input buffers, and what computes it."""

    _count = 0

    def __init__(self, kind: str, shape, dtype, inputs: list, *, expr: str | None = None,
                 transcendental: bool = False, reduce_op: str | None = None, k: int = 0,
                 call=None, code: str | None = None, index: int | None = None,
                 value=None, name: str | None = None) -> None:
        Buffer._count += 1
        self.name = name or f"buf{Buffer._count}"
        self.kind = kind
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype) if dtype is not None else None
        self.inputs = list(inputs)
        self.users: list = []
        for i in self.inputs:
            if i.users is not None and self not in i.users:
                i.users.append(self)
        self.expr = expr
        self.transcendental = transcendental
        self.reduce_op = reduce_op
        self.k = k              # reduction: trailing dims reduced
        self.call = call        # extern: a callable on arrays
        self.code = code        # view/extern: a NumPy expression template over the inputs
        self.index = index      # input: position; item: tuple index
        self.value = value      # const

    @property
    def fusable(self) -> bool:
        return self.kind in ("pointwise", "reduction")

    def __repr__(self) -> str:
        what = self.expr or self.reduce_op or self.code or ""
        return f"<{self.kind} {self.name} {self.shape} {self.dtype} {what}>"


def const_str(v, dtype) -> str:
    """``v`` as a typed constant of ``dtype`` in generated code (never a bare Python float, which
    would promote float32 maths to float64)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return "True" if v else "False"
    if dt.kind in "iu":
        return f"np.{dt.name}({int(v)})"
    v = float(v)
    if math.isnan(v):
        text = "np.nan"
    elif math.isinf(v):
        text = "np.inf" if v > 0 else "-np.inf"
    else:
        text = repr(v)
    return f"np.{dt.name}({text})"
