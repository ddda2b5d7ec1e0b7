"""Distribution samplers (layer L1): ``poisson``, ``_standard_gamma`` (reparameterised, with
``_standard_gamma_grad``) and ``binomial``; each draws from the generator object it is given.

``_standard_gamma``'s derivative is torch's implicit reparameterisation ``dx/da = -(dP(a, x)/da) /
p(x; a)`` where ``P`` is the regularised lower incomplete gamma function.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from .._shape import broadcast_shapes
from ._registry import TensorMeta, primitive
from ._special import special as _sp

__all__ = ["poisson", "standard_gamma", "standard_gamma_grad", "binomial"]


def _float_only(kname, dt):
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kname}" not implemented for \'{dtype_title(dt)}\'')


def _zeros(grad):
    return grad.new_zeros(grad.shape)


@primitive("poisson", kind="random")
def poisson(rates, *, generator):
    if rates.dtype.kind != "f":
        raise TypeError("poisson")
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    # np.asarray: NumPy gives a Python int for a 0-d rate
    return np.asarray(generator._numpy_generator().poisson(rates.astype(np.float64))).astype(rates.dtype)


@poisson.meta
def _(rates, *, generator=None):
    _float_only("poisson_cpu", rates.dtype)
    return TensorMeta(rates.shape, rates.dtype)


poisson.derivative(_zeros)


@primitive("_standard_gamma", kind="random", node_name="StandardGammaBackward0")
def standard_gamma(alpha, *, generator):
    if alpha.dtype.kind != "f":
        raise TypeError("_standard_gamma")
    a = alpha.astype(np.float64)
    r = generator._numpy_generator().standard_gamma(np.where(a > 0, a, 1))
    # torch clamps samples to the smallest positive normal number of the dtype
    r = np.maximum(r, np.finfo(alpha.dtype).tiny)
    return np.where(a > 0, r, np.nan).astype(alpha.dtype)


@standard_gamma.meta
def _(alpha, *, generator=None):
    _float_only("gamma_cpu", alpha.dtype)
    return TensorMeta(alpha.shape, alpha.dtype)


@standard_gamma.derivative
def _(grad, alpha, out):
    return grad * alpha._op(standard_gamma_grad, out)


@primitive("_standard_gamma_grad")
def standard_gamma_grad(alpha, x):
    """``d x / d alpha`` of a standard gamma sample ``x`` (implicit reparameterisation)."""
    sp = _sp()
    a, v = alpha.astype(np.float64), x.astype(np.float64)
    h = 1e-5 * np.maximum(a, 1.0)
    dP = (sp.gammainc(a + h, v) - sp.gammainc(np.maximum(a - h, 1e-300), v)) / \
        (a + h - np.maximum(a - h, 1e-300))
    with np.errstate(all="ignore"):
        logpdf = (a - 1) * np.log(v) - v - sp.gammaln(a)
        r = -dP / np.exp(logpdf)
    return r.astype(np.result_type(alpha, x))


@standard_gamma_grad.meta
def _(alpha, x):
    return TensorMeta(broadcast_shapes(tuple(alpha.shape), tuple(x.shape)),
                      D.promote_types(alpha.dtype, x.dtype))


@primitive("binomial", kind="random")
def binomial(count, prob, *, generator):
    if count.dtype.kind != "f" or prob.dtype.kind != "f":
        raise TypeError("binomial")
    shape = np.broadcast_shapes(count.shape, prob.shape)
    n = np.broadcast_to(count, shape).astype(np.int64)
    p = np.broadcast_to(prob, shape).astype(np.float64)
    return generator._numpy_generator().binomial(n, p).astype(count.dtype)


@binomial.meta
def _(count, prob, *, generator=None):
    if not count.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{dtype_title(count.dtype)}")
    if not prob.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for prob, got: "
                         f"{dtype_title(prob.dtype)}")
    return TensorMeta(broadcast_shapes(tuple(count.shape), tuple(prob.shape)), count.dtype)


@binomial.derivative
def _(grad):
    return _zeros(grad), None
