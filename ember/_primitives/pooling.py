"""Pooling primitives (layer L1) on batched inputs (N, C, *S) with 2 or 3 spatial dims.

    max_pool{2,3}d           (out, indices); indices are flat positions in each (n, c) plane
    max_pool_backward        scatter of the output grad to those indices (also adaptive max pool's)
    avg_pool{2,3}d           window sums / torch's divisor; avg_pool_backward is its adjoint
    adaptive_max_pool{2,3}d  variable windows gathered with clamped index arrays
    adaptive_avg_pool{2,3}d  per-dim 0/1 window matrices applied by matmul, divided by the counts

Kernels loop over kernel offsets only, each step a whole-array NumPy operation. 1-d pools are the
2-d ones on an unsqueezed input, as in torch.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from ._registry import SlowPath, TensorMeta, primitive
from .conv import windows

__all__ = ["pool_out_size", "check_pool", "max_pool2d", "max_pool3d", "max_pool_backward",
           "avg_pool2d", "avg_pool3d", "avg_pool_backward", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_avg_pool_backward", "adaptive_ranges"]

_I64 = np.int64
_LOOP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def pool_out_size(size, k, s, p, d, ceil_mode) -> int:
    """torch's pooling_output_shape."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def check_pool(name, shape, kernel_size, stride, padding, dilation, ceil_mode, avg=False):
    """Raise torch's errors for a pooling call on batched ``shape``; return the output shape."""
    nd = len(kernel_size)
    if any(s == 0 for s in stride) or any(k == 0 for k in kernel_size):
        raise RuntimeError("stride should not be zero")
    if any(k < 0 for k in kernel_size) or any(s < 0 for s in stride):
        raise RuntimeError("kernel size and stride should be greater than zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got " + " ".join(
            f"dilation{a}: {d}" for a, d in zip("TDHW"[-nd:] if nd == 3 else "HW", dilation)))
    for k, p, d in zip(kernel_size, padding, dilation):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    if any(s == 0 for s in shape[1:]):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    out = tuple(pool_out_size(shape[2 + i], kernel_size[i], stride[i], padding[i], dilation[i],
                              ceil_mode) for i in range(nd))
    if any(o < 1 for o in out):
        inp = "x".join(str(s) for s in shape[1:])
        res = "x".join(str(s) for s in (shape[1],) + out)
        raise RuntimeError(f"Given input size: ({inp}). Calculated output size: ({res}). Output size "
                           f"is too small")
    return tuple(shape[:2]) + out


