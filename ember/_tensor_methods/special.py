"""``torch.special``-only functions (layer L2) over ``_primitives/special.py``: Bessel, normal-CDF, erfcx,
entr, zeta, incomplete gamma; plus torch's top-level ``i0``/``igamma``/``igammac``/``mvlgamma`` and
their Tensor methods.

Example:
    >>> import ember
    >>> ember.i0(ember.tensor([0.])).tolist()
    [1.0]
"""
from __future__ import annotations

import math

from .._primitives import pointwise_math as PM
from .._primitives import special as S
from ..overrides import public
from .pointwise import binary, unary

__all__ = ["SpecialMixin", "FUNCTIONS", "SPECIAL"]

i0, i0_ = unary(S.i0, "i0", "Modified Bessel function of the first kind, order 0.")
_UNARY = {name: unary(op, name)[0] for name, op in (
    ("i0e", S.i0e), ("i1", S.i1), ("i1e", S.i1e), ("ndtr", S.ndtr), ("ndtri", S.ndtri),
    ("log_ndtr", S.log_ndtr), ("erfcx", S.erfcx), ("entr", S.entr), ("bessel_j0", S.bessel_j0),
    ("bessel_j1", S.bessel_j1), ("bessel_y0", S.bessel_y0), ("bessel_y1", S.bessel_y1),
    ("modified_bessel_i0", S.modified_bessel_i0), ("modified_bessel_i1", S.modified_bessel_i1),
    ("modified_bessel_k0", S.modified_bessel_k0), ("modified_bessel_k1", S.modified_bessel_k1),
    ("scaled_modified_bessel_k0", S.scaled_modified_bessel_k0),
    ("scaled_modified_bessel_k1", S.scaled_modified_bessel_k1),
    ("spherical_bessel_j0", S.spherical_bessel_j0), ("airy_ai", S.airy_ai))}
igamma, igamma_ = binary(S.gammainc, "igamma", "Regularised lower incomplete gamma ``P(input, other)``.")
igammac, igammac_ = binary(S.gammaincc, "igammac", "Regularised upper incomplete gamma ``Q(input, other)``.")
xlog1py, _ = binary(PM.xlog1py, "xlog1py", "``input * log1p(other)``, 0 where ``input`` is 0.")


def _scalar_first(op, name):
    """``zeta``/``xlog1py`` accept a Python number as either argument (torch.special's overloads)."""
    def fn(input, other, *, out=None):
        if not hasattr(input, "new_tensor"):
            input = other.new_tensor(input, dtype=None) if hasattr(other, "new_tensor") else input
        return op(input, other, out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "ember.special"
    return public(fn)


zeta = _scalar_first(binary(S.zeta, "zeta", "Hurwitz zeta ``sum_k (k + other) ** -input``.")[0], "zeta")
xlog1py_fn = _scalar_first(xlog1py, "xlog1py")


@public
def mvlgamma(input, p, *, out=None):
    """Log of the multivariate gamma function of dimension ``p``: ``sum_i lgamma(x - i/2) + c``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if (input.dtype.is_floating_point) else input.to(_default())
    r = None
    for i in range(p):
        t = (x - i / 2).lgamma()
        r = t if r is None else r + t
    r = r + p * (p - 1) / 4 * math.log(math.pi)
    if out is not None:
        return out.copy_(r)
    return r


def _default():
    from .. import _dtype as D
    return D.get_default_dtype()


def _mvlgamma_(self, p):
    return self.copy_(mvlgamma(self, p))


class SpecialMixin:
    __slots__ = ()
    i0, i0_ = i0, i0_
    igamma, igamma_, igammac, igammac_ = igamma, igamma_, igammac, igammac_
    mvlgamma, mvlgamma_ = mvlgamma, _mvlgamma_
    xlog1py = xlog1py


SPECIAL = dict(_UNARY, zeta=zeta, gammainc=igamma, gammaincc=igammac, xlog1py=xlog1py_fn,
               multigammaln=mvlgamma, i0=i0)
FUNCTIONS = dict(i0=i0, i0_=i0_, igamma=igamma, igammac=igammac, mvlgamma=mvlgamma)
