"""Numba loops for nn primitives whose NumPy form needs many passes over memory (layer L1).

Imported lazily by ``nn_ops`` kernels (Numba is a runtime dependency, but ``import ember`` must not
pay for it). Every loop takes C-contiguous float32/float64 arrays and accumulates row sums in float64;
compiled code is cached on disk (``cache=True``) so only the first run in a fresh checkout compiles.
Only reassociation (vectorised sums) and fused multiply-add are allowed: NaN and inf must propagate.
"""
from __future__ import annotations

import math

from numba import njit

__all__ = ["layer_norm_forward", "layer_norm_backward", "index_add_rows"]


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
