"""Op-database entries for ``torch.special`` (and torch's top-level ``i0``/``igamma``/``igammac``),
plus ``stft``/``istft`` and the window functions. Inputs stay inside each function's domain, away from
poles; ops torch does not differentiate (Bessel J/Y/K, zeta in its first argument) compare values only.
"""
from __future__ import annotations

import numpy as np

from ._core import FLOAT, INT, OpInfo, Sample, arr, noncontig


def _sp(name):
    def f(lib, *args, **kw):
        return getattr(lib.special, name)(*args, **kw)
    return f


def _un(lo, hi):
    def samples(dt):
        out = [Sample((arr((3, 4), dt, lo, hi),)), Sample((noncontig(arr((2, 3), dt, lo, hi)),), name="noncontig"),
               Sample((arr((), dt, lo, hi),), name="0-d")]
        if dt in INT:
            out = out[:1]
        return out
    return samples


def _bin(lo1, hi1, lo2, hi2):
    def samples(dt):
        return [Sample((arr((3, 4), dt, lo1, hi1), arr((3, 4), dt, lo2, hi2))),
                Sample((arr((3, 1), dt, lo1, hi1), arr((4,), dt, lo2, hi2)), name="broadcast")]
    return samples


# name, (low, high), differentiable
UNARY = [("i0", (-3, 3), True), ("i0e", (-3, 3), True), ("i1", (-3, 3), True), ("i1e", (-3, 3), True),
         ("ndtr", (-3, 3), True), ("ndtri", (0.05, 0.95), True), ("log_ndtr", (-3, 3), True),
         ("erfcx", (-2, 3), True), ("entr", (0.1, 3), True), ("erf", (-2, 2), True),
         ("erfc", (-2, 2), True), ("erfinv", (-0.9, 0.9), True), ("expit", (-3, 3), True),
         ("logit", (0.1, 0.9), True), ("exp2", (-2, 2), True), ("expm1", (-2, 2), True),
         ("log1p", (-0.5, 2), True), ("sinc", (-3, 3), True), ("gammaln", (0.5, 4), True),
         ("digamma", (0.5, 4), True), ("psi", (0.5, 4), True), ("round", (-3, 3), False),
         ("bessel_j0", (-5, 5), False), ("bessel_j1", (-5, 5), False), ("bessel_y0", (0.5, 5), False),
         ("bessel_y1", (0.5, 5), False), ("modified_bessel_i0", (-3, 3), False),
         ("modified_bessel_i1", (-3, 3), False), ("modified_bessel_k0", (0.5, 3), False),
         ("modified_bessel_k1", (0.5, 3), False), ("scaled_modified_bessel_k0", (0.5, 3), False),
         ("scaled_modified_bessel_k1", (0.5, 3), False), ("spherical_bessel_j0", (-4, 4), False),
         ("airy_ai", (-3, 3), False)]


def _unary_ops():
    ops = []
    for name, (lo, hi), diff in UNARY:
        ops.append(OpInfo(f"special.{name}", _sp(name), _un(lo, hi), dtypes=FLOAT, grad=diff,
                          atol=1e-5, rtol=1e-5))
    return ops


def _softmax(name):
    def f(lib, x, dim, **kw):
        return getattr(lib.special, name)(x, dim, **kw)
    return f


OPS = _unary_ops() + [
    OpInfo("special.i0_int", _sp("i0"), _un(-3, 3), dtypes=INT, grad=False),
    OpInfo("i0", lambda lib, x: lib.i0(x), _un(-3, 3), dtypes=FLOAT, inplace=lambda lib, x: x.i0_()),
    OpInfo("special.zeta", _sp("zeta"), _bin(1.5, 4, 0.5, 3), dtypes=FLOAT, atol=1e-5, rtol=1e-5,
           grad=False, notes="torch differentiates only w.r.t. other: see special.zeta_other"),
    OpInfo("special.zeta_other", lambda lib, q: lib.special.zeta(2.5, q), _un(0.5, 3), dtypes=FLOAT,
           atol=1e-5, rtol=1e-5),
    OpInfo("special.gammainc_x", lambda lib, x: lib.special.gammainc(lib.tensor(2.5, dtype=x.dtype), x),
           _un(0.2, 4), dtypes=FLOAT, atol=1e-5, rtol=1e-5),
    OpInfo("special.gammaincc_x", lambda lib, x: lib.special.gammaincc(lib.tensor(1.5, dtype=x.dtype), x),
           _un(0.2, 4), dtypes=FLOAT, atol=1e-5, rtol=1e-5),
    OpInfo("special.gammainc", _sp("gammainc"), _bin(0.5, 4, 0.2, 4), dtypes=FLOAT, grad=False),
    OpInfo("igammac", lambda lib, a, x: lib.igammac(a, x), _bin(0.5, 4, 0.2, 4), dtypes=FLOAT, grad=False),
    OpInfo("special.xlogy", _sp("xlogy"), _bin(-2, 2, 0.1, 3), dtypes=FLOAT),
    OpInfo("special.xlog1py", _sp("xlog1py"), _bin(-2, 2, -0.5, 3), dtypes=FLOAT),
    OpInfo("special.multigammaln", lambda lib, x, p: lib.special.multigammaln(x, p),
           lambda dt: [Sample((arr((3, 4), dt, 2, 5), 1)), Sample((arr((3,), dt, 2, 5), 3), name="p=3")],
           dtypes=FLOAT),
    OpInfo("special.polygamma", lambda lib, x, n: lib.special.polygamma(n, x),
           lambda dt: [Sample((arr((3, 4), dt, 0.5, 4), n), name=f"n={n}") for n in (0, 1, 3)],
           dtypes=FLOAT, atol=1e-4, rtol=1e-4),
    OpInfo("special.logsumexp", lambda lib, x, dim, **k: lib.special.logsumexp(x, dim, **k),
           lambda dt: [Sample((arr((3, 4), dt), 1)), Sample((arr((2, 3, 4), dt), (0, 2)), dict(keepdim=True))],
           dtypes=FLOAT),
    OpInfo("special.softmax", _softmax("softmax"),
           lambda dt: [Sample((arr((3, 4), dt), 1)), Sample((noncontig(arr((3, 4), dt)), 0))], dtypes=FLOAT),
    OpInfo("special.log_softmax", _softmax("log_softmax"),
           lambda dt: [Sample((arr((3, 4), dt), 1)), Sample((arr((3, 4), dt), 0), dict(dtype=None))],
           dtypes=FLOAT),
]

# orthogonal polynomials (issue 22): x in and beyond [-1, 1] (or [0, 1] shifted), n a tensor or a
# number; torch differentiates none of them
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]


def _poly_samples(dt):
    return [Sample((arr((3, 4), dt, -1.2, 1.2), arr((3, 4), "int64", -1, 9)), name="tensor n"),
            Sample((arr((3, 1), dt, -1, 1), arr((4,), "int64", 0, 12)), name="broadcast"),
            Sample((noncontig(arr((2, 3), dt, -1, 1)), 5), name="scalar n"),
            Sample((arr((), dt, -0.9, 0.9), 11), name="0-d, trig form")]


OPS += [OpInfo(f"special.{name}", _sp(name), _poly_samples, dtypes=FLOAT, grad=False, rtol=1e-5)
        for name in POLYNOMIALS]
