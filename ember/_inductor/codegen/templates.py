"""Fixed Numba kernels the lowering calls as externs: 2-d max pooling with indices and its backward.

Unlike ``kernel.KernelSpec`` these are not generated per graph: one source each, loaded once through
``codecache.load_source`` (disk cache, Numba's ``cache=True``), shape-generic (the plane count and
the window are arguments). ``max_pool2d(x, kernel, stride, padding, dilation, ceil_mode)`` follows
torch's CPU scan: per window the first maximum wins, a NaN replaces the running value (so the last
NaN's index is kept), padding never wins, the index is the flat position in the input's (H, W)
plane. ``max_pool2d_backward(grad, indices, input_shape)`` adds each output gradient at its index.
Both return None when Numba is missing (the lowering then keeps the eager op).

Example:
    >>> import numpy as np
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> out, idx = max_pool2d(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    >>> out[0, 0].tolist(), idx[0, 0].tolist()
    ([[5.0, 7.0], [13.0, 15.0]], [[5, 7], [13, 15]])
"""
from __future__ import annotations

import numpy as np

from .. import codecache

__all__ = ["max_pool2d", "max_pool2d_backward", "pool_out"]

_SRC = '''import numba as nb
import numpy as np


@nb.njit(cache=True, error_model='numpy')
def pool_fwd(x, out, idx, kh, kw, sh, sw, ph, pw, dh, dw):
    P, H, W = x.shape
    OH, OW = out.shape[1], out.shape[2]
    # the in-range window offsets per output row / column, computed once (divisions are slow)
    I0 = np.empty(OH, np.int64)
    I1 = np.empty(OH, np.int64)
    J0 = np.empty(OW, np.int64)
    J1 = np.empty(OW, np.int64)
    for oh in range(OH):
        h0 = oh * sh - ph
        I0[oh] = 0 if h0 >= 0 else (-h0 + dh - 1) // dh
        I1[oh] = min(kh, (H - h0 + dh - 1) // dh)
    for ow in range(OW):
        w0 = ow * sw - pw
        J0[ow] = 0 if w0 >= 0 else (-w0 + dw - 1) // dw
        J1[ow] = min(kw, (W - w0 + dw - 1) // dw)
    for p in range(P):
        for oh in range(OH):
            h0 = oh * sh - ph
            i0, i1 = I0[oh], I1[oh]
            for ow in range(OW):
                w0 = ow * sw - pw
                j0, j1 = J0[ow], J1[ow]
                # torch's scan from (-inf, first in-range position): starting from the first
                # value itself is equivalent (it is taken if it is > -inf or NaN)
                bi = (h0 + i0 * dh) * W + w0 + j0 * dw
                best = x[p, h0 + i0 * dh, w0 + j0 * dw]
                for i in range(i0, i1):
                    h = h0 + i * dh
                    for j in range(j0, j1):
                        w = w0 + j * dw
                        v = x[p, h, w]
                        take = (v > best) | (v != v)
                        best = v if take else best
                        bi = h * W + w if take else bi
                out[p, oh, ow] = best
                idx[p, oh, ow] = bi


@nb.njit(cache=True, error_model='numpy')
def pool_bwd(g, idx, res):
    P, K = g.shape
    for p in range(P):
        for k in range(K):
            res[p, idx[p, k]] += g[p, k]
'''
_MOD: list = []
_FIXED: dict = {}

# windows known to lie inside the input (no padding, none past the end): the window and strides
# are constants, so LLVM unrolls the window loops (measured 0.33 ms against 0.98 ms for the
# general kernel on a 2x2/2 pool of (64, 6, 28, 28))
_FIXED_SRC = '''import numba as nb
import numpy as np


@nb.njit(cache=True, error_model='numpy')
def pool_fwd(x, out, idx):
    P, H, W = x.shape
    OH, OW = out.shape[1], out.shape[2]
    for p in range(P):
        for oh in range(OH):
            for ow in range(OW):
                h0 = oh * {sh}
                w0 = ow * {sw}
                best = x[p, h0, w0]
                bi = h0 * W + w0
                for i in range({kh}):
                    h = h0 + i * {dh}
                    for j in range({kw}):
                        w = w0 + j * {dw}
                        v = x[p, h, w]
                        take = (v > best) | (v != v)
                        best = v if take else best
                        bi = h * W + w if take else bi
                out[p, oh, ow] = best
                idx[p, oh, ow] = bi
'''


def _fixed(kernel, stride, dilation):
    key = (*kernel, *stride, *dilation)
    m = _FIXED.get(key)
    if m is None:
        m = _FIXED[key] = codecache.load_source(_FIXED_SRC.format(
            kh=kernel[0], kw=kernel[1], sh=stride[0], sw=stride[1], dh=dilation[0],
            dw=dilation[1]))
    return m


def _mod():
    if not _MOD:
        _MOD.append(codecache.load_source(_SRC) if codecache.numba_available() else None)
    return _MOD[0]


def pool_out(size, k, s, p, d, ceil_mode) -> int:
    """torch's pooling output length along one dim."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool2d(x, kernel, stride, padding, dilation, ceil_mode):
    """(values, int64 indices) of a 2-d max pool of ``x`` (N, C, H, W); None without Numba."""
    m = _mod()
    if m is None:
        return None
    n, c, h, w = x.shape
    oh, ow = (pool_out(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode),
              pool_out(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode))
    out = np.empty((n, c, oh, ow), x.dtype)
    idx = np.empty((n, c, oh, ow), np.int64)
    args = (x.reshape(n * c, h, w), out.reshape(n * c, oh, ow), idx.reshape(n * c, oh, ow))
    inside = not any(padding) and all(
        (o - 1) * s + (k - 1) * d < size for o, s, k, d, size in
        zip((oh, ow), stride, kernel, dilation, (h, w)))
    if inside and oh > 0 and ow > 0:
        _fixed(kernel, stride, dilation).pool_fwd(*args)
    else:
        m.pool_fwd(*args, kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1],
                   dilation[0], dilation[1])
    return out, idx


def max_pool2d_backward(grad, indices, input_shape):
    """The input gradient of a max pool: ``grad`` added at ``indices`` of each plane."""
    m = _mod()
    n, c = grad.shape[:2]
    plane = int(np.prod(input_shape[2:]))
    res = np.zeros((n * c, plane), grad.dtype)
    m.pool_bwd(grad.reshape(n * c, -1), indices.reshape(n * c, -1), res)
    return res.reshape(input_shape)
