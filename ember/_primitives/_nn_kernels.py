"""Numba loops for nn primitives whose NumPy form needs many passes over memory (layer L1).

Imported lazily by ``nn_ops`` kernels (Numba is a runtime dependency, but ``import ember`` must not
pay for it). Every loop takes C-contiguous float32/float64 arrays and accumulates row sums in float64;
compiled code is cached on disk (``cache=True``) so only the first run in a fresh checkout compiles.
Only reassociation (vectorised sums) and fused multiply-add are allowed: NaN and inf must propagate.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["layer_norm_forward", "layer_norm_backward", "index_add_rows", "depthwise_forward",
           "depthwise_transpose", "depthwise_weight", "windows_inside", "max_pool2d_forward",
           "max_pool2d_inside", "max_pool_scatter"]


@njit(cache=True, fastmath={"reassoc", "contract"}, nogil=True)
def layer_norm_forward(x, w, b, eps, out, mu, rstd):  # pragma: no cover - compiled
    """Per row of ``x (m, n)``: mean, 1/std and ``(x - mean) * rstd * w + b`` into ``out``."""
    m, n = x.shape
    inv_n = 1.0 / max(n, 1)
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += x[i, j]
        mean = s * inv_n
        v = 0.0
        for j in range(n):
            d = x[i, j] - mean
            v += d * d
        r = 1.0 / math.sqrt(v * inv_n + eps)
        mu[i] = mean
        rstd[i] = r
        for j in range(n):
            out[i, j] = (x[i, j] - mean) * r * w[j] + b[j]


@njit(cache=True, fastmath={"reassoc", "contract"}, nogil=True)
def layer_norm_backward(g, x, mu, rstd, w, gi, gw, gb):  # pragma: no cover - compiled
    """Layer-norm gradients: ``gi`` per row; ``gw``/``gb`` (float64) accumulated over rows."""
    m, n = x.shape
    inv_n = 1.0 / max(n, 1)
    for i in range(m):
        mean = mu[i]
        r = rstd[i]
        sg = 0.0
        sgx = 0.0
        for j in range(n):
            xh = (x[i, j] - mean) * r
            gg = g[i, j]
            gb[j] += gg
            gw[j] += gg * xh
            gwj = gg * w[j]
            sg += gwj
            sgx += gwj * xh
        a = sg * inv_n
        c = sgx * inv_n
        for j in range(n):
            xh = (x[i, j] - mean) * r
            gi[i, j] = r * (g[i, j] * w[j] - a - xh * c)


@njit(cache=True, fastmath={"reassoc", "contract"}, nogil=True)
def index_add_rows(g, idx, skip, out):  # pragma: no cover - compiled
    """``out[idx[k]] += g[k]`` for every k whose index is not ``skip`` (indices checked by caller)."""
    k_, d = g.shape
    for k in range(k_):
        r = idx[k]
        if r == skip:
            continue
        for j in range(d):
            out[r, j] += g[k, j]


# ------------------------------------------------------------------ depthwise 2-d convolution
# Weight (C*m, 1, kh, kw): output channel oc reads input channel oc // m. For each tap the output
# rows/columns whose input position falls inside the unpadded input are found first, so the inner
# loop has no bounds test (and vectorises for stride 1).
@njit(cache=True, nogil=True)
def _tap_range(out_len, in_len, stride, pad, offset):  # pragma: no cover - compiled
    """Output indices o with 0 <= o * stride - pad + offset < in_len."""
    lo = pad - offset
    first = 0 if lo <= 0 else (lo + stride - 1) // stride
    last = (in_len - 1 + pad - offset) // stride + 1 if in_len - 1 + pad - offset >= 0 else 0
    return first, min(out_len, last)


@njit(cache=True, fastmath={"contract"}, nogil=True)
def _depthwise_forward_generic(x, w, b, sh, sw, ph, pw, dh, dw, out):  # pragma: no cover - compiled
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    m = o // c
    oh, ow = out.shape[2], out.shape[3]
    for i in range(n):
        for oc in range(o):
            ic = oc // m
            bias = b[oc] if b.shape[0] else 0.0
            for y in range(oh):
                for xx in range(ow):
                    out[i, oc, y, xx] = bias
            for a in range(kh):
                y0, y1 = _tap_range(oh, h, sh, ph, a * dh)
                for bb in range(kw):
                    x0, x1 = _tap_range(ow, wd, sw, pw, bb * dw)
                    wv = w[oc, 0, a, bb]
                    for y in range(y0, y1):
                        iy = y * sh - ph + a * dh
                        for xx in range(x0, x1):
                            out[i, oc, y, xx] += wv * x[i, ic, iy, xx * sw - pw + bb * dw]


# Stride 1: one plane at a time, zero-padded into a flat buffer of row length wp; output position
# (y, x) sits at flat y * wp + x, and tap (a, b) reads flat offset a * dh * wp + b * dw further on.
# Each tap is then one long contiguous multiply-add over the plane (the wp - ow extra columns per
# row are computed and dropped), which vectorises.
@njit(cache=True, nogil=True)
def _pad_plane(x, i, ic, ph, pw, wp, buf):  # pragma: no cover - compiled
    plane = x[i, ic]
    for y in range(x.shape[2]):
        row = plane[y]
        dst = buf[(y + ph) * wp + pw:]
        for xx in range(x.shape[3]):
            dst[xx] = row[xx]


@njit(cache=True, nogil=True, inline="always")
def _pad_plane_finite(plane, buf, start, wp):  # pragma: no cover - compiled
    """Rows of ``plane (H, W)`` into flat ``buf``, row y at ``start + y * wp`` (``_pad_plane``'s
    layout); False if a value is not finite (the caller then takes a path that propagates it)."""
    bad = 0.0
    for y in range(plane.shape[0]):
        row = plane[y]
        o = start + y * wp
        for xx in range(plane.shape[1]):
            buf[o + xx] = row[xx]
            bad += row[xx] * 0.0
    return bad == 0.0


@njit(cache=True, nogil=True)
def _wide_plane(g, i, oc, wp, buf):  # pragma: no cover - compiled
    plane = g[i, oc]
    for y in range(g.shape[2]):
        row = plane[y]
        dst = buf[y * wp:]
        for xx in range(g.shape[3]):
            dst[xx] = row[xx]


@njit(cache=True, nogil=True, inline="always")
def _plane_from_wide(buf, start, wp, out, i, c):  # pragma: no cover - compiled
    """Rows of ``out[i, c]`` from ``buf``: row y at flat ``start + y * wp`` (undoes ``_pad_plane``)."""
    plane = out[i, c]
    for y in range(out.shape[2]):
        row = plane[y]
        src = buf[start + y * wp:]
        for xx in range(out.shape[3]):
            row[xx] = src[xx]


@njit(cache=True, fastmath={"contract"}, nogil=True)
def _depthwise_forward_s1(x, w, b, ph, pw, dh, dw, out):  # pragma: no cover - compiled
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    m = o // c
    oh, ow = out.shape[2], out.shape[3]
    wp = wd + 2 * pw
    span = (oh - 1) * wp + ow
    xpad = np.zeros((h + 2 * ph) * wp, x.dtype)
    acc = np.empty(span, x.dtype)
    for i in range(n):
        for ic in range(c):
            _pad_plane(x, i, ic, ph, pw, wp, xpad)
            for oc in range(ic * m, ic * m + m):
                bias = b[oc] if b.shape[0] else 0.0
                for p in range(span):
                    acc[p] = bias
                for a in range(kh):
                    r = xpad[a * dh * wp:]
                    if kw == 3:  # a kernel row per pass: 3 loads per accumulator update
                        w0, w1, w2 = w[oc, 0, a, 0], w[oc, 0, a, 1], w[oc, 0, a, 2]
                        r1 = r[dw:]
                        r2 = r[2 * dw:]
                        for p in range(span):
                            acc[p] += w0 * r[p] + w1 * r1[p] + w2 * r2[p]
                        continue
                    for bb in range(kw):
                        wv = w[oc, 0, a, bb]
                        src = r[bb * dw:]
                        for p in range(span):
                            acc[p] += wv * src[p]
                _plane_from_wide(acc, 0, wp, out, i, oc)


def depthwise_forward(x, w, b, sh, sw, ph, pw, dh, dw, out):
    """``out (N, C*m, OH, OW)`` = depthwise correlation of ``x (N, C, H, W)`` with ``w (C*m, 1, kh, kw)``
    (+ ``b``, a length-0 array for none); C-contiguous float32/float64 arrays of one dtype."""
    if sh == sw == 1:
        _depthwise_forward_s1(x, w, b, ph, pw, dh, dw, out)
    else:
        _depthwise_forward_generic(x, w, b, sh, sw, ph, pw, dh, dw, out)


@njit(cache=True, fastmath={"contract"}, nogil=True)
def _depthwise_transpose_generic(g, w, sh, sw, ph, pw, dh, dw, out):  # pragma: no cover - compiled
    n, o, oh, ow = g.shape
    c, h, wd = out.shape[1], out.shape[2], out.shape[3]
    kh, kw = w.shape[2], w.shape[3]
    m = o // c
    out[...] = 0
    for i in range(n):
        for oc in range(o):
            ic = oc // m
            for a in range(kh):
                y0, y1 = _tap_range(oh, h, sh, ph, a * dh)
                for bb in range(kw):
                    x0, x1 = _tap_range(ow, wd, sw, pw, bb * dw)
                    wv = w[oc, 0, a, bb]
                    for y in range(y0, y1):
                        iy = y * sh - ph + a * dh
                        for xx in range(x0, x1):
                            out[i, ic, iy, xx * sw - pw + bb * dw] += wv * g[i, oc, y, xx]


@njit(cache=True, fastmath={"contract"}, nogil=True)
def _depthwise_transpose_s1(g, w, ph, pw, dh, dw, out):  # pragma: no cover - compiled
    n, o, oh, ow = g.shape
    c, h, wd = out.shape[1], out.shape[2], out.shape[3]
    kh, kw = w.shape[2], w.shape[3]
    m = o // c
    wp = wd + 2 * pw
    span = (oh - 1) * wp + ow
    lead = 2 * dw  # zeros before the wide rows: kw == 3 reads g two taps back
    gext = np.zeros(span + 2 * lead, g.dtype)
    gwide = gext[lead:]
    canvas = np.empty((h + 2 * ph) * wp, g.dtype)
    for i in range(n):
        for ic in range(c):
            canvas[:] = 0
            for oc in range(ic * m, ic * m + m):
                _wide_plane(g, i, oc, wp, gwide)
                for a in range(kh):
                    if kw == 3:  # gathered per output: canvas[q] takes g[q], g[q - dw], g[q - 2 dw]
                        w0, w1, w2 = w[oc, 0, a, 0], w[oc, 0, a, 1], w[oc, 0, a, 2]
                        dst = canvas[a * dh * wp:]
                        g1 = gext[dw:]
                        for q in range(span + lead):
                            dst[q] += w0 * gwide[q] + w1 * g1[q] + w2 * gext[q]
                        continue
                    for bb in range(kw):
                        wv = w[oc, 0, a, bb]
                        dst = canvas[a * dh * wp + bb * dw:]
                        for p in range(span):
                            dst[p] += wv * gwide[p]
            _plane_from_wide(canvas, ph * wp + pw, wp, out, i, ic)


def depthwise_transpose(g, w, sh, sw, ph, pw, dh, dw, out):
    """The adjoint of ``depthwise_forward`` in its input: ``g (N, C*m, OH, OW)`` -> ``out (N, C, H, W)``."""
    if sh == sw == 1 and out.shape[2] == g.shape[2] + 2 * ph - dh * (w.shape[2] - 1) \
            and out.shape[3] == g.shape[3] + 2 * pw - dw * (w.shape[3] - 1):
        _depthwise_transpose_s1(g, w, ph, pw, dh, dw, out)
    else:  # strided, or an output_padding the flat planes do not cover
        _depthwise_transpose_generic(g, w, sh, sw, ph, pw, dh, dw, out)


@njit(cache=True, fastmath={"reassoc", "contract"}, nogil=True)
def _depthwise_weight_generic(x, g, sh, sw, ph, pw, dh, dw, out):  # pragma: no cover - compiled
    n, c, h, wd = x.shape
    o, oh, ow = g.shape[1], g.shape[2], g.shape[3]
    kh, kw = out.shape[2], out.shape[3]
    m = o // c
    for oc in range(o):
        ic = oc // m
        for a in range(kh):
            y0, y1 = _tap_range(oh, h, sh, ph, a * dh)
            for bb in range(kw):
                x0, x1 = _tap_range(ow, wd, sw, pw, bb * dw)
                s = 0.0
                for i in range(n):
                    for y in range(y0, y1):
                        iy = y * sh - ph + a * dh
                        for xx in range(x0, x1):
                            s += g[i, oc, y, xx] * x[i, ic, iy, xx * sw - pw + bb * dw]
                out[oc, 0, a, bb] = s


@njit(cache=True, fastmath={"reassoc", "contract"}, nogil=True)
def _depthwise_weight_s1(x, g, ph, pw, dh, dw, zero, out):  # pragma: no cover - compiled
    n, c, h, wd = x.shape
    o, oh, ow = g.shape[1], g.shape[2], g.shape[3]
    kh, kw = out.shape[2], out.shape[3]
    m = o // c
    wp = wd + 2 * pw
    span = (oh - 1) * wp + ow
    xpad = np.zeros((h + 2 * ph) * wp, x.dtype)
    gwide = np.zeros(span, g.dtype)
    out[...] = 0
    for i in range(n):
        for ic in range(c):
            _pad_plane(x, i, ic, ph, pw, wp, xpad)
            for oc in range(ic * m, ic * m + m):
                _wide_plane(g, i, oc, wp, gwide)
                for a in range(kh):
                    r = xpad[a * dh * wp:]
                    if kw == 3:  # a kernel row per pass, summed in x's precision per sample
                        r1 = r[dw:]
                        r2 = r[2 * dw:]
                        s0 = s1 = s2 = zero
                        for p in range(span):
                            gv = gwide[p]
                            s0 += gv * r[p]
                            s1 += gv * r1[p]
                            s2 += gv * r2[p]
                        out[oc, 0, a, 0] += s0
                        out[oc, 0, a, 1] += s1
                        out[oc, 0, a, 2] += s2
                        continue
                    for bb in range(kw):
                        src = r[bb * dw:]
                        s = 0.0
                        for p in range(span):
                            s += gwide[p] * src[p]
                        out[oc, 0, a, bb] += s


def depthwise_weight(x, g, sh, sw, ph, pw, dh, dw, out):
    """Weight gradient of ``depthwise_forward`` into float64 ``out (C*m, 1, kh, kw)``."""
    if sh == sw == 1:
        _depthwise_weight_s1(x, g, ph, pw, dh, dw, x.dtype.type(0), out)
    else:
        _depthwise_weight_generic(x, g, sh, sw, ph, pw, dh, dw, out)



# ------------------------------------------------------------------ 2-d max pooling (float)
# One definition for eager mode and the compiler: ``pooling.max_pool2d`` calls max_pool2d_forward;
# the inductor calls it too, or, for windows inside the input, a kernel that calls
# max_pool2d_inside with the window as constants (inlined, so LLVM unrolls the window loops).
def windows_inside(h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw) -> bool:
    """Whether every window of the pool lies inside the unpadded ``(h, w)`` plane."""
    return ph == 0 and pw == 0 and (oh - 1) * sh + (kh - 1) * dh < h \
        and (ow - 1) * sw + (kw - 1) * dw < w


def max_pool2d_forward(x, kh, kw, sh, sw, ph, pw, dh, dw, out, idx):
    """Max over each window of ``x (N, C, H, W)`` into ``out (N, C, OH, OW)``, with the flat plane
    position of the first maximum in ``idx`` (a NaN replaces the running maximum whenever met).
    Window positions outside the input are skipped; the default index is the window's first
    position inside it."""
    if windows_inside(*x.shape[2:], *out.shape[2:], kh, kw, sh, sw, ph, pw, dh, dw):
        max_pool2d_inside(x, kh, kw, sh, sw, dh, dw, out, idx)
    else:
        _max_pool2d_clipped(x, kh, kw, sh, sw, ph, pw, dh, dw, out, idx)


@njit(cache=True, nogil=True)
def _max_pool2d_clipped(x, kh, kw, sh, sw, ph, pw, dh, dw, out, idx):  # pragma: no cover - compiled
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    for i in range(n):
        for ch in range(c):
            for y in range(oh):
                y0 = y * sh - ph
                y1 = min(y0 + (kh - 1) * dh + 1, h)
                while y0 < 0:
                    y0 += dh
                for xx in range(ow):
                    x0 = xx * sw - pw
                    x1 = min(x0 + (kw - 1) * dw + 1, w)
                    while x0 < 0:
                        x0 += dw
                    best = -np.inf
                    at = y0 * w + x0
                    for yy in range(y0, y1, dh):
                        for xi in range(x0, x1, dw):
                            v = x[i, ch, yy, xi]
                            if v > best or v != v:
                                best = v
                                at = yy * w + xi
                    out[i, ch, y, xx] = best
                    idx[i, ch, y, xx] = at


@njit(cache=True, nogil=True, inline="always")
def max_pool2d_inside(x, kh, kw, sh, sw, dh, dw, out, idx):  # pragma: no cover - compiled
    """``max_pool2d_forward`` when every window lies inside the input (no bounds to clip).
    Inlined into jitted callers: one passing constants gets the window unrolled."""
    n, c, h, w = x.shape
    oh, ow = out.shape[2], out.shape[3]
    for i in range(n):
        for ch in range(c):
            plane = x[i, ch]
            o = out[i, ch]
            ix = idx[i, ch]
            for y in range(oh):
                y0 = y * sh
                for xx in range(ow):
                    x0 = xx * sw
                    best = plane[y0, x0]
                    at = y0 * w + x0
                    for a in range(kh):
                        yy = y0 + a * dh
                        for b in range(kw):
                            xi = x0 + b * dw
                            v = plane[yy, xi]
                            # selects, not branches (random data mispredicts half the time)
                            upd = (v > best) | (v != v)
                            best = v if upd else best
                            at = yy * w + xi if upd else at
                    o[y, xx] = best
                    ix[y, xx] = at


@njit(cache=True, nogil=True)
def max_pool_scatter(g, idx, res):  # pragma: no cover - compiled
    """``res[p, idx[p, k]] += g[p, k]`` (max pooling's input gradient, planes ``p``); False, and
    nothing more written, at the first index outside ``res``'s rows."""
    planes, k_ = g.shape
    size = res.shape[1]
    for p in range(planes):
        for k in range(k_):
            j = idx[p, k]
            if j < 0 or j >= size:
                return False
            res[p, j] += g[p, k]
    return True
