"""Numba int8 kernels for dynamic quantized Linear/RNN at small batch (layer L4, imported lazily).

At batch 1 a float Linear is a matrix-vector product bound by reading the float32 weight; the same
product on the int8 weight reads a quarter of the bytes. ``dynamic_linear`` does the whole dynamic
step in one compiled call: the activation's range, torch's dynamic (scale, zero point) rule, the
quantization to quint8 (one rounding of ``a * (1/scale) + zp`` to float32, then half-to-even), the
exact accumulation ``sum_k (x_q - zp) * w_q`` and the float epilogue
``acc * (x_scale * w_scale) + bias`` (float64, then float32), optionally followed by relu.
It computes the same numbers as the BLAS path in ``kernels.py`` (both accumulate exactly).

Compiled code is cached on disk next to this module (``cache=True``).

Example (shapes): a (N, K) float32, w (M, K) int8, out (N, M) float32.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["dynamic_linear"]


@njit(cache=True, nogil=True)
def _choose_qparams(mn, mx, qmax):  # pragma: no cover - compiled
    """Torch's dynamic rule on [min(mn, 0), max(mx, 0)] -> [0, qmax] (see qparams.py)."""
    mn = min(np.float64(np.float32(mn)), 0.0)
    mx = max(np.float64(np.float32(mx)), 0.0)
    scale = (mx - mn) / qmax
    s32 = np.float32(scale)
    if s32 == 0 or np.isinf(np.float32(1.0) / s32):
        scale = 0.1
    zp_from_min = -mn / scale
    zp_from_max = qmax - mx / scale
    err_min = abs(mn / scale)
    err_max = qmax + abs(mx / scale)
    initial = zp_from_min if err_min < err_max else zp_from_max
    if initial < 0:
        zp = 0
    elif initial > qmax:
        zp = qmax
    else:
        zp = int(np.rint(initial))
    return scale, zp


@njit(cache=True, nogil=True)
def dynamic_linear(a, w, wscale, bias, has_bias, relu, qmax, out):  # pragma: no cover - compiled
    """``out (N, M) = dequant(quant(a) @ w.T) * scales + bias``; returns the activation scale.

    a (N, K) float32 C-contiguous; w (M, K) int8 holding ``w_q - w_zp``; wscale (M,) float64;
    bias (M,) float64 (ignored unless ``has_bias``); qmax 127 (reduced range) or 255.
    """
    n, k = a.shape
    m = w.shape[0]
    mn = np.inf
    mx = -np.inf
    for i in range(n):
        for j in range(k):
            v = a[i, j]
            if v < mn:
                mn = v
            if v > mx:
                mx = v
    if n * k == 0:
        mn = 0.0
        mx = 0.0
    scale, zp = _choose_qparams(mn, mx, qmax)
    inv = np.float64(np.float32(1.0) / np.float32(scale))
    q = np.empty((n, k), np.int16)
    for i in range(n):
        for j in range(k):
            v = np.rint(np.float32(np.float64(a[i, j]) * inv + zp))
            if v < 0:
                v = 0
            elif v > 255:
                v = 255
            q[i, j] = np.int16(v) - zp
    acc = np.empty((n, m), np.int32)
    for r in range(m):  # weight row outer: each row is read from memory once for all n rows
        for i in range(n):
            # int32 products and sums vectorise (kept apart from the float epilogue, which would
            # stop LLVM from vectorising) and are exact for k < 33000
            t = np.int32(0)
            for j in range(k):
                t += np.int32(q[i, j]) * np.int32(w[r, j])
            acc[i, r] = t
    for i in range(n):
        for r in range(m):
            v = np.float64(acc[i, r]) * (scale * wscale[r])
            if has_bias:
                v += bias[r]
            if relu and v < 0:
                v = 0.0
            out[i, r] = np.float32(v)
    return scale


@njit(cache=True, nogil=True)
def quantize_per_tensor(a, inv, zp, lo, hi, out):  # pragma: no cover - compiled
    """``out = clip(rint(float32(a * inv + zp)), lo, hi)`` over flat arrays in one pass: the float64
    product and sum rounded once to float32, then half-to-even, exactly as the NumPy path."""
    for i in range(a.size):
        v = np.rint(np.float32(np.float64(a[i]) * inv + zp))
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        out[i] = v
