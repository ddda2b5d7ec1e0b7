"""Stride-1 2-d convolution loops with the batch in the vector lanes (layer L1, Numba).

For moderate channel counts (LeNet-5's second conv: 6 -> 16 channels, 5x5 on 14x14) im2col's column
buffer costs as much as the GEMM, and the wide-row loops of ``_conv_direct`` waste the columns
between rows (136 positions computed for 100 kept there). Here a block of ``V`` samples is laid out
batch-innermost, ``(C, H, Wp, V)`` with the horizontal padding stored as zeros: one row of a plane
is ``Wp * V`` contiguous values, an output row ``OW * V``, and kernel tap (a, b) of output row y reads
input row ``y - ph + a * dh`` from offset ``b * dw * V`` on. So every tap is one long contiguous
multiply-add with no dropped positions; input rows outside the plane (vertical padding) are skipped,
not stored. ``V`` is a multiple of the vector width (spare lanes hold zeros), so the loops never run
a scalar remainder.

- ``forward``: 4 output channels per pass, a 5- or 3-wide kernel row fused into one pass (each
  input value loaded feeds 4 * kw multiply-adds).
- ``transpose`` (the input gradient, any stride): one GEMM per block for every tap's contribution,
  added back row by row (col2im on the same layout; the column buffer is one block's, reused).
- ``weight_grad``: per (output channel, input channel, kernel row) dot products over the rows.

A non-finite weight (forward) or output gradient (weight gradient with padding) hands the conv back
to im2col, so such values come out as they did before these loops: a stored padding zero times inf
would be nan.

Example:
    >>> import numpy as np
    >>> x = np.ones((1, 1, 3, 3), np.float32); w = np.ones((1, 1, 2, 2), np.float32)
    >>> forward(x, w, None, (0, 0), (1, 1)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["forward", "transpose", "weight_grad", "BLOCK_BYTES"]

BLOCK_BYTES = 1 << 20  # a block's batch-innermost input / output gradient at most this (L2)
ACC_BYTES = 1 << 14  # the forward's 4 accumulator rows at most this (they stay in L1)


@njit(cache=True, nogil=True, fastmath={"contract"})
def _forward(xt, w, b, ph, dh, dw, acc, out):  # pragma: no cover - compiled
    """``out (O, OH, OW * V)`` (batch-innermost) from ``xt (C, H, Wp, V)`` and ``w (O4, C, kh, kw)``
    (O4 a multiple of 4, zero-padded), ``b`` (O,) or empty; ``acc (4, qc * V)`` scratch: output rows
    go in chunks of ``qc`` columns (the accumulators stay in L1)."""
    c_, h, wp, v = xt.shape
    o4, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    o_, oh, ow = out.shape[0], out.shape[1], out.shape[2] // v
    qc = acc.shape[1] // v
    s1, s2, s3, s4 = dw * v, 2 * dw * v, 3 * dw * v, 4 * dw * v
    a0, a1, a2, a3 = acc[0], acc[1], acc[2], acc[3]
    for o in range(0, o4, 4):
        for yq in range(oh * (-(-ow // qc))):
            y, q0 = yq // (-(-ow // qc)), yq % (-(-ow // qc)) * qc
            nq = min(qc, ow - q0)
            span = nq * v
            for i in range(4):
                bias = b[o + i] if b.shape[0] > o + i else 0.0
                ai = acc[i]
                for p in range(span):
                    ai[p] = bias
            for c in range(c_):
                for a in range(kh):
                    iy = y - ph + a * dh
                    if iy < 0 or iy >= h:
                        continue
                    r = xt[c, iy].reshape(-1)[q0 * v:]
                    wa, wb, wc, wd = w[o, c, a], w[o + 1, c, a], w[o + 2, c, a], w[o + 3, c, a]
                    if kw == 5:
                        r1, r2, r3, r4 = r[s1:], r[s2:], r[s3:], r[s4:]
                        u0, u1, u2, u3, u4 = wa[0], wa[1], wa[2], wa[3], wa[4]
                        v0, v1, v2, v3, v4 = wb[0], wb[1], wb[2], wb[3], wb[4]
                        q0_, q1, q2, q3, q4 = wc[0], wc[1], wc[2], wc[3], wc[4]
                        t0, t1, t2, t3, t4 = wd[0], wd[1], wd[2], wd[3], wd[4]
                        for p in range(span):
                            x0, x1, x2, x3, x4 = r[p], r1[p], r2[p], r3[p], r4[p]
                            a0[p] = a0[p] + u0 * x0 + u1 * x1 + u2 * x2 + u3 * x3 + u4 * x4
                            a1[p] = a1[p] + v0 * x0 + v1 * x1 + v2 * x2 + v3 * x3 + v4 * x4
                            a2[p] = a2[p] + q0_ * x0 + q1 * x1 + q2 * x2 + q3 * x3 + q4 * x4
                            a3[p] = a3[p] + t0 * x0 + t1 * x1 + t2 * x2 + t3 * x3 + t4 * x4
                    elif kw == 3:
                        r1, r2 = r[s1:], r[s2:]
                        u0, u1, u2 = wa[0], wa[1], wa[2]
                        v0, v1, v2 = wb[0], wb[1], wb[2]
                        q0_, q1, q2 = wc[0], wc[1], wc[2]
                        t0, t1, t2 = wd[0], wd[1], wd[2]
                        for p in range(span):
                            x0, x1, x2 = r[p], r1[p], r2[p]
                            a0[p] = a0[p] + u0 * x0 + u1 * x1 + u2 * x2
                            a1[p] = a1[p] + v0 * x0 + v1 * x1 + v2 * x2
                            a2[p] = a2[p] + q0_ * x0 + q1 * x1 + q2 * x2
                            a3[p] = a3[p] + t0 * x0 + t1 * x1 + t2 * x2
                    else:
                        for bb in range(kw):
                            rb = r[bb * s1:]
                            u0, v0, q0_, t0 = wa[bb], wb[bb], wc[bb], wd[bb]
                            for p in range(span):
                                x0 = rb[p]
                                a0[p] += u0 * x0
                                a1[p] += v0 * x0
                                a2[p] += q0_ * x0
                                a3[p] += t0 * x0
            for i in range(min(4, o_ - o)):
                ai = acc[i]
                dst = out[o + i, y, q0 * v:]
                for p in range(span):
                    dst[p] = ai[p]


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _weight(xt, gt, ph, dh, dw, zero, out):  # pragma: no cover - compiled
    """``out (O4, C, kh, kw)`` float64 += the weight gradient of one block: ``xt (C, H, Wp, V)``,
    ``gt (O4, OH, OW * V)`` (rows of channels beyond O and spare lanes zero); sums in ``zero``'s
    type within an output row, float64 across rows (row by row: one row's data stays in cache)."""
    c_, h, wp, v = xt.shape
    o4, kh, kw = out.shape[0], out.shape[2], out.shape[3]
    oh, span = gt.shape[1], gt.shape[2]
    s1, s2, s3, s4 = dw * v, 2 * dw * v, 3 * dw * v, 4 * dw * v
    for y in range(oh):
        for c in range(c_):
            for a in range(kh):
                iy = y - ph + a * dh
                if iy < 0 or iy >= h:
                    continue
                r = xt[c, iy].reshape(-1)
                for o in range(0, o4, 4):
                    if kw == 5:  # 5 taps x 2 channels per pass: 10 sums from 7 loads
                        r1, r2, r3, r4 = r[s1:], r[s2:], r[s3:], r[s4:]
                        for hh in range(0, 4, 2):
                            ga, gb = gt[o + hh, y], gt[o + hh + 1, y]
                            u0 = u1 = u2 = u3 = u4 = e0 = e1 = e2 = e3 = e4 = zero
                            for p in range(span):
                                x0, x1, x2, x3, x4 = r[p], r1[p], r2[p], r3[p], r4[p]
                                f, g = ga[p], gb[p]
                                u0 += f * x0
                                u1 += f * x1
                                u2 += f * x2
                                u3 += f * x3
                                u4 += f * x4
                                e0 += g * x0
                                e1 += g * x1
                                e2 += g * x2
                                e3 += g * x3
                                e4 += g * x4
                            oa, ob = out[o + hh, c, a], out[o + hh + 1, c, a]
                            oa[0] += u0
                            oa[1] += u1
                            oa[2] += u2
                            oa[3] += u3
                            oa[4] += u4
                            ob[0] += e0
                            ob[1] += e1
                            ob[2] += e2
                            ob[3] += e3
                            ob[4] += e4
                    elif kw == 3:  # 3 taps x 4 channels: 12 sums from 7 loads
                        r1, r2 = r[s1:], r[s2:]
                        g0, g1, g2, g3 = gt[o, y], gt[o + 1, y], gt[o + 2, y], gt[o + 3, y]
                        u0 = u1 = u2 = e0 = e1 = e2 = f0 = f1 = f2 = t0 = t1 = t2 = zero
                        for p in range(span):
                            x0, x1, x2 = r[p], r1[p], r2[p]
                            d0, d1, d2, d3 = g0[p], g1[p], g2[p], g3[p]
                            u0 += d0 * x0
                            u1 += d0 * x1
                            u2 += d0 * x2
                            e0 += d1 * x0
                            e1 += d1 * x1
                            e2 += d1 * x2
                            f0 += d2 * x0
                            f1 += d2 * x1
                            f2 += d2 * x2
                            t0 += d3 * x0
                            t1 += d3 * x1
                            t2 += d3 * x2
                        oa, ob, oc, od = out[o, c, a], out[o + 1, c, a], out[o + 2, c, a], out[o + 3, c, a]
                        oa[0] += u0
                        oa[1] += u1
                        oa[2] += u2
                        ob[0] += e0
                        ob[1] += e1
                        ob[2] += e2
                        oc[0] += f0
                        oc[1] += f1
                        oc[2] += f2
                        od[0] += t0
                        od[1] += t1
                        od[2] += t2
                    else:
                        g0, g1, g2, g3 = gt[o, y], gt[o + 1, y], gt[o + 2, y], gt[o + 3, y]
                        for bb in range(kw):
                            rb = r[bb * s1:]
                            u0 = e0 = f0 = t0 = zero
                            for p in range(span):
                                xv = rb[p]
                                u0 += g0[p] * xv
                                e0 += g1[p] * xv
                                f0 += g2[p] * xv
                                t0 += g3[p] * xv
                            out[o, c, a, bb] += u0
                            out[o + 1, c, a, bb] += e0
                            out[o + 2, c, a, bb] += f0
                            out[o + 3, c, a, bb] += t0


@njit(cache=True, nogil=True)
def _col2im(cols, sh, sw, ph, dh, dw, out):  # pragma: no cover - compiled
    """``out (C, H, Wp, V)`` += the columns ``cols (C, kh, kw, OH, OW * V)``: tap (a, b) of output
    position (y, q) lands on row ``y * sh - ph + a * dh`` (skipped outside), column
    ``q * sw + b * dw``; at stride 1 a whole output row is one contiguous add."""
    c_, kh, kw, oh, span = cols.shape
    h, v = out.shape[1], out.shape[3]
    ow = span // v
    for c in range(c_):
        for a in range(kh):
            for y in range(oh):
                iy = y * sh - ph + a * dh
                if iy < 0 or iy >= h:
                    continue
                row = out[c, iy].reshape(-1)
                for b in range(kw):
                    src = cols[c, a, b, y]
                    if sw == 1:
                        dst = row[b * dw * v:]
                        for p in range(span):
                            dst[p] += src[p]
                        continue
                    for q in range(ow):
                        dst = row[(q * sw + b * dw) * v:]
                        sq = src[q * v:]
                        for p in range(v):
                            dst[p] += sq[p]


def _lanes(n, per_lane_bytes, itemsize):
    """Samples per block: a multiple of the vector width (64 bytes of lanes), about
    ``BLOCK_BYTES`` of batch-innermost input (or output gradient), blocks of near-equal size (few
    spare lanes)."""
    step = 64 // itemsize
    fit = max(step, BLOCK_BYTES // max(per_lane_bytes, 1) // step * step)
    blocks = -(-n // fit)
    return -(-(-(-n // blocks)) // step) * step


def _batch_inner(x, n0, v, pw, o_pad=0):
    """``x[n0:n0+v] (nb, C, H, W)`` as ``(C + o_pad, H, W + 2 pw, v)``: zero horizontal padding,
    zero spare lanes (and ``o_pad`` zero channels)."""
    n, c, h, w = x.shape
    nb = min(v, n - n0)
    xt = np.empty((c + o_pad, h, w + 2 * pw, v), x.dtype)
    if pw or nb < v or o_pad:
        xt.fill(0)
    xt[:c, :, pw:pw + w, :nb] = x[n0:n0 + nb].transpose(1, 2, 3, 0)
    return xt


def _pad4(w):
    extra = -w.shape[0] % 4
    return np.concatenate([w, np.zeros((extra,) + w.shape[1:], w.dtype)]) if extra else w


def forward(x, w, b, padding, dilation, out=None):
    """Stride-1 correlation of ``x (N, C, H, W)`` with ``w (O, C, kh, kw)`` (+ ``b (O,)``) ->
    ``(N, O, OH, OW)``, into ``out`` when given; None for a non-finite weight (the caller takes
    im2col)."""
    if not np.isfinite(w).all():
        return None
    x = np.ascontiguousarray(x)
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh = h + 2 * padding[0] - dilation[0] * (kh - 1)
    ow = wd + 2 * padding[1] - dilation[1] * (kw - 1)
    res = out if out is not None else np.empty((n, o, oh, ow), x.dtype)
    wp = wd + 2 * padding[1]
    v = _lanes(n, max(c * h * wp, o * oh * ow) * x.itemsize, x.itemsize)
    w4 = np.ascontiguousarray(_pad4(w), x.dtype)
    bias = np.ascontiguousarray(b, x.dtype) if b is not None else np.empty(0, x.dtype)
    acc = np.empty((4, max(1, min(ow, ACC_BYTES // (4 * v * x.itemsize))) * v), x.dtype)
    ot = np.empty((o, oh, ow * v), x.dtype)
    for n0 in range(0, n, v):
        nb = min(v, n - n0)
        _forward(_batch_inner(x, n0, v, padding[1]), w4, bias, padding[0], dilation[0], dilation[1],
                 acc, ot)
        res[n0:n0 + nb] = ot.reshape(o, oh, ow, v)[..., :nb].transpose(3, 0, 1, 2)
    return res


def transpose(g, w, stride, padding, dilation, size, out=None):
    """Input gradient of a conv (the transposed conv): ``g (N, O, OH, OW)``, ``w (O, C, kh, kw)``
    -> ``(N, C, *size)`` (into ``out`` when given): per block one GEMM ``w^T (C*kh*kw, O) @ g (O,
    OH*OW*V)`` gives every tap's contribution, which ``_col2im`` adds back (at stride 1 measured
    faster than the flipped-kernel correlation, which multiplies the padding zeros too; strided,
    faster than a col2im on sample-major columns, whose adds do not vectorise)."""
    g = np.ascontiguousarray(g)
    n, o, oh, ow = g.shape
    c, kh, kw = w.shape[1:]
    h, wd = size
    pw = padding[1]
    it = g.itemsize
    v = _lanes(n, max(c * kh * kw * oh * ow, o * oh * ow, c * h * (wd + 2 * pw)) * it, it)
    res = out if out is not None else np.empty((n, c, h, wd), g.dtype)
    wt = np.ascontiguousarray(w.reshape(o, -1).T, g.dtype)
    cols = np.empty((c * kh * kw, oh * ow * v), g.dtype)
    xt = np.empty((c, h, wd + 2 * pw, v), g.dtype)
    for n0 in range(0, n, v):
        nb = min(v, n - n0)
        np.matmul(wt, _batch_inner(g, n0, v, 0).reshape(o, -1), out=cols)
        xt.fill(0)
        _col2im(cols.reshape(c, kh, kw, oh, ow * v), stride[0], stride[1], padding[0], dilation[0],
                dilation[1], xt)
        res[n0:n0 + nb] = xt[:, :, pw:pw + wd, :nb].transpose(3, 0, 1, 2)
    return res


def weight_grad(x, g, weight_size, padding, dilation):
    """Weight gradient ``weight_size`` of the stride-1 correlation of ``x (N, C, H, W)`` given the
    output gradient ``g (N, O, OH, OW)``; None for a non-finite ``g`` with padding (the caller
    takes im2col)."""
    if any(padding) and not np.isfinite(g).all():
        return None
    x = np.ascontiguousarray(x)
    g = np.ascontiguousarray(g, x.dtype)
    n, c, h, wd = x.shape
    o, oh, ow = g.shape[1], g.shape[2], g.shape[3]
    wp = wd + 2 * padding[1]
    o4 = -(-o // 4) * 4
    v = _lanes(n, max(c * h * wp, o4 * oh * ow) * x.itemsize, x.itemsize)
    out = np.zeros((o4,) + tuple(weight_size[1:]), np.float64)
    for n0 in range(0, n, v):
        gt = _batch_inner(g, n0, v, 0, o4 - o).reshape(o4, oh, ow * v)
        _weight(_batch_inner(x, n0, v, padding[1]), gt, padding[0], dilation[0], dilation[1],
                x.dtype.type(0), out)
    return out[:o].astype(x.dtype)
