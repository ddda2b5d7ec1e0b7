"""Direct stride-1 2-d convolution loops for few input channels (layer L1, Numba).

With few input channels im2col's column buffer is mostly copying: a 3-channel 3x3 conv writes 27
floats of columns per output position for 27 multiply-adds. These loops read the zero-padded input
plane instead ("wide rows": on a plane flattened with row length ``wp`` the output position (y, x)
sits at ``y * wp + x`` and tap (a, b) reads ``a * dh * wp + b * dw`` further on), so each kernel row
is one long contiguous multiply-add over the plane (the ``wp - ow`` extra columns per row are
computed and dropped); it vectorises. The weight gradient is the matching set of dot products with
the output gradient laid out on the same wide rows (zeros in the dropped columns: exact only for a
finite input, which the loop reports).

Imported lazily (Numba is a runtime dependency that ``import ember`` does not pay for); float32 and
float64, compiled code cached on disk.

Example:
    >>> import numpy as np
    >>> x = np.ones((1, 1, 3, 3), np.float32); w = np.ones((1, 1, 2, 2), np.float32)
    >>> forward(x, w, None, (0, 0), (1, 1)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._nn_kernels import _pad_plane_finite, _plane_from_wide

__all__ = ["forward", "weight_grad", "col2im"]


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _pad_planes(x, n, ph, pw, wp, xpad):  # pragma: no cover - compiled
    """Copy sample ``n`` of ``x (N, C, H, W)`` into the interior of ``xpad (C, >= Hp * wp)``, whose
    border stays zero; returns False on a non-finite value."""
    ok = True
    for c in range(x.shape[1]):
        if not _pad_plane_finite(x[n, c], xpad[c], ph * wp + pw, wp):
            ok = False
    return ok


# Output channels go in blocks of 4 (the weight is zero-padded to a multiple of 4): each input value
# loaded feeds 4 multiply-adds, so the loops are bound by arithmetic rather than by loads and stores.
@njit(cache=True, nogil=True, fastmath={"contract"})
def _forward(x, w, b, ph, pw, dh, dw, xpad, acc, out):  # pragma: no cover - compiled
    """``w (O4, C, kh, kw)`` with O4 a multiple of 4; ``acc (4, span)`` scratch, its span rounded
    up to whole vectors (no scalar remainder loop; the extra positions are dropped)."""
    n_, c_ = x.shape[0], x.shape[1]
    o4, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    o_ = out.shape[1]
    wp = x.shape[3] + 2 * pw
    span = acc.shape[1]
    a0, a1, a2, a3 = acc[0], acc[1], acc[2], acc[3]
    for n in range(n_):
        _pad_planes(x, n, ph, pw, wp, xpad)
        for o in range(0, o4, 4):
            for i in range(4):
                bias = b[o + i] if b.shape[0] > o + i else 0.0
                ai = acc[i]
                for p in range(span):
                    ai[p] = bias
            for c in range(c_):
                src = xpad[c]
                for a in range(kh):
                    r = src[a * dh * wp:]
                    if kw == 3:
                        r1 = r[dw:]
                        r2 = r[2 * dw:]
                        u0, u1, u2 = w[o, c, a, 0], w[o, c, a, 1], w[o, c, a, 2]
                        v0, v1, v2 = w[o + 1, c, a, 0], w[o + 1, c, a, 1], w[o + 1, c, a, 2]
                        s0, s1, s2 = w[o + 2, c, a, 0], w[o + 2, c, a, 1], w[o + 2, c, a, 2]
                        t0, t1, t2 = w[o + 3, c, a, 0], w[o + 3, c, a, 1], w[o + 3, c, a, 2]
                        for p in range(span):
                            x0, x1, x2 = r[p], r1[p], r2[p]
                            a0[p] = a0[p] + u0 * x0 + u1 * x1 + u2 * x2
                            a1[p] = a1[p] + v0 * x0 + v1 * x1 + v2 * x2
                            a2[p] = a2[p] + s0 * x0 + s1 * x1 + s2 * x2
                            a3[p] = a3[p] + t0 * x0 + t1 * x1 + t2 * x2
                    else:
                        for bb in range(kw):
                            rb = r[bb * dw:]
                            u0, v0 = w[o, c, a, bb], w[o + 1, c, a, bb]
                            s0, t0 = w[o + 2, c, a, bb], w[o + 3, c, a, bb]
                            for p in range(span):
                                x0 = rb[p]
                                a0[p] += u0 * x0
                                a1[p] += v0 * x0
                                a2[p] += s0 * x0
                                a3[p] += t0 * x0
            for i in range(min(4, o_ - o)):
                _plane_from_wide(acc[i], 0, wp, out, n, o + i)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _weight(x, g, ph, pw, dh, dw, xpad, gw, zero, out):  # pragma: no cover - compiled
    """``out (O4, C, kh, kw)`` float64 += the weight gradient (O4 a multiple of 4, ``gw (O4, span)``
    scratch whose rows beyond O and positions past the last output stay zero: the span is rounded up
    to whole vectors), per sample summed in ``zero``'s type (x's); False on a non-finite input."""
    n_, c_ = x.shape[0], x.shape[1]
    o4, kh, kw = out.shape[0], out.shape[2], out.shape[3]
    o_ = g.shape[1]
    oh, ow = g.shape[2], g.shape[3]
    wp = x.shape[3] + 2 * pw
    span = gw.shape[1]
    for n in range(n_):
        if not _pad_planes(x, n, ph, pw, wp, xpad):
            return False
        for o in range(o_):
            gplane = g[n, o]
            d = gw[o]
            for y in range(oh):  # the gaps between rows stay zero
                row = gplane[y]
                dy = d[y * wp:]
                for i in range(ow):
                    dy[i] = row[i]
        for o in range(0, o4, 4):
            g0, g1, g2, g3 = gw[o], gw[o + 1], gw[o + 2], gw[o + 3]
            for c in range(c_):
                src = xpad[c]
                for a in range(kh):
                    r = src[a * dh * wp:]
                    if kw == 3:  # 3 taps x 4 channels: 12 sums from 7 loads
                        r1 = r[dw:]
                        r2 = r[2 * dw:]
                        u0 = u1 = u2 = v0 = v1 = v2 = s0 = s1 = s2 = t0 = t1 = t2 = zero
                        for p in range(span):
                            x0, x1, x2 = r[p], r1[p], r2[p]
                            e0, e1, e2, e3 = g0[p], g1[p], g2[p], g3[p]
                            u0 += e0 * x0
                            u1 += e0 * x1
                            u2 += e0 * x2
                            v0 += e1 * x0
                            v1 += e1 * x1
                            v2 += e1 * x2
                            s0 += e2 * x0
                            s1 += e2 * x1
                            s2 += e2 * x2
                            t0 += e3 * x0
                            t1 += e3 * x1
                            t2 += e3 * x2
                        out[o, c, a, 0] += u0
                        out[o, c, a, 1] += u1
                        out[o, c, a, 2] += u2
                        out[o + 1, c, a, 0] += v0
                        out[o + 1, c, a, 1] += v1
                        out[o + 1, c, a, 2] += v2
                        out[o + 2, c, a, 0] += s0
                        out[o + 2, c, a, 1] += s1
                        out[o + 2, c, a, 2] += s2
                        out[o + 3, c, a, 0] += t0
                        out[o + 3, c, a, 1] += t1
                        out[o + 3, c, a, 2] += t2
                        continue
                    if kw == 5:  # 5 taps x 2 channels per pass: 10 sums from 7 loads
                        r1 = r[dw:]
                        r2 = r[2 * dw:]
                        r3 = r[3 * dw:]
                        r4 = r[4 * dw:]
                        for h in range(0, 4, 2):
                            e_ = gw[o + h]
                            f_ = gw[o + h + 1]
                            u0 = u1 = u2 = u3 = u4 = v0 = v1 = v2 = v3 = v4 = zero
                            for p in range(span):
                                x0, x1, x2, x3, x4 = r[p], r1[p], r2[p], r3[p], r4[p]
                                e0, e1 = e_[p], f_[p]
                                u0 += e0 * x0
                                u1 += e0 * x1
                                u2 += e0 * x2
                                u3 += e0 * x3
                                u4 += e0 * x4
                                v0 += e1 * x0
                                v1 += e1 * x1
                                v2 += e1 * x2
                                v3 += e1 * x3
                                v4 += e1 * x4
                            oa = out[o + h, c, a]
                            ob = out[o + h + 1, c, a]
                            oa[0] += u0
                            oa[1] += u1
                            oa[2] += u2
                            oa[3] += u3
                            oa[4] += u4
                            ob[0] += v0
                            ob[1] += v1
                            ob[2] += v2
                            ob[3] += v3
                            ob[4] += v4
                        continue
                    for bb in range(kw):
                        rb = r[bb * dw:]
                        s0 = s1 = s2 = s3 = zero
                        for p in range(span):
                            xv = rb[p]
                            s0 += g0[p] * xv
                            s1 += g1[p] * xv
                            s2 += g2[p] * xv
                            s3 += g3[p] * xv
                        out[o, c, a, bb] += s0
                        out[o + 1, c, a, bb] += s1
                        out[o + 2, c, a, bb] += s2
                        out[o + 3, c, a, bb] += s3
    return True


def _planes(c, size, padding, dtype):
    hp, wp = size[0] + 2 * padding[0], size[1] + 2 * padding[1]
    return np.zeros((c, hp * wp + _VEC), dtype)  # rounded-up spans read up to _VEC past (dropped)


_VEC = 16  # spans are rounded up to a multiple of this many positions


def _span(oh, ow, wp):
    return -(-((oh - 1) * wp + ow) // _VEC) * _VEC


def _pad4(w):
    """``w`` with zero output channels appended up to a multiple of 4."""
    extra = -w.shape[0] % 4
    return np.concatenate([w, np.zeros((extra,) + w.shape[1:], w.dtype)]) if extra else w


def forward(x, w, b, padding, dilation, out=None):
    """Stride-1 correlation of ``x (N, C, H, W)`` with ``w (O, C, kh, kw)`` (+ ``b (O,)``) ->
    ``(N, O, OH, OW)``, into ``out`` when given (C-contiguous)."""
    x = np.ascontiguousarray(x)
    w = np.ascontiguousarray(w, x.dtype)
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh = h + 2 * padding[0] - dilation[0] * (kh - 1)
    ow = wd + 2 * padding[1] - dilation[1] * (kw - 1)
    res = out if out is not None else np.empty((n, o, oh, ow), x.dtype)
    wp = wd + 2 * padding[1]
    acc = np.empty((4, _span(oh, ow, wp)), x.dtype)
    bias = np.ascontiguousarray(b, x.dtype) if b is not None else np.empty(0, x.dtype)
    _forward(x, _pad4(w), bias, padding[0], padding[1], dilation[0], dilation[1],
             _planes(c, (h, wd), padding, x.dtype), acc, res)
    return res


def weight_grad(x, g, weight_size, padding, dilation):
    """Weight gradient ``weight_size`` of the stride-1 correlation of ``x (N, C, H, W)`` given the
    output gradient ``g (N, O, OH, OW)``; None for a non-finite input (the caller takes im2col)."""
    x = np.ascontiguousarray(x)
    g = np.ascontiguousarray(g, x.dtype)
    oh, ow = g.shape[2:]
    wp = x.shape[3] + 2 * padding[1]
    o4 = -(-g.shape[1] // 4) * 4
    gw = np.zeros((o4, _span(oh, ow, wp)), x.dtype)
    out = np.zeros((o4,) + tuple(weight_size[1:]), np.float64)
    if not _weight(x, g, padding[0], padding[1], dilation[0], dilation[1],
                   _planes(x.shape[1], x.shape[2:], padding, x.dtype), gw, x.dtype.type(0), out):
        return None
    return out[:weight_size[0]].astype(x.dtype)



# ------------------------------------------------------------------ col2im (any stride)
@njit(cache=True, nogil=True)
def _valid(out_len, in_len, stride, pad, offset):  # pragma: no cover - compiled
    """Window indices o in [first, last) with 0 <= o * stride - pad + offset < in_len."""
    lo = pad - offset
    first = 0 if lo <= 0 else (lo + stride - 1) // stride
    hi = in_len - 1 + pad - offset
    last = hi // stride + 1 if hi >= 0 else 0
    first = min(first, out_len)
    return first, max(first, min(out_len, last))


@njit(cache=True, nogil=True)
def _col2im(cols, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, sn, sr, out):  # pragma: no cover - compiled
    h, wd = out.shape[2], out.shape[3]
    for n in range(out.shape[0]):
        for c in range(out.shape[1]):
            plane = out[n, c]
            for y in range(h):
                for i in range(wd):
                    plane[y, i] = 0
            for a in range(kh):
                y0, y1 = _valid(oh, h, sh, ph, a * dh)
                for b in range(kw):
                    x0, x1 = _valid(ow, wd, sw, pw, b * dw)
                    base = n * sn + ((c * kh + a) * kw + b) * sr
                    off = b * dw - pw
                    for oy in range(y0, y1):
                        row = plane[oy * sh - ph + a * dh]
                        src = cols[base + oy * ow:base + oy * ow + ow]
                        for ox in range(x0, x1):
                            row[ox * sw + off] += src[ox]


def col2im(cols, k, stride, padding, dilation, grid, out):
    """``out (nb, C, H, W)``: each column of the channel-major ``cols (C * kh * kw, nb * OH * OW)``
    added back at its window's place, taps in order (``grid`` = (OH, OW)); padding is never
    materialised (each tap's valid window rows and columns are found first)."""
    nb = out.shape[0]
    L = grid[0] * grid[1]
    _col2im(np.ascontiguousarray(cols).reshape(-1), k[0], k[1], stride[0], stride[1], padding[0],
            padding[1], dilation[0], dilation[1], grid[0], grid[1], L, nb * L, out)
    return out
