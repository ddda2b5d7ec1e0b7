"""Scan primitives (layer L1): cummax, cummin (values and indices) and logcumsumexp.

cumsum/cumprod live with the reductions; diff and the trapezoid rules are composites in the method
layer. Kernels use the ufuncs' ``accumulate`` along ``dim`` (a non-negative int).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from .._shape import normalize_dim
from ._registry import TensorMeta, primitive
from .indexing import scatter_add

_I64 = np.int64


def _cum_extreme(name, ufunc):
    @primitive(name, kind="other", num_outputs=2, differentiable_outputs=(0,))
    def kernel(a, *, dim):
        if a.dtype.kind == "c":
            raise TypeError  # the meta rule raises torch's error
        if a.ndim == 0:
            return a.copy(), np.zeros((), _I64)
        vals = ufunc.accumulate(a, axis=dim)
        # torch moves the index on ties (x >= running max) and on every NaN
        hit = a == vals
        if a.dtype.kind == "f":
            hit |= np.isnan(a)
        shape = [1] * a.ndim
        shape[dim] = a.shape[dim]
        pos = np.where(hit, np.arange(a.shape[dim]).reshape(shape), 0)
        return vals, np.maximum.accumulate(pos, axis=dim).astype(_I64)

    @kernel.meta
    def _(a, *, dim):
        normalize_dim(dim, a.dim())
        if a.dtype.is_complex:
            raise RuntimeError(f'"{name}_cpu" not implemented for \'{dtype_title(a.dtype)}\'')
        return TensorMeta(a.shape, a.dtype), TensorMeta(a.shape, D.int64)

    @kernel.derivative
    def _(grads, out1, *, a_shape, dim):
        g = grads[0]
        if not a_shape:
            return g
        return g.new_zeros(a_shape)._op(scatter_add, out1, g, dim=dim)
    return kernel


cummax = _cum_extreme("cummax", np.maximum)
cummin = _cum_extreme("cummin", np.minimum)


@primitive("logcumsumexp", kind="other")
def logcumsumexp(a, *, dim):
    if a.dtype.kind not in "fc":
        raise TypeError  # the meta rule raises torch's error
    if a.ndim == 0:
        return a.copy()
    if a.dtype.kind == "c":
        m = np.maximum.accumulate(a.real, axis=dim)
        m = np.where(np.isfinite(m), m, 0)
        return np.log(np.add.accumulate(np.exp(a - m), axis=dim)) + m
    if a.dtype.itemsize < 8:  # torch's CPU kernel accumulates float32 in double (checked: bitwise)
        return np.logaddexp.accumulate(a.astype(np.float64), axis=dim).astype(a.dtype)
    return np.logaddexp.accumulate(a, axis=dim)


@logcumsumexp.meta
def _(a, *, dim):
    normalize_dim(dim, a.dim())
    if a.dtype.category < 2:
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{dtype_title(a.dtype)}\'')
    return TensorMeta(a.shape, a.dtype)


def _reverse_logcumsumexp(x, dim):
    return x.flip(dim)._op(logcumsumexp, dim=dim).flip(dim)


@logcumsumexp.derivative
def _(grad, a, out, *, dim):
    # sum_{j >= i} g_j exp(a_i - out_j), with positive and negative parts of g summed in log space
    # so nothing overflows (torch's logcumsumexp_backward)
    if a.dim() == 0:
        return grad
    # log of the positive (negative) part, a huge negative number elsewhere (exp of it is exactly 0):
    # with -inf, the double backward would meet -inf - -inf; the log only ever sees positive values
    lowest = float(np.finfo(np.float64 if grad.dtype.itemsize >= 8 else np.float32).min) / 4
    one, minus_inf = grad.new_ones(()), grad.new_full((), lowest)
    is_pos, is_neg = grad > 0, grad < 0
    pos = grad.where(is_pos, one).log().where(is_pos, minus_inf)
    neg = (-grad).where(is_neg, one).log().where(is_neg, minus_inf)
    return (a + _reverse_logcumsumexp(pos - out, dim)).exp() - \
        (a + _reverse_logcumsumexp(neg - out, dim)).exp()


__all__ = ["cummax", "cummin", "logcumsumexp"]
