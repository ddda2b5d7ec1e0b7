"""``torch.special``: special functions, re-exported from where they are defined plus the
special-only ones (Bessel functions, ndtr/ndtri/log_ndtr, erfcx, entr, zeta, incomplete gamma).

Example:
    >>> import ember
    >>> ember.special.ndtr(ember.tensor(0.)).item()
    0.5
"""
from __future__ import annotations

from .. import _dtype as _D
from .._creation import tensor as _scalar_tensor
from .._dispatch import dispatch
from .._dispatch_inplace import dispatch_out
from .._errors import dtype_title
from .._tensor_methods import pointwise as _pw
from .._tensor_methods import pointwise_math as _pm
from .._tensor_methods import reduction as _red
from .._tensor_methods.special import SPECIAL as _SPECIAL
from .._primitives import nn_ops as _nn
from .._primitives import polynomial as _poly
from ..overrides import public

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0",
           "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy",
           "zeta", "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
           "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]

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


_LOW_PRECISION = ("torch.float16", "torch.bfloat16")


def _polynomial(name, op):
    """``name(input, n, *, out=None)``: either argument may be a Python number (torch's
    ``x_scalar``/``n_scalar`` overloads), not both."""
    def fn(input, n, *, out=None):
        t_in, t_n = hasattr(input, "new_tensor"), hasattr(n, "new_tensor")
        if not (t_in or t_n):
            raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                            f"({type(input).__name__}, {type(n).__name__}), but expected one of: "
                            "(Tensor x, Tensor n), (Number x, Tensor n), (Tensor x, Number n)")
        if not t_in:
            input = _scalar_tensor(input)
        for t in (input, n):
            if hasattr(t, "dtype") and (str(t.dtype) in _LOW_PRECISION or t.dtype.is_complex):
                raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                          f"'{dtype_title(t.dtype)}'")
        if out is not None:
            return dispatch_out(op, out, input, n)
        return dispatch(op, input, n)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "ember.special"
    fn.__doc__ = (f"``{name}(input, n)``: the polynomial of degree ``n`` (truncated to an integer; "
                  "0 for ``n < 0``) at ``input``, elementwise with broadcasting; not differentiable.")
    return public(fn)


globals().update({_name: _polynomial(_name, _op) for _name, _op in _poly.POLYNOMIALS.items()})
