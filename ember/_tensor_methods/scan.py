"""Scan methods (layer L2): cummax/cummin/logcumsumexp (primitives in ``_primitives/scan.py``) and the
composites diff, trapezoid (trapz) and cumulative_trapezoid.

Example:
    >>> import ember
    >>> ember.diff(ember.tensor([1, 4, 9])).tolist(), ember.trapezoid(ember.tensor([1., 2., 3.])).item()
    ([3, 5], 4.0)
"""
from __future__ import annotations

from .. import _dtype as D
from .._dispatch import dispatch
from .._dispatch_inplace import dispatch_out
from .._primitives import scan as SC
from ..overrides import public
from ._args import TensorBase
from .shape_copy import cat
from .reduction import _norm1, _pair, _return_type, return_types

__all__ = ["ScanMixin", "FUNCTIONS"]

_return_type("cummax", ("values", "indices"))
_return_type("cummin", ("values", "indices"))


def _cum_extreme(name, op):
    def fn(input, dim, *, out=None):
        res = dispatch(op, input, dim=_norm1(dim, input.dim()))
        return _pair(res, out, getattr(return_types, name))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``(values, indices)``: the running {name[3:]}imum along ``dim`` and where it was "
                  "last reached.")
    return public(fn)


cummax = _cum_extreme("cummax", SC.cummax)
cummin = _cum_extreme("cummin", SC.cummin)


@public
def logcumsumexp(input, dim, *, out=None):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably."""
    d = _norm1(dim, input.dim())
    if out is not None:
        return dispatch_out(SC.logcumsumexp, out, input, dim=d)
    return dispatch(SC.logcumsumexp, input, dim=d)


@public
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``!=`` for bool), after ``prepend``/``append``.

    >>> import ember
    >>> ember.diff(ember.tensor([1, 2, 4, 7]), n=2).tolist()
    [1, 1]
    """
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _norm1(dim, input.dim())
    if n == 0:  # torch returns the input alone, ignoring prepend/append
        return input
    parts = [t if t.dim() else t.expand(tuple(1 if i == d else s for i, s in enumerate(input.shape)))
             for t in (prepend, input, append) if t is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi.logical_xor(lo) if x.dtype is D.bool else hi - lo
    return x


def _dx_view(x, y, d):
    """Spacing of sample points ``x`` (1-D, or shaped like ``y``) along ``d``."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"trapezoid: There must be one `x` value for each sample point")
        dx = x.diff()
        return dx.reshape(tuple(-1 if i == d else 1 for i in range(y.dim())))
    return x.diff(dim=d)


def _trap_input(y, x, dx, dim, name):
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: pass x or dx, not both")
    if y.dtype is D.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    return _norm1(dim, y.dim())


@public
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integral of ``y`` along ``dim`` by the trapezoid rule (sample points ``x`` or spacing ``dx``)."""
    d = _trap_input(y, x, dx, dim, "trapezoid")
    n = y.shape[d] if y.dim() else 1
    if n == 0:
        return y.new_zeros(tuple(s for i, s in enumerate(y.shape) if i != d))
    if isinstance(x, TensorBase):
        pair = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
        return (pair * _dx_view(x, y, d)).sum(d) / 2
    step = 1 if dx is None else dx
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * step


@public
def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid`."""
    return trapezoid(y, x, dx=dx, dim=dim)


@public
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoid-rule integral of ``y`` along ``dim`` (one element shorter than ``y``)."""
    d = _trap_input(y, x, dx, dim, "cumulative_trapezoid")
    n = y.shape[d]
    m = max(n - 1, 0)
    # torch's order: (y_i + y_i+1) * dx in the inputs' dtype, then / 2 (integer products wrap)
    pair = y.narrow(d, min(1, n), m) + y.narrow(d, 0, m)
    if isinstance(x, TensorBase):
        pair = pair * _dx_view(x, y, d)
    elif dx is not None:
        pair = pair * dx
    return (pair / 2).cumsum(d)


class ScanMixin:
    __slots__ = ()
    cummax, cummin, logcumsumexp, diff = cummax, cummin, logcumsumexp, diff


FUNCTIONS = dict(cummax=cummax, cummin=cummin, logcumsumexp=logcumsumexp, diff=diff, trapezoid=trapezoid,
                 trapz=trapz, cumulative_trapezoid=cumulative_trapezoid)
