"""Winograd F(2x2, 3x3) for stride-1, undilated 3x3 convolutions (layer L1, Numba loops).

A 2x2 output tile of a 3x3 correlation is ``A^T [(G w G^T) * (B^T d B)] A`` with ``d`` the 4x4 input
tile (read every 2 positions) and ``*`` elementwise: 16 products per tile and channel pair instead of
36. Summed over input channels, each of the 16 tile positions ``xi`` is one GEMM
``U[xi] (O, C) @ V[xi] (C, tiles)``, so the GEMM work is 16/36 of im2col's. The weight gradient is
the adjoint: ``G^T [sum over tiles (A dY A^T) * (B^T d B)] G``, again 16 GEMMs, over tiles.

The transform matrices hold only 0, +-1 and +-1/2 (points 0, 1, -1), so rounding stays within a few
ulps of a direct sum. A non-finite input would spread nan through a tile where a direct sum keeps
inf or touches nothing; the loops report non-finite values and the caller then takes im2col.

Imported lazily (Numba is a runtime dependency that ``import ember`` does not pay for); every loop
takes float32/float64 arrays and is cached on disk.

Example:
    >>> import numpy as np
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4); w = np.ones((1, 1, 3, 3), np.float32)
    >>> forward(x, w, None, (0, 0)).tolist()
    [[[[45.0, 54.0], [81.0, 90.0]]]]
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ._nn_kernels import _pad_plane_finite

__all__ = ["forward", "weight_grad", "fits"]

_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])


def fits(x_shape, w_shape, stride, padding, dilation) -> bool:
    """A 2-d 3x3 convolution Winograd computes: stride 1, dilation 1, padding at most 2."""
    return (len(w_shape) == 4 and tuple(w_shape[2:]) == (3, 3) and tuple(stride) == (1, 1)
            and tuple(dilation) == (1, 1) and max(padding) <= 2)


# Each loop below writes one output stream from a few input streams at unit stride (loop fission),
# so LLVM vectorises it: a tile's 4x4 inputs are first split into even and odd columns.
# ------------------------------------------------------------------ input tiles: V = B^T d B
@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _input_tiles(x, n0, n1, ph, pw, th, tw, buf, ev, od, v):  # pragma: no cover - compiled
    """``v[xi, c, (n - n0) * th * tw + tile]`` for samples n0..n1 of ``x (N, C, H, W)``; ``buf`` is a
    zeroed (2 th + 2, 2 tw + 2) plane whose border stays zero, ``ev``/``od`` are (4, th, tw + 1)
    scratch. Returns False on a non-finite input."""
    t_per = th * tw
    ok = True
    flat, wp = buf.reshape(buf.size), buf.shape[1]
    for n in range(n0, n1):
        for c in range(x.shape[1]):
            if not _pad_plane_finite(x[n, c], flat, ph * wp + pw, wp):
                ok = False
            # rows of B^T d: (d0 - d2, d1 + d2, d2 - d1, d1 - d3), split into even/odd columns
            for ty in range(th):
                r0 = buf[2 * ty]
                r1 = buf[2 * ty + 1]
                r2 = buf[2 * ty + 2]
                r3 = buf[2 * ty + 3]
                for q in range(2):
                    dst = ev if q == 0 else od
                    e0 = dst[0, ty]
                    e1 = dst[1, ty]
                    e2 = dst[2, ty]
                    e3 = dst[3, ty]
                    for k in range(tw + 1):
                        j = 2 * k + q
                        e0[k] = r0[j] - r2[j]
                        e1[k] = r1[j] + r2[j]
                        e2[k] = r2[j] - r1[j]
                        e3[k] = r1[j] - r3[j]
            # columns: (a0 - a2, a1 + a2, a2 - a1, a1 - a3) with a0, a1, a2, a3 = ev[k], od[k],
            # ev[k + 1], od[k + 1]
            base = (n - n0) * t_per
            for i in range(4):
                for ty in range(th):
                    e = ev[i, ty]
                    f = od[i, ty]
                    t0 = base + ty * tw
                    v0 = v[4 * i, c, t0:t0 + tw]
                    v1 = v[4 * i + 1, c, t0:t0 + tw]
                    v2 = v[4 * i + 2, c, t0:t0 + tw]
                    v3 = v[4 * i + 3, c, t0:t0 + tw]
                    for k in range(tw):
                        v0[k] = e[k] - e[k + 1]
                    for k in range(tw):
                        v1[k] = f[k] + e[k + 1]
                    for k in range(tw):
                        v2[k] = e[k + 1] - f[k]
                    for k in range(tw):
                        v3[k] = f[k] - f[k + 1]
    return ok


# ------------------------------------------------------------------ output tiles: Y = A^T M A
@njit(cache=True, nogil=True)
def _output_tiles(m, b, n0, n1, th, tw, sq, out):  # pragma: no cover - compiled
    """``out[n, o]`` (OH, OW) for samples n0..n1 from ``m[xi, o, tile]`` plus ``b[o]`` (``b`` may
    be empty); ``sq`` is (8, tw) scratch."""
    oh, ow = out.shape[2], out.shape[3]
    t_per = th * tw
    full_w = ow // 2
    for n in range(n0, n1):
        for o in range(out.shape[1]):
            bias = b[o] if b.shape[0] else 0.0
            plane = out[n, o]
            for ty in range(th):
                t0 = (n - n0) * t_per + ty * tw
                # rows of A^T m: (m0 + m1 + m2, m1 - m2 - m3), per column k of the tile
                for k in range(4):
                    s = sq[k]
                    q = sq[4 + k]
                    a0 = m[k, o, t0:t0 + tw]
                    a1 = m[4 + k, o, t0:t0 + tw]
                    a2 = m[8 + k, o, t0:t0 + tw]
                    a3 = m[12 + k, o, t0:t0 + tw]
                    for i in range(tw):
                        s[i] = a0[i] + a1[i] + a2[i]
                    for i in range(tw):
                        q[i] = a1[i] - a2[i] - a3[i]
                y = 2 * ty
                for r in range(2):
                    if y + r >= oh:
                        break
                    row = plane[y + r]
                    c0 = sq[4 * r]
                    c1 = sq[4 * r + 1]
                    c2 = sq[4 * r + 2]
                    c3 = sq[4 * r + 3]
                    for i in range(full_w):
                        row[2 * i] = c0[i] + c1[i] + c2[i] + bias
                        row[2 * i + 1] = c1[i] - c2[i] - c3[i] + bias
                    if ow % 2:
                        i = tw - 1
                        row[2 * i] = c0[i] + c1[i] + c2[i] + bias


# ------------------------------------------------------------------ output-gradient tiles: Z = A dY A^T
@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _grad_tiles(g, n0, n1, th, tw, buf, ev, od, z):  # pragma: no cover - compiled
    """``z[xi, o, tile]`` from the output gradient ``g (N, O, OH, OW)`` (zero beyond its edge);
    ``buf`` is a zeroed (2 th, 2 tw) plane, ``ev``/``od`` (2, th, tw) scratch. Returns False on a
    non-finite gradient."""
    t_per = th * tw
    ok = True
    flat, wp = buf.reshape(buf.size), buf.shape[1]
    for n in range(n0, n1):
        for o in range(g.shape[1]):
            if not _pad_plane_finite(g[n, o], flat, 0, wp):
                ok = False
            # rows of A e: (e0, e0 + e1, e0 - e1, -e1); e0 itself is read straight from buf
            for ty in range(th):
                r0 = buf[2 * ty]
                r1 = buf[2 * ty + 1]
                for q in range(2):
                    dst = ev if q == 0 else od
                    e1 = dst[0, ty]
                    e2 = dst[1, ty]
                    for k in range(tw):
                        j = 2 * k + q
                        e1[k] = r0[j] + r1[j]
                        e2[k] = r0[j] - r1[j]
            base = (n - n0) * t_per
            for i in range(4):
                for ty in range(th):
                    t0 = base + ty * tw
                    z0 = z[4 * i, o, t0:t0 + tw]
                    z1 = z[4 * i + 1, o, t0:t0 + tw]
                    z2 = z[4 * i + 2, o, t0:t0 + tw]
                    z3 = z[4 * i + 3, o, t0:t0 + tw]
                    sign = 1.0
                    if i == 0:
                        r = buf[2 * ty]
                        for k in range(tw):
                            z0[k] = r[2 * k]
                            z1[k] = r[2 * k] + r[2 * k + 1]
                            z2[k] = r[2 * k] - r[2 * k + 1]
                            z3[k] = -r[2 * k + 1]
                        continue
                    if i == 3:
                        sign = -1.0
                        r = buf[2 * ty + 1]
                        for k in range(tw):
                            z0[k] = -r[2 * k]
                            z1[k] = -(r[2 * k] + r[2 * k + 1])
                            z2[k] = r[2 * k + 1] - r[2 * k]
                            z3[k] = r[2 * k + 1]
                        continue
                    e = ev[i - 1, ty]
                    f = od[i - 1, ty]
                    for k in range(tw):
                        z0[k] = e[k]
                    for k in range(tw):
                        z1[k] = e[k] + f[k]
                    for k in range(tw):
                        z2[k] = e[k] - f[k]
                    for k in range(tw):
                        z3[k] = -f[k]
    return ok


def _filter_tiles(w):
    """``U[xi] = (G w G^T)[xi]`` as (16, O, C) for ``w (O, C, 3, 3)``: two plain GEMMs."""
    o, c = w.shape[:2]
    t = (w.reshape(o * c * 3, 3) @ _G.T).reshape(o * c, 3, 4)  # w G^T
    u = _G @ t.transpose(1, 0, 2).reshape(3, o * c * 4)  # G (w G^T): (4, OC * 4)
    return np.ascontiguousarray(u.reshape(4, o * c, 4).transpose(0, 2, 1)).reshape(16, o, c)


def _filter_adjoint(p):
    """``G^T P G`` per (o, c) for ``p (16, O, C)`` -> (O, C, 3, 3): the adjoint of ``_filter_tiles``."""
    _, o, c = p.shape
    t = (_G.T @ p.reshape(4, 4 * o * c)).reshape(3, 4, o * c)  # G^T P: (3, 4, OC)
    r = _G.T @ t.transpose(1, 0, 2).reshape(4, 3 * o * c)  # (3 [b], 3 [a] * OC)
    return np.ascontiguousarray(r.reshape(3, 3, o, c).transpose(2, 3, 1, 0))


def _tiles(out_size):
    return (out_size[0] + 1) // 2, (out_size[1] + 1) // 2


def _samples_per_block(per_sample: int, n: int, block_bytes: int) -> int:
    return max(1, min(n, block_bytes // max(per_sample, 1)))


def _c(a):
    return np.ascontiguousarray(a)


def forward(x, w, b, padding, block_bytes=1 << 22, out=None):
    """3x3 correlation of ``x (N, C, H, W)`` with ``w (O, C, 3, 3)`` (+ ``b (O,)``) at stride 1 and
    ``padding`` -> ``(N, O, OH, OW)`` (into ``out`` when given); None when an input is not finite
    (the caller falls back to a direct method)."""
    x = _c(x)
    n, c, h, wd = x.shape
    o = w.shape[0]
    ph, pw = padding
    oh, ow = h + 2 * ph - 2, wd + 2 * pw - 2
    th, tw = _tiles((oh, ow))
    dt = x.dtype
    wf = w.astype(np.float64)
    if not np.isfinite(wf).all():
        return None
    u = _filter_tiles(wf).astype(dt)
    res = out if out is not None and out.flags.c_contiguous else np.empty((n, o, oh, ow), dt)
    bias = _c(b.astype(dt)) if b is not None else np.empty(0, dt)
    buf = np.zeros((2 * th + 2, 2 * tw + 2), dt)
    ev, od = np.empty((4, th, tw + 1), dt), np.empty((4, th, tw + 1), dt)
    sq = np.empty((8, tw), dt)
    nb = _samples_per_block(16 * (c + o) * th * tw * x.itemsize, n, block_bytes)
    for n0 in range(0, n, nb):
        n1 = min(n, n0 + nb)
        v = np.empty((16, c, (n1 - n0) * th * tw), dt)
        if not _input_tiles(x, n0, n1, ph, pw, th, tw, buf, ev, od, v):
            return None
        _output_tiles(np.matmul(u, v), bias, n0, n1, th, tw, sq, res)
    if out is not None and res is not out:  # a channel slice of a grouped conv's output
        out[...] = res
    return res


def weight_grad(x, g, padding, block_bytes=1 << 22):
    """Weight gradient ``(O, C, 3, 3)`` of the 3x3 stride-1 correlation of ``x (N, C, H, W)`` given
    the output gradient ``g (N, O, OH, OW)``; None when an input is not finite."""
    x, g = _c(x), _c(g)
    n, c = x.shape[:2]
    o = g.shape[1]
    ph, pw = padding
    th, tw = _tiles(g.shape[2:])
    dt = x.dtype
    buf = np.zeros((2 * th + 2, 2 * tw + 2), dt)
    ev, od = np.empty((4, th, tw + 1), dt), np.empty((4, th, tw + 1), dt)
    gbuf = np.zeros((2 * th, 2 * tw), dt)
    nb = _samples_per_block(16 * (c + o) * th * tw * x.itemsize, n, block_bytes)
    p = None
    for n0 in range(0, n, nb):
        n1 = min(n, n0 + nb)
        v = np.empty((16, c, (n1 - n0) * th * tw), dt)
        z = np.empty((16, o, (n1 - n0) * th * tw), dt)
        if not _input_tiles(x, n0, n1, ph, pw, th, tw, buf, ev, od, v):
            return None
        if not _grad_tiles(g, n0, n1, th, tw, gbuf, ev, od, z):
            return None
        part = np.matmul(z, v.transpose(0, 2, 1))  # (16, O, C)
        p = part if p is None else np.add(p, part, out=p)
    return _filter_adjoint(p.astype(np.float64)).astype(dt)
