"""Index and weight tables for resampling (layer L1): what ``F.interpolate`` and ``F.pad`` gather.

Interpolation is separable: along each spatial dim the output is ``sum_t x[idx[:, t]] * w[:, t]``.
These functions compute ``idx`` and ``w`` for one dim with torch's arithmetic (the scale and source
coordinates in the input's floating dtype, float32 for float32 inputs, as torch's CPU kernels do),
so the public composites only gather and weight. Pure NumPy, no tensors.

``resample_dim`` applies such a table along one dim (a primitive: its derivative is
``resample_dim_backward``, a scatter that sums runs of equal source indices with ``np.add.reduceat``,
and each is the other's derivative).

Example:
    >>> linear_taps(2, 4, None, False, np.float32)[0]
    array([[0, 1],
           [0, 1],
           [0, 1],
           [1, 1]])
"""
from __future__ import annotations

import math

import numpy as np

from ._registry import TensorMeta, primitive

__all__ = ["nearest_taps", "linear_taps", "cubic_taps", "aa_taps", "pad_indices", "resample_dim",
           "resample_dim_backward"]


def _scales_value(scale, in_size, out_size, dt):
    if scale is not None and scale > 0:
        return dt(1.0 / scale)
    return dt(in_size) / dt(out_size)


def _area_scale(in_size, out_size, align_corners, scale, dt):
    if align_corners:
        return dt(in_size - 1) / dt(out_size - 1) if out_size > 1 else dt(0)
    return _scales_value(scale, in_size, out_size, dt)


def _source(scale, out_size, align_corners, cubic, dt):
    dst = np.arange(out_size, dtype=dt)
    if align_corners:
        return scale * dst
    src = scale * (dst + dt(0.5)) - dt(0.5)
    return src if cubic else np.maximum(src, dt(0))


def nearest_taps(in_size, out_size, scale, exact):
    """Source index per output position for 'nearest' / 'nearest-exact' (float32 scale, as torch)."""
    dst = np.arange(out_size)
    if not exact:
        if out_size == in_size:
            return dst
        if out_size == 2 * in_size:
            return dst >> 1
    s = _scales_value(scale, in_size, out_size, np.float32)
    pos = dst.astype(np.float32)
    if exact:
        pos = pos + np.float32(0.5)
    return np.minimum(np.floor(pos * s).astype(np.int64), in_size - 1)


def linear_taps(in_size, out_size, scale, align_corners, dt):
    """(idx (out, 2), weights (out, 2)) for linear interpolation along one dim."""
    s = _area_scale(in_size, out_size, align_corners, scale, dt)
    src = _source(s, out_size, align_corners, False, dt)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    lam = np.clip(src - i0.astype(dt), 0, 1).astype(dt)
    i1 = i0 + (i0 < in_size - 1)
    return np.stack([i0, i1], 1), np.stack([dt(1) - lam, lam], 1)


def _cc1(x, a):
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cc2(x, a):
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_taps(in_size, out_size, scale, align_corners, dt):
    """(idx (out, 4), weights (out, 4)) for bicubic interpolation (A = -0.75) along one dim."""
    s = _area_scale(in_size, out_size, align_corners, scale, dt)
    src = _source(s, out_size, align_corners, True, dt)
    i = np.floor(src)
    t = (src - i).astype(dt)
    a = dt(-0.75)
    one = dt(1)
    w = np.stack([_cc2(t + one, a), _cc1(t, a), _cc1(one - t, a), _cc2(one - t + one, a)], 1)
    idx = np.clip(i.astype(np.int64)[:, None] + np.arange(-1, 3), 0, in_size - 1)
    return idx, w.astype(dt)