def _padded(x, padding, out, k, s, d, value):
    """``x`` padded by ``padding`` in front and enough at the back for ``out`` windows."""
    nd = len(k)
    back = [max(0, (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - x.shape[2 + i] - padding[i])
            for i in range(nd)]
    if not any(padding) and not any(back):
        return x
    shape = x.shape[:2] + tuple(x.shape[2 + i] + padding[i] + back[i] for i in range(nd))
    xp = np.full(shape, value, x.dtype)
    xp[(slice(None), slice(None)) + tuple(slice(padding[i], padding[i] + x.shape[2 + i])
                                          for i in range(nd))] = x
    return xp


def _lowest(dt):
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min


def _flat_positions(parts, size):
    """Broadcast per-dim position arrays into flat plane indices ``sum(pos_i * inner_i)``."""
    nd = len(parts)
    idx = None
    inner = 1
    for i in range(nd - 1, -1, -1):
        shp = [1] * nd
        shp[i] = -1
        term = parts[i].reshape(shp) * inner
        idx = term if idx is None else idx + term
        inner *= size[i]
    return idx


def _argmax_scan(candidates, out_shape):
    """torch's scan: keep the first maximum, NaN wins; ``candidates`` yields (values, flat index)."""
    cur = idx = None
    for v, pos in candidates:
        if cur is None:
            cur = np.array(v, copy=True)
            idx = np.empty(out_shape, _I64)
            idx[...] = pos
            continue
        mask = v > cur
        if v.dtype.kind == "f":
            mask |= np.isnan(v)
        np.copyto(cur, v, where=mask)
        np.copyto(idx, np.broadcast_to(pos, out_shape), where=mask)
    return cur, idx


# ------------------------------------------------------------------------------ max pool
def _max_pool(nd):
    @primitive(f"max_pool{nd}d", num_outputs=2, differentiable_outputs=(0,),
               node_name=f"MaxPool{nd}DWithIndicesBackward0")
    def kernel(x, *, kernel_size, stride, padding, dilation, ceil_mode=False):
        size = x.shape[2:]
        out = tuple(pool_out_size(size[i], kernel_size[i], stride[i], padding[i], dilation[i],
                                  ceil_mode) for i in range(nd))
        if min(out) < 1:
            raise SlowPath
        if nd == 2 and x.dtype in _LOOP_DTYPES:  # one pass in Numba (NumPy: ~3 passes per offset)
            from ._nn_kernels import max_pool2d_forward
            res = np.empty(x.shape[:2] + out, x.dtype)
            idx = np.empty(x.shape[:2] + out, _I64)
            max_pool2d_forward(np.ascontiguousarray(x), *kernel_size, *stride, *padding, *dilation,
                               res, idx)
            return res, idx
        xp = _padded(x, padding, out, kernel_size, stride, dilation, _lowest(x.dtype))
        win = windows(xp, kernel_size, stride, dilation, out)
        base = [np.arange(out[i]) * stride[i] - padding[i] for i in range(nd)]
        offs = list(np.ndindex(*kernel_size))

        def cand(order):
            return ((win[(slice(None), slice(None)) + j],
                     _flat_positions([base[i] + j[i] * dilation[i] for i in range(nd)], size))
                    for j in order)
        if x.dtype.kind != "f":
            return _argmax_scan(cand(offs), x.shape[:2] + out)
        # values: a running maximum (NaN propagates, as in torch); indices: the first offset
        # holding the maximum, found by scanning backwards so the earliest match is written last
        cur = np.array(win[(slice(None), slice(None)) + offs[0]], copy=True)
        for j in offs[1:]:
            np.maximum(cur, win[(slice(None), slice(None)) + j], out=cur)
        if np.isnan(cur).any():
            return _argmax_scan(cand(offs), x.shape[:2] + out)
        it = cand(offs[::-1])
        v, pos = next(it)
        idx = np.empty(x.shape[:2] + out, _I64)
        idx[...] = pos
        for v, pos in it:
            np.copyto(idx, np.broadcast_to(pos, idx.shape), where=v == cur)
        return cur, idx

    @kernel.meta
    def _(x, *, kernel_size, stride, padding, dilation, ceil_mode=False):
        shape = check_pool(f"max_pool{nd}d", tuple(x.shape), kernel_size, stride, padding, dilation,
                           ceil_mode)
        return TensorMeta(shape, x.dtype), TensorMeta(shape, D.int64)

    @kernel.derivative
    def _(grads, out1, *, x_shape, kernel_size, stride, dilation):
        unique = all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel_size, stride, dilation))
        return grads[0]._op(max_pool_backward, out1, input_shape=tuple(x_shape), unique=unique)
    return kernel


@primitive("max_pool_backward", node_name="MaxPoolBackwardBackward0")
def max_pool_backward(grad, indices, *, input_shape, unique=False):
    n, c = grad.shape[:2]
    plane = int(np.prod(input_shape[2:]))
    if grad.size == 0:  # an empty batch or channel dim (-1 cannot be inferred from 0 elements)
        return np.zeros(input_shape, grad.dtype)
    g = grad.reshape(n * c, -1)
    ix = indices.reshape(n * c, -1)
    res = np.zeros((n * c, plane), grad.dtype)
    if grad.dtype in _LOOP_DTYPES:  # one Numba pass (4x np.add.at's speed on LeNet's pools)
        from ._nn_kernels import max_pool_scatter
        if not max_pool_scatter(np.ascontiguousarray(g), np.ascontiguousarray(ix, _I64), res):
            raise IndexError(f"max_pool_backward: an index is outside the input's plane of {plane}")
        return res.reshape(input_shape)
    if unique:  # non-overlapping windows: every input position is picked at most once
        np.put_along_axis(res, ix, g, axis=1)
    else:
        np.add.at(res.reshape(-1), (ix + (np.arange(n * c) * plane)[:, None]).reshape(-1),
                  g.reshape(-1))
    return res.reshape(input_shape)


@max_pool_backward.meta
def _(grad, indices, *, input_shape, unique=False):
    return TensorMeta(tuple(input_shape), grad.dtype)


@max_pool_backward.derivative
def _(gg, indices):
    n, c = indices.shape[:2]
    if indices.numel() == 0:
        return gg.new_zeros(tuple(indices.shape)), None
    return gg.reshape(n, c, -1).gather(2, indices.reshape(n, c, -1)).reshape(indices.shape), None


max_pool2d = _max_pool(2)
max_pool3d = _max_pool(3)


