"""``torch.special``: special functions, re-exported from where they are defined plus the
special-only ones (Bessel functions, ndtr/ndtri/log_ndtr, erfcx, entr, zeta, incomplete gamma).

Example:
    >>> import ember
    >>> ember.special.ndtr(ember.tensor(0.)).item()
    0.5
"""
from __future__ import annotations

from .. import _dtype as _D
from .._dispatch import dispatch
from .._tensor_methods import pointwise as _pw
from .._tensor_methods import pointwise_math as _pm
from .._tensor_methods import reduction as _red
from .._tensor_methods.special import SPECIAL as _SPECIAL
from .._primitives import nn_ops as _nn
from ..overrides import public

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy",
           "zeta"]

globals().update(_SPECIAL)

erf, erfc, erfinv, expm1, exp2, log1p = (getattr(_pw, n) for n in ("erf", "erfc", "erfinv", "expm1",
                                                                   "exp2", "log1p"))
expit = _pw.sigmoid
round = _pw.round
gammaln = _pm.lgamma
digamma = psi = _pm.digamma
polygamma = _pm.polygamma
sinc = _pm.sinc
logit = _pm.logit
xlogy = _pm.xlogy_fn
logsumexp = _red.logsumexp


@public
def softmax(input, dim, *, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed in ``dtype`` when given)."""
    if dtype is not None:
        input = input.to(dtype)
    return dispatch(_nn.softmax, input, dim=dim)


@public
def log_softmax(input, dim, *, dtype=None):
    """``x - logsumexp(x)`` along ``dim``."""
    if dtype is not None:
        input = input.to(dtype)
    return dispatch(_nn.log_softmax, input, dim=dim)