def aa_taps(in_size, out_size, scale, align_corners, dt, cubic):
    """(idx (out, K), weights (out, K)) for antialiased bilinear / bicubic (Keys, a = -0.5) along one
    dim: when downsampling, the filter is stretched by the scale so every input pixel contributes."""
    s = _area_scale(in_size, out_size, align_corners, scale, dt)
    interp = 4 if cubic else 2
    support = interp * 0.5 * s if s >= 1 else interp * 0.5
    k = int(math.ceil(support)) * 2 + 1
    inv = dt(1 / s) if s >= 1 else dt(1)
    center = dt(s) * (np.arange(out_size, dtype=dt) + dt(0.5))
    # int() truncates toward zero as torch's static_cast does
    xmin = np.maximum(np.trunc(center - dt(support) + dt(0.5)).astype(np.int64), 0)
    xsize = np.clip(np.minimum(np.trunc(center + dt(support) + dt(0.5)).astype(np.int64), in_size)
                    - xmin, 0, k)
    j = np.arange(k)
    x = np.abs((j + xmin[:, None] - center[:, None] + dt(0.5)) * inv).astype(dt)
    if cubic:
        a = dt(-0.5)
        w = np.where(x < 1, _cc1(x, a), np.where(x < 2, _cc2(x, a), dt(0)))
    else:
        w = np.maximum(dt(1) - x, dt(0))
    w = np.where(j < xsize[:, None], w, dt(0)).astype(dt)
    total = w.sum(1, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(dt)
    return np.minimum(xmin[:, None] + j, in_size - 1), w


def pad_indices(size, before, after, mode):
    """Source index of each padded position along one dim for reflect / replicate / circular."""
    i = np.arange(-before, size + after)
    if mode == "reflect":
        period = 2 * (size - 1)
        if period == 0:
            return np.zeros_like(i)
        i = np.abs(i) % period
        return np.where(i >= size, period - i, i)
    if mode == "replicate":
        return np.clip(i, 0, size - 1)
    return i % size  # circular


# ------------------------------------------------------------------------------ apply a table
def _wshape(ndim, dim):
    shape = [1] * ndim
    shape[dim] = -1
    return shape


_DENSE_MAX = 128  # below this source length one BLAS matmul beats gathers (and scatters)


def _dense(idx, weight, size, dtype):
    """The table as a dense (out, size) matrix."""
    m = np.zeros((idx.shape[0], size), dtype)
    rows = np.repeat(np.arange(idx.shape[0]), idx.shape[1])
    np.add.at(m, (rows, idx.reshape(-1)), 1 if weight is None else weight.reshape(-1).astype(dtype))
    return m


def _matmul_dim(x, m, dim):
    """Contract ``x``'s ``dim`` with ``m`` (out, size): one (batched) matmul, no transposes."""
    a = int(np.prod(x.shape[:dim]))
    b = int(np.prod(x.shape[dim + 1:]))
    if b == 1:
        res = np.matmul(x.reshape(a, -1), m.T)
    else:
        res = np.matmul(m, x.reshape(a, x.shape[dim], b))
    return res.reshape(x.shape[:dim] + (m.shape[0],) + x.shape[dim + 1:])


def _use_dense(x, size):
    # 0 * inf would turn into NaN inside the matmul: non-finite data takes the gather path
    return x.dtype.kind == "f" and size <= _DENSE_MAX and x.size and np.isfinite(x).all()


def _fixed_point(weight, idx):
    """uint8 weights as torch's CPU kernels use them: taps reading the same source merged, then
    scaled by ``2**p`` (the largest ``p`` keeping the biggest weight below ``2**15``) and rounded
    half away from zero. Returns (int64 weights, p)."""
    w = weight.astype(np.float64)  # copy: merged in place
    for t in range(1, idx.shape[1]):
        for s in range(t):
            same = idx[:, s] == idx[:, t]
            w[same, s] += w[same, t]
            w[same, t] = 0
    w_max = w.max() if w.size else 0.0
    p = 0
    while p < 21 and math.floor(0.5 + w_max * 2.0 ** (p + 1)) < (1 << 15):
        p += 1
    return (np.sign(w) * np.floor(np.abs(w) * 2.0 ** p + 0.5)).astype(np.int64), p


def _resample_uint8(x, dim, idx, weight):
    """One uint8 pass in fixed point: ``(sum_t x * w_t + 2**(p-1)) >> p``, clamped to [0, 255]."""
    iw, p = _fixed_point(weight, idx)
    shape = _wshape(x.ndim, dim)
    acc = np.full(x.shape[:dim] + (idx.shape[0],) + x.shape[dim + 1:], 1 << p >> 1, np.int64)
    for t in range(idx.shape[1]):
        acc += np.take(x, idx[:, t], axis=dim).astype(np.int64) * iw[:, t].reshape(shape)
    return np.clip(acc >> p, 0, 255).astype(np.uint8)


@primitive("resample_dim", node_name="ResampleBackward0")
def resample_dim(x, *, dim, idx, weight=None):
    """``out[..., i, ...] = sum_t x[..., idx[i, t], ...] * weight[i, t]`` along ``dim``; uint8
    inputs in torch's fixed point (``_fixed_point``), rounded and clamped per pass."""
    if weight is not None and x.dtype == np.uint8:
        return _resample_uint8(x, dim, idx, weight)
    if weight is not None and _use_dense(x, x.shape[dim]):
        return _matmul_dim(x, _dense(idx, weight, x.shape[dim], x.dtype), dim)
    if weight is None:
        return np.take(x, idx[:, 0], axis=dim)
    shape = _wshape(x.ndim, dim)
    out = None
    for t in range(idx.shape[1]):
        term = np.take(x, idx[:, t], axis=dim)
        term *= weight[:, t].astype(x.dtype).reshape(shape)
        out = term if out is None else np.add(out, term, out=out)
    return out


@resample_dim.meta
def _(x, *, dim, idx, weight=None):
    shape = list(x.shape)
    shape[dim] = idx.shape[0]
    return TensorMeta(tuple(shape), x.dtype)


@resample_dim.derivative
def _(grad, *, x_shape, dim, idx, weight):
    return grad._op(resample_dim_backward, dim=dim, idx=idx, weight=weight, size=x_shape[dim])


@primitive("resample_dim_backward", node_name="ResampleBackwardBackward0")
def resample_dim_backward(grad, *, dim, idx, weight=None, size):
    """The adjoint of ``resample_dim``: scatter-add ``grad * weight`` back to ``idx`` along ``dim``."""
    if _use_dense(grad, size):
        return _matmul_dim(grad, _dense(idx, weight, size, grad.dtype).T, dim)
    shape = list(grad.shape)
    shape[dim] = size
    res = np.zeros(shape, grad.dtype)
    lead = (slice(None),) * dim
    for t in range(idx.shape[1]):
        g = grad if weight is None else grad * weight[:, t].astype(grad.dtype).reshape(
            _wshape(grad.ndim, dim))
        it = idx[:, t]
        if it.size and np.all(it[1:] >= it[:-1]):
            # sorted sources: sum each run of equal indices, then add at distinct positions
            starts = np.flatnonzero(np.r_[True, it[1:] != it[:-1]])
            res[lead + (it[starts],)] += np.add.reduceat(g, starts, axis=dim)
        else:
            np.add.at(res, lead + (it,), g)
    return res


@resample_dim_backward.meta
def _(grad, *, dim, idx, weight=None, size):
    shape = list(grad.shape)
    shape[dim] = size
    return TensorMeta(tuple(shape), grad.dtype)


@resample_dim_backward.derivative
def _(gg, *, dim, idx, weight):
    return gg._op(resample_dim, dim=dim, idx=idx, weight=weight)
