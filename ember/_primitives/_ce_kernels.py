"""Numba loops for log_softmax / cross_entropy on small ``(N, C)`` inputs (layer L1).

Classifier heads are small: NumPy's row reductions cost microseconds each there, one loop per row
costs less. ``exp`` here is the scalar libm one (slower than NumPy's SIMD exp per element), so
``nn_ops`` calls these only up to ``nn_ops.ROWS_NUMBA_MAX`` elements. Imported lazily (a module of
its own: few functions to set up on first use); compiled code is cached on disk. NaN propagates
through the max; no fastmath (the bits must not depend on contraction).

Example:
    >>> import numpy as np
    >>> out = np.empty((1, 2))
    >>> log_softmax_rows(np.zeros((1, 2)), out)
    >>> out.round(4).tolist()
    [[-0.6931, -0.6931]]
"""
from __future__ import annotations

import math

from numba import njit

__all__ = ["log_softmax_rows", "cross_entropy_rows", "cross_entropy_grad_rows"]


@njit(cache=True, nogil=True)
def log_softmax_rows(x, out):  # pragma: no cover - compiled
    """Per row of ``x (m, n)``: ``x - max - log(sum(exp(x - max)))`` into ``out``, the sum in
    float64."""
    m, n = x.shape
    for i in range(m):
        mx = x[i, 0]
        for j in range(1, n):
            v = x[i, j]
            if v > mx or v != v:
                mx = v
        s = 0.0
        for j in range(n):
            s += math.exp(x[i, j] - mx)
        lse = math.log(s)
        for j in range(n):
            out[i, j] = (x[i, j] - mx) - lse


@njit(cache=True, nogil=True)
def cross_entropy_rows(x, t, out, picked):  # pragma: no cover - compiled
    """``log_softmax_rows(x, out)`` and ``picked[i] = out[i, t[i]]``; returns the first row whose
    target lies outside ``[0, n)`` (then ``picked`` is incomplete), else -1."""
    log_softmax_rows(x, out)
    n = x.shape[1]
    for i in range(x.shape[0]):
        ti = t[i]
        if ti < 0 or ti >= n:
            return i
        picked[i] = out[i, ti]
    return -1


@njit(cache=True, nogil=True)
def cross_entropy_grad_rows(p, t, k):  # pragma: no cover - compiled
    """``p (m, n)`` holds ``exp(logp)``: ``p[i] *= k[i]`` then ``p[i, t[i]] -= k[i]`` in place (the
    same float operations, in the same order, as NumPy's ``p *= k; p[rows, t] -= k``). Returns the
    first row whose target lies outside ``[0, n)`` (nothing written from there on), else -1."""
    m, n = p.shape
    for i in range(m):
        ti = t[i]
        if ti < 0 or ti >= n:
            return i
        ki = k[i]
        for j in range(n):
            p[i, j] = p[i, j] * ki
        p[i, ti] = p[i, ti] - ki
    return -1