# ------------------------------------------------------------------------------ avg pool
def _divisor(size, out, kernel_size, stride, padding, count_include_pad, divisor_override, dtype):
    """Per-output divisor (broadcastable to ``out``), following torch's avg_pool kernels."""
    if divisor_override:
        return dtype.type(divisor_override)
    nd = len(out)
    div = None
    for i in range(nd):
        start = np.arange(out[i]) * stride[i] - padding[i]
        end = np.minimum(start + kernel_size[i], size[i] + padding[i])
        n = (end - start) if count_include_pad else (np.minimum(end, size[i]) - np.maximum(start, 0))
        shp = [1] * nd
        shp[i] = -1
        n = n.reshape(shp)
        div = n if div is None else div * n
    return div.astype(dtype)


def _avg_out(size, kernel_size, stride, padding, ceil_mode):
    return tuple(pool_out_size(size[i], kernel_size[i], stride[i], padding[i], 1, ceil_mode)
                 for i in range(len(size)))


def _avg_pool(nd):
    @primitive(f"avg_pool{nd}d", node_name=f"AvgPool{nd}DBackward0")
    def kernel(x, *, kernel_size, stride, padding, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
        size = x.shape[2:]
        out = _avg_out(size, kernel_size, stride, padding, ceil_mode)
        if min(out) < 1:
            raise SlowPath
        one = (1,) * nd
        xp = _padded(x, padding, out, kernel_size, stride, one, 0)
        win = windows(xp, kernel_size, stride, one, out)
        acc = None
        for j in np.ndindex(*kernel_size):
            v = win[(slice(None), slice(None)) + j]
            acc = np.array(v, copy=True) if acc is None else np.add(acc, v, out=acc)
        div = _divisor(size, out, kernel_size, stride, padding, count_include_pad, divisor_override,
                       x.dtype)
        if x.dtype.kind != "f":  # integer division truncating toward zero, as torch's C++
            q = np.abs(acc) // np.abs(div)
            return np.where((acc < 0) != (np.asarray(div) < 0), -q, q).astype(x.dtype)
        acc /= div
        return acc

    @kernel.meta
    def _(x, *, kernel_size, stride, padding, ceil_mode=False, count_include_pad=True,
          divisor_override=None):
        if divisor_override is not None and divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        shape = check_pool(f"avg_pool{nd}d", tuple(x.shape), kernel_size, stride, padding, (1,) * nd,
                           ceil_mode, avg=True)
        return TensorMeta(shape, x.dtype)

    @kernel.derivative
    def _(grad, *, x_shape, **params):
        return grad._op(avg_pool_backward, input_shape=tuple(x_shape), **params)
    return kernel


avg_pool2d = _avg_pool(2)
avg_pool3d = _avg_pool(3)


@primitive("avg_pool_backward", node_name="AvgPoolBackwardBackward0")
def avg_pool_backward(grad, *, input_shape, kernel_size, stride, padding, ceil_mode=False,
                      count_include_pad=True, divisor_override=None):
    nd = len(kernel_size)
    size = tuple(input_shape[2:])
    out = grad.shape[2:]
    g = grad / _divisor(size, out, kernel_size, stride, padding, count_include_pad, divisor_override,
                        grad.dtype)
    back = [max(0, (out[i] - 1) * stride[i] + kernel_size[i] - size[i] - padding[i]) for i in range(nd)]
    canvas = np.zeros(tuple(input_shape[:2]) + tuple(size[i] + padding[i] + back[i]
                                                      for i in range(nd)), grad.dtype)
    for j in np.ndindex(*kernel_size):
        sl = tuple(slice(j[i], j[i] + (out[i] - 1) * stride[i] + 1, stride[i]) for i in range(nd))
        canvas[(slice(None), slice(None)) + sl] += g
    return canvas[(slice(None), slice(None)) + tuple(slice(padding[i], padding[i] + size[i])
                                                     for i in range(nd))]


@avg_pool_backward.meta
def _(grad, *, input_shape, **params):
    return TensorMeta(tuple(input_shape), grad.dtype)


@avg_pool_backward.derivative
def _(gg, *, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
      divisor_override):
    op = avg_pool2d if len(kernel_size) == 2 else avg_pool3d
    return gg._op(op, kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                  count_include_pad=count_include_pad, divisor_override=divisor_override)


# ------------------------------------------------------------------------------ adaptive pools
def adaptive_ranges(size, out):
    """torch's adaptive windows along one dim: ``[floor(i*L/o), ceil((i+1)*L/o))``."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _check_adaptive(name, x, output_size):
    nd = len(output_size)
    if any(s == 0 for s in tuple(x.shape)[1:]):
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but input has sizes {list(x.shape)} with dimension "
                           f"{[s for s in x.shape].index(0, 1)} being empty")
    return tuple(x.shape[:2]) + tuple(output_size[:nd])


def _adaptive_max(nd):
    @primitive(f"adaptive_max_pool{nd}d", num_outputs=2, differentiable_outputs=(0,),
               node_name=f"AdaptiveMaxPool{nd}DBackward0")
    def kernel(x, *, output_size):
        size = x.shape[2:]
        rng = [adaptive_ranges(size[i], output_size[i]) for i in range(nd)]
        kmax = [int((e - s).max()) if len(s) else 1 for s, e in rng]

        def cand():
            for j in np.ndindex(*kmax):
                parts = [np.minimum(rng[i][0] + j[i], rng[i][1] - 1) for i in range(nd)]
                sel = np.ix_(*parts)
                yield x[(slice(None), slice(None)) + sel], _flat_positions(parts, size)
        if 0 in output_size:
            shape = x.shape[:2] + tuple(output_size)
            return np.empty(shape, x.dtype), np.empty(shape, _I64)
        return _argmax_scan(cand(), x.shape[:2] + tuple(output_size))

    @kernel.meta
    def _(x, *, output_size):
        shape = _check_adaptive(f"adaptive_max_pool{nd}d", x, output_size)
        return TensorMeta(shape, x.dtype), TensorMeta(shape, D.int64)

    @kernel.derivative
    def _(grads, out1, *, x_shape):
        return grads[0]._op(max_pool_backward, out1, input_shape=tuple(x_shape), unique=False)
    return kernel


adaptive_max_pool2d = _adaptive_max(2)
adaptive_max_pool3d = _adaptive_max(3)


def _window_matrix(size, out, dtype):
    s, e = adaptive_ranges(size, out)
    pos = np.arange(size)
    m = ((pos >= s[:, None]) & (pos < e[:, None])).astype(dtype)  # (out, size)
    return m, (e - s).astype(dtype)


def _apply_dims(x, mats):
    """Contract spatial dim i of ``x`` (N, C, *S) with ``mats[i]`` (S_i -> O_i), one matmul each."""
    nd = len(mats)
    for i, m in enumerate(mats):
        ax = 2 + i
        if ax == x.ndim - 1:
            x = np.matmul(x, m.T)
        else:
            x = np.moveaxis(np.matmul(np.moveaxis(x, ax, -1), m.T), -1, ax)
    return np.ascontiguousarray(x) if nd > 1 else x


def _adaptive_avg(nd):
    @primitive(f"adaptive_avg_pool{nd}d", node_name=f"AdaptiveAvgPool{nd}DBackward0")
    def kernel(x, *, output_size):
        size = x.shape[2:]
        if all(o == 1 for o in output_size):  # global pooling: a plain mean
            return x.mean(axis=tuple(range(2, 2 + nd)), keepdims=True, dtype=x.dtype)
        pairs = [_window_matrix(size[i], output_size[i], x.dtype) for i in range(nd)]
        res = _apply_dims(x, [m for m, _ in pairs])
        return res / _flat_div([c for _, c in pairs])

    @kernel.meta
    def _(x, *, output_size):
        return TensorMeta(_check_adaptive(f"adaptive_avg_pool{nd}d", x, output_size), x.dtype)

    @kernel.derivative
    def _(grad, *, x_shape):
        return grad._op(adaptive_avg_pool_backward, input_shape=tuple(x_shape))
    return kernel


def _flat_div(counts):
    nd = len(counts)
    div = None
    for i, c in enumerate(counts):
        shp = [1] * nd
        shp[i] = -1
        c = c.reshape(shp)
        div = c if div is None else div * c
    return div


adaptive_avg_pool2d = _adaptive_avg(2)
adaptive_avg_pool3d = _adaptive_avg(3)


@primitive("adaptive_avg_pool_backward", node_name="AdaptiveAvgPoolBackwardBackward0")
def adaptive_avg_pool_backward(grad, *, input_shape):
    nd = grad.ndim - 2
    size, out = tuple(input_shape[2:]), grad.shape[2:]
    pairs = [_window_matrix(size[i], out[i], grad.dtype) for i in range(nd)]
    g = grad / _flat_div([c for _, c in pairs])
    return _apply_dims(g, [m.T for m, _ in pairs])


@adaptive_avg_pool_backward.meta
def _(grad, *, input_shape):
    return TensorMeta(tuple(input_shape), grad.dtype)


@adaptive_avg_pool_backward.derivative
def _(gg, *, grad_shape):
    op = adaptive_avg_pool2d if len(grad_shape) == 4 else adaptive_avg_pool3d
    return gg._op(op, output_size=tuple(grad_shape[2:]))
