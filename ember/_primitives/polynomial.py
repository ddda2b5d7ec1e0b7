"""Classical orthogonal polynomials of ``torch.special`` (layer L1): Chebyshev T/U/V/W and their
shifted forms, Hermite H/He, Laguerre L and Legendre P, as pointwise primitives ``op(x, n)``.

``n`` is truncated to an integer; ``n < 0`` gives 0. Values come from the three-term recurrence in
the computation dtype, each multiply-subtract rounded once as torch's fused multiply-add (float32
results agree bit for bit); like torch, Chebyshev polynomials use the closed trigonometric forms for
``|x| < 1`` once ``n`` exceeds a per-kind threshold (``_TRIG_FROM``, measured: 6 for T, 8 for U/V/W,
4 for shifted W) and exact values at ``x = +-1``. torch differentiates none of them (its
outputs never require grad), so no derivative is registered.
"""
from __future__ import annotations

import numpy as np

from ._registry import primitive

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p", "POLYNOMIALS"]

# Chebyshev: torch's closed forms for |x| < 1 once n exceeds this, per (kind, shifted) (measured)
_TRIG_FROM = {("t", False): 6, ("u", False): 8, ("v", False): 8, ("w", False): 8,
              ("t", True): 6, ("u", True): 6, ("v", True): 6, ("w", True): 4}


def _operands(x, n):
    """x as a float array and n as int64, broadcast together (either may be a Python number)."""
    x = np.asarray(x)
    n = np.asarray(n)
    dt = x.dtype if x.dtype.kind == "f" else (n.dtype if n.dtype.kind == "f" else np.dtype(np.float32))
    with np.errstate(invalid="ignore"):
        ni = np.trunc(n).astype(np.int64) if n.dtype.kind == "f" else n.astype(np.int64)
    xb, nb = np.broadcast_arrays(x.astype(dt, copy=False), ni)
    return np.array(xb), np.array(nb), dt  # copies (ascontiguousarray would make 0-d 1-d)


def _recurrence(x, n, dt, first, step, pick=None):
    """p_0 = 1, p_1 = first(x), p_{k+1} = step(k, x, p_k, p_{k-1}); entry i gets p_{n_i}.

    ``pick`` (boolean array) limits the recurrence to some entries; the others stay 0."""
    out = np.zeros(x.shape, dtype=dt)
    todo = (n >= 0) if pick is None else (pick & (n >= 0))
    out[todo & (n == 0)] = 1
    sel = todo & (n >= 1)
    if not sel.any():
        return out
    xs, ns = x[sel], n[sel]
    prev, cur = np.ones_like(xs), first(xs).astype(dt, copy=False)
    res = np.where(ns == 1, cur, 0).astype(dt)
    for k in range(1, int(ns.max())):
        prev, cur = cur, step(k, xs, cur, prev).astype(dt, copy=False)
        hit = ns == k + 1
        if hit.any():
            res[hit] = cur[hit]
    out[sel] = res
    return out


def _fms(a, b, c):
    """``a * b - c`` rounded once, as torch's fused multiply-add does: float32 operands are exact
    products in float64 (48 bits) and round once to float32; float64 ones round twice."""
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b - c).astype(np.float32)
    return a * b - c


def _parity(n):
    return np.where(n % 2 == 0, 1, -1)


def _chebyshev(x, n, dt, kind, trig_from):
    """Chebyshev polynomials of the four kinds (``kind`` in 'tuvw'); closed forms for ``|x| < 1``
    when ``n > trig_from``."""
    first = {"t": lambda v: v, "u": lambda v: 2 * v, "v": lambda v: 2 * v - 1,
             "w": lambda v: 2 * v + 1}[kind]
    out = _recurrence(x, n, dt, first, lambda k, v, p, q: _fms(2 * v, p, q))
    ok = n >= 0
    one = ok & (x == 1)
    mone = ok & (x == -1)
    nf = n.astype(dt)
    at_one = {"t": np.ones_like(nf), "u": nf + 1, "v": np.ones_like(nf), "w": 2 * nf + 1}[kind]
    at_mone = {"t": _parity(n), "u": _parity(n) * (nf + 1), "v": _parity(n) * (2 * nf + 1),
               "w": _parity(n)}[kind]
    out[one] = at_one[one]
    out[mone] = at_mone[mone]
    trig = ok & (np.abs(x) < 1) & (n > trig_from)
    if trig.any():
        # each elementary step rounded to dt, as torch's scalar float32 code does
        th, m = _rounded(np.arccos, x[trig]), nf[trig]
        if kind == "t":
            v = _rounded(np.cos, m * th)
        elif kind == "u":
            v = _rounded(np.sin, (m + 1) * th) / _rounded(np.sin, th)
        else:
            half, mh = th / dt.type(2), m + dt.type(0.5)
            v = (_rounded(np.cos, mh * th) / _rounded(np.cos, half) if kind == "v"
                 else _rounded(np.sin, mh * th) / _rounded(np.sin, half))
        out[trig] = v
    return out


