"""torch's ``sym_*`` helpers (layer L0): shape arithmetic that in torch also accepts symbolic
SymInt/SymFloat/SymBool values; ember traces with concrete sizes, so they act on Python and NumPy
numbers (and 0-d tensors where torch takes them), with torch's result types.

Example:
    >>> sym_max(3, 2.0), sym_sum([1, 2, 3]), sym_ite(True, 'a', 'b')
    (3.0, 6, 'a')
"""
from __future__ import annotations

import builtins
import math

import numpy as np

__all__ = ["sym_float", "sym_int", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum",
           "sym_ite", "sym_constrain_range", "sym_constrain_range_for_size", "sym_fresh_size"]

_NUMBERS = (np.integer, np.floating, int, float)
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def sym_float(a):
    """``a`` as a float."""
    return float(a)


def sym_int(a):
    """``a`` as an int, truncated toward zero."""
    return math.trunc(float(a)) if isinstance(a, (float, np.floating)) else int(a)


def _check_number(v):
    if not isinstance(v, _NUMBERS):
        raise AssertionError(f"expected {_NUMBERS}, got {type(v)}")


def _extreme(pick, a, b):
    _check_number(a)
    _check_number(b)
    r = pick(a, b)
    return float(r) if isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)) else r


def sym_max(a, b):
    """``max(a, b)``, a float when either is a float."""
    return _extreme(builtins.max, a, b)


def sym_min(a, b):
    """``min(a, b)``, a float when either is a float."""
    return _extreme(builtins.min, a, b)


def sym_not(a) -> bool:
    """Logical not."""
    return not a


def sym_sqrt(a) -> float:
    """``math.sqrt(a)``."""
    return math.sqrt(a)


def sym_sum(*args):
    """Sum of ``sym_sum(a, b, c)`` or ``sym_sum([a, b, c])`` (0 when empty)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    total = 0
    for v in args:
        total = total + v
    return total


def sym_ite(b, t, f):
    """``t if b else f`` for a bool ``b``."""
    if not isinstance(b, bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    return t if b else f


def sym_constrain_range(size, *, min=None, max=None) -> None:
    """Check that ``size`` lies in ``[min, max]`` (unbounded where None)."""
    lo = _INT64_MIN if min is None else min
    hi = _INT64_MAX if max is None else max
    if not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{lo}, {hi}].")


def sym_constrain_range_for_size(size, *, min=None, max=None) -> None:
    """As ``sym_constrain_range`` with ``min`` defaulting to 0 (a size)."""
    sym_constrain_range(size, min=0 if min is None else min, max=max)


def sym_fresh_size(expr):
    """``expr`` itself (a fresh unbacked size in torch's symbolic tracing)."""
    return expr
