"""``torch.special``-only pointwise primitives (layer L1): Bessel functions, the normal CDF family,
erfcx, entr, zeta and the regularised incomplete gamma functions; kernels are ``scipy.special``
(imported lazily). Ops torch does not differentiate (``bessel_j0``, ``zeta`` in its first argument,
``gammainc`` in ``a``) raise the same "not implemented" error on backward.
"""
from __future__ import annotations

import math

import numpy as np

from .._errors import dtype_title
from .. import _dtype as D
from ._registry import primitive
from ._special import special as _sp

__all__ = ["i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "bessel_j0",
           "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai", "zeta", "gammainc",
           "gammaincc"]

_SQRT_2PI = math.sqrt(2 * math.pi)


def _real_only(name, a):
    if a.dtype.kind == "c":
        raise NotImplementedError(f'"{name}" not implemented for \'{dtype_title(D.FROM_NP[a.dtype])}\'')


def _not_impl(name):
    def backward(grad):
        raise RuntimeError(f"the derivative for '{name}' is not implemented.")
    return backward


def _unary(name, fn, derivative=None, kname=None):
    def kernel(a):
        _real_only(kname or name, a)
        return np.asarray(fn(a)).astype(a.dtype, copy=False)
    kernel.__name__ = name
    op = primitive(name, kind="pointwise", promotion="int_to_float", expr=f"{name}(a)")(kernel)
    op.derivative(derivative or _not_impl(name))
    return op




i0 = _unary("i0", lambda a: _sp().i0(a), lambda grad, a: grad * a._op(i1))
i1 = _unary("special_i1", lambda a: _sp().i1(a), kname="i1")
i0e = _unary("special_i0e", lambda a: _sp().i0e(a), kname="i0e")
i1e = _unary("special_i1e", lambda a: _sp().i1e(a), kname="i1e")


@i1.derivative
def _(grad, a, out):
    # i1' = i0 - i1 / x, and 1/2 at x = 0
    safe = a.masked_fill(a == 0, 1)
    d = a._op(i0) - out / safe
    return grad * d.masked_fill(a == 0, 0.5)


@i0e.derivative
def _(grad, a, out):
    return grad * (a._op(i1e) - a.sign() * out)


@i1e.derivative
def _(grad, a, out):
    safe = a.masked_fill(a == 0, 1)
    d = a._op(i0e) - out * (a.sign() + 1 / safe)
    return grad * d.masked_fill(a == 0, 0.5)


ndtr = _unary("special_ndtr", lambda a: _sp().ndtr(a), kname="ndtr",
              derivative=lambda grad, a: grad * (-(a * a) * 0.5).exp() / _SQRT_2PI)
ndtri = _unary("special_ndtri", lambda a: _sp().ndtri(a), kname="ndtri",
               derivative=lambda grad, out: grad * _SQRT_2PI * (out * out * 0.5).exp())
log_ndtr = _unary("special_log_ndtr", lambda a: _sp().log_ndtr(a), kname="log_ndtr",
                  derivative=lambda grad, a, out: grad * (-(a * a) * 0.5 - out).exp() / _SQRT_2PI)
erfcx = _unary("special_erfcx", lambda a: _sp().erfcx(a), kname="erfcx",
               derivative=lambda grad, a, out: grad * (2 * a * out - 2 / math.sqrt(math.pi)))


def _entr(a):
    with np.errstate(all="ignore"):
        r = np.where(a > 0, -a * np.log(np.where(a > 0, a, 1)), np.where(a == 0, 0.0, -np.inf))
    return np.where(np.isnan(a), a, r)


entr = _unary("special_entr", _entr, kname="entr",
              derivative=lambda grad, a: grad * -(1 + a.log()))

bessel_j0 = _unary("special_bessel_j0", lambda a: _sp().j0(a), kname="bessel_j0")
bessel_j1 = _unary("special_bessel_j1", lambda a: _sp().j1(a), kname="bessel_j1")
bessel_y0 = _unary("special_bessel_y0", lambda a: _sp().y0(a), kname="bessel_y0")
bessel_y1 = _unary("special_bessel_y1", lambda a: _sp().y1(a), kname="bessel_y1")
modified_bessel_i0 = _unary("special_modified_bessel_i0", lambda a: _sp().i0(a))
modified_bessel_i1 = _unary("special_modified_bessel_i1", lambda a: _sp().i1(a))
modified_bessel_k0 = _unary("special_modified_bessel_k0", lambda a: _sp().k0(a))
modified_bessel_k1 = _unary("special_modified_bessel_k1", lambda a: _sp().k1(a))
scaled_modified_bessel_k0 = _unary("special_scaled_modified_bessel_k0", lambda a: _sp().k0e(a))
scaled_modified_bessel_k1 = _unary("special_scaled_modified_bessel_k1", lambda a: _sp().k1e(a))


def _sph_j0(a):
    with np.errstate(all="ignore"):
        r = np.sin(a) / a
    return np.where(a == 0, 1.0, np.where(np.isinf(a), 0.0, r))


spherical_bessel_j0 = _unary("special_spherical_bessel_j0", _sph_j0)
airy_ai = _unary("special_airy_ai", lambda a: _sp().airy(a)[0])


def _binary(name, fn):
    def kernel(a, b):
        _real_only(name, a)
        _real_only(name, b)
        return np.asarray(fn(a, b)).astype(np.result_type(a, b), copy=False)
    kernel.__name__ = name
    return primitive(name, kind="pointwise", promotion="int_to_float", expr=f"{name}(a, b)")(kernel)


zeta = _binary("special_zeta", lambda a, b: _sp().zeta(a, b))


@zeta.derivative
def _(grad, a, b, *, needs_input_grad):
    if needs_input_grad[0]:
        raise RuntimeError("the derivative for 'self' is not implemented.")
    return None, grad * -a * (a + 1)._op(zeta, b)


gammainc = _binary("igamma", lambda a, b: _sp().gammainc(a, b))
gammaincc = _binary("igammac", lambda a, b: _sp().gammaincc(a, b))


def _gammainc_dx(a, x):
    # d/dx P(a, x) = exp(-x) x^(a-1) / Gamma(a)
    return (-x + (a - 1) * x.log() - a.lgamma()).exp()


@gammainc.derivative
def _(grad, a, b, *, needs_input_grad):
    if needs_input_grad[0]:
        raise RuntimeError("the derivative for 'igamma: input' is not implemented.")
    return None, grad * _gammainc_dx(a, b)


@gammaincc.derivative
def _(grad, a, b, *, needs_input_grad):
    if needs_input_grad[0]:
        raise RuntimeError("the derivative for 'igammac: input' is not implemented.")
    return None, -grad * _gammainc_dx(a, b)