def _rounded(fn, a):
    """``fn(a)`` correctly rounded to ``a``'s dtype (float32 evaluated in float64)."""
    return fn(a.astype(np.float64)).astype(a.dtype) if a.dtype == np.float32 else fn(a)


def _kernel_chebyshev(kind, shifted):
    def kernel(x, n):
        x, n, dt = _operands(x, n)
        with np.errstate(all="ignore"):
            if shifted:
                x = (x + x - 1).astype(dt, copy=False)  # T*_n(x) = T_n(2x - 1)
            return _chebyshev(x, n, dt, kind, _TRIG_FROM[kind, shifted])
    return kernel


def _hermite_h(x, n):
    x, n, dt = _operands(x, n)
    with np.errstate(all="ignore"):
        return _recurrence(x, n, dt, lambda v: 2 * v,
                           lambda k, v, p, q: _fms(2 * v, p, (2 * k * q).astype(dt, copy=False)))


def _hermite_he(x, n):
    x, n, dt = _operands(x, n)
    with np.errstate(all="ignore"):
        return _recurrence(x, n, dt, lambda v: v,
                           lambda k, v, p, q: _fms(v, p, (k * q).astype(dt, copy=False)))


def _laguerre_l(x, n):
    x, n, dt = _operands(x, n)
    with np.errstate(all="ignore"):
        # torch's grouping: (2k + (1 - x)) * p - k * q, the multiply-subtract fused
        out = _recurrence(x, n, dt, lambda v: 1 - v,
                          lambda k, v, p, q: _fms((2 * k + (1 - v)).astype(dt, copy=False), p,
                                                  (k * q).astype(dt, copy=False)) / dt.type(k + 1))
    out[(n >= 0) & (x == 0)] = 1  # L_n(0) = 1
    return out


def _legendre_p(x, n):
    x, n, dt = _operands(x, n)
    with np.errstate(all="ignore"):
        out = _recurrence(x, n, dt, lambda v: v,
                          lambda k, v, p, q: _fms(((2 * k + 1) * v).astype(dt, copy=False), p,
                                                  (k * q).astype(dt, copy=False)) / dt.type(k + 1))
    ok = n >= 0
    out[ok & (x == 1)] = 1
    mone = ok & (x == -1)
    out[mone] = _parity(n)[mone]
    return out


def _define(name, kernel):
    kernel.__name__ = name
    return primitive(f"special_{name}", kind="pointwise", promotion="int_to_float")(kernel)


POLYNOMIALS = {}
for _k in "tuvw":
    POLYNOMIALS[f"chebyshev_polynomial_{_k}"] = _define(f"chebyshev_polynomial_{_k}",
                                                         _kernel_chebyshev(_k, False))
    POLYNOMIALS[f"shifted_chebyshev_polynomial_{_k}"] = _define(
        f"shifted_chebyshev_polynomial_{_k}", _kernel_chebyshev(_k, True))
POLYNOMIALS["hermite_polynomial_h"] = _define("hermite_polynomial_h", _hermite_h)
POLYNOMIALS["hermite_polynomial_he"] = _define("hermite_polynomial_he", _hermite_he)
POLYNOMIALS["laguerre_polynomial_l"] = _define("laguerre_polynomial_l", _laguerre_l)
POLYNOMIALS["legendre_polynomial_p"] = _define("legendre_polynomial_p", _legendre_p)
globals().update(POLYNOMIALS)
del _k
