"""More pointwise methods (layer L2) over ``_primitives/pointwise_math.py``: gamma family, xlogy, copysign,
sinc, deg2rad/rad2deg, heaviside, logit, nextafter, ldexp, frexp, gcd/lcm, bit shifts (``<<``, ``>>``),
angle/polar/complex/view_as_real/view_as_complex, isreal, and the comparisons isclose/allclose/equal.

Example:
    >>> import ember
    >>> (ember.tensor([1, 2]) << 3).tolist(), ember.gcd(ember.tensor([12]), ember.tensor([18])).tolist()
    ([8, 16], [6])
"""
from __future__ import annotations

from .. import _dtype as D
from .._dtype_complex32 import refuse
from .._dispatch import dispatch, result_dtype
from .._dispatch_inplace import dispatch_inplace, dispatch_out
from .._errors import dtype_title
from .._primitives import pointwise_math as PM
from ..overrides import public
from ._args import TensorBase
from .pointwise import _other, binary, unary
from .reduction import _return_type, return_types

__all__ = ["PointwiseMathMixin", "FUNCTIONS"]

_return_type("frexp", ("mantissa", "exponent"))

lgamma, lgamma_ = unary(PM.lgamma, "lgamma", "``log(|gamma(input)|)``.")
digamma, digamma_ = unary(PM.digamma, "digamma", "The logarithmic derivative of the gamma function.")
sinc, sinc_ = unary(PM.sinc, "sinc", "``sin(pi x) / (pi x)`` (1 at 0).")
deg2rad, deg2rad_ = unary(PM.deg2rad, "deg2rad", "Degrees to radians.")
rad2deg, rad2deg_ = unary(PM.rad2deg, "rad2deg", "Radians to degrees.")
xlogy, xlogy_ = binary(PM.xlogy, "xlogy", "``input * log(other)``, 0 where ``input`` is 0 (unless "
                       "``other`` is NaN).")
copysign, copysign_ = binary(PM.copysign, "copysign", "``|input|`` with the sign of ``other``.")
nextafter, nextafter_ = binary(PM.nextafter, "nextafter", "The next float after ``input`` towards "
                               "``other``.", tensor_only=True)
gcd, gcd_ = binary(PM.gcd, "gcd", "Greatest common divisor (integers).", tensor_only=True)
lcm, lcm_ = binary(PM.lcm, "lcm", "Least common multiple (integers).", tensor_only=True)
fmax, _ = binary(PM.fmax, "fmax", "Elementwise maximum ignoring NaN (NaN only when both are NaN).",
                 tensor_only=True)
fmin, _ = binary(PM.fmin, "fmin", "Elementwise minimum ignoring NaN (NaN only when both are NaN).",
                 tensor_only=True)
bitwise_left_shift, bitwise_left_shift_ = binary(PM.bitwise_left_shift, "bitwise_left_shift",
                                                 "``input << other`` (0 when shifted past the width).")
bitwise_right_shift, bitwise_right_shift_ = binary(PM.bitwise_right_shift, "bitwise_right_shift",
                                                   "``input >> other`` (arithmetic for signed ints).")


def _xlogy_scalar_first(input, other, *, out=None):
    """``xlogy(Number, Tensor)``: the scalar is the first operand."""
    if isinstance(input, TensorBase):
        return xlogy(input, other, out=out)
    if out is not None:
        return dispatch_out(PM.xlogy, out, _other(input), other)
    return dispatch(PM.xlogy, _other(input), other)


@public
def xlogy_fn(input, other, *, out=None):
    return _xlogy_scalar_first(input, other, out=out)


xlogy_fn.__name__ = xlogy_fn.__qualname__ = "xlogy"
xlogy_fn.__doc__ = xlogy.__doc__


@public
def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of digamma."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if out is not None:
        return dispatch_out(PM.polygamma, out, input, n=int(n))
    return dispatch(PM.polygamma, input, n=int(n))


def _polygamma_method(self, n):
    return polygamma(n, self)


def _polygamma_(self, n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return dispatch_inplace(PM.polygamma, self, n=int(n))


@public
def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension ``p`` (elements must exceed (p-1)/2)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if out is not None:
        return dispatch_out(PM.mvlgamma, out, input, p=int(p))
    return dispatch(PM.mvlgamma, input, p=int(p))


def _mvlgamma_(self, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return dispatch_inplace(PM.mvlgamma, self, p=int(p))


@public
def positive(input):
    """``input`` itself (``+input``); refused for bool as in torch."""
    if input.dtype is D.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _same_dtype_check(name, input, values):
    if isinstance(values, TensorBase) and values.dtype is not input.dtype:
        raise RuntimeError(f"{name} is not yet implemented for tensors with different dtypes.")


@public
def heaviside(input, values, *, out=None):
    """Step function: 0 below zero, 1 above, ``values`` at zero."""
    _same_dtype_check("heaviside", input, values)
    if out is not None:
        return dispatch_out(PM.heaviside, out, input, values)
    return dispatch(PM.heaviside, input, values)


def _heaviside_(self, values):
    _same_dtype_check("heaviside", self, values)
    return dispatch_inplace(PM.heaviside, self, values)


@public
def logit(input, eps=None, *, out=None):
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    kw = {} if eps is None else {"eps": float(eps)}
    if out is not None:
        return dispatch_out(PM.logit, out, input, **kw)
    return dispatch(PM.logit, input, **kw)


def _logit_(self, eps=None):
    return dispatch_inplace(PM.logit, self, **({} if eps is None else {"eps": float(eps)}))


def _ldexp_dtype(input, other):
    dt = result_dtype(PM.xlogy, (input, other))[0]  # int_to_float promotion of the two
    return dt


@public
def ldexp(input, other, *, out=None):
    """``input * 2 ** other``."""
    dt = _ldexp_dtype(input, other)
    res = input.to(dt) * other.to(dt).exp2()
    return res if out is None else out.copy_(res)


def _ldexp_(self, other):
    return self.mul_(other.to(self.dtype).exp2())


@public
def frexp(input, *, out=None):
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, ``0.5 <= |mantissa| < 1``."""
    res = return_types.frexp(dispatch(PM.frexp, input))
    if out is not None:
        for o, r in zip(out, res):
            o.copy_(r)
        return return_types.frexp(out)
    return res


# ----------------------------------------------------------------------------- complex
@public
def angle(input, *, out=None):
    """The argument of complex values (0 or pi for real values)."""
    op = PM.angle_complex if input.is_complex() else PM.angle
    if out is not None:
        return dispatch_out(op, out, input)
    return dispatch(op, input)


@public
def complex(real, imag, *, out=None):
    """A complex tensor from its real and imaginary parts (same float dtype)."""
    PM.complex.meta_rule(real, imag)  # torch's dtype errors
    if out is not None:
        return dispatch_out(PM.complex, out, real, imag)
    return dispatch(PM.complex, real, imag)


@public
def polar(abs, angle, *, out=None):
    """``abs * (cos(angle) + i sin(angle))``."""
    if not isinstance(abs, TensorBase) or not isinstance(angle, TensorBase):
        raise TypeError("polar(): argument 'abs' and 'angle' must be Tensor")
    if abs.dtype is not angle.dtype or abs.dtype not in (D.float32, D.float64, D.float16):
        complex(abs, angle)  # torch's dtype errors
    res = complex(abs * angle.cos(), abs * angle.sin())
    return res if out is None else out.copy_(res)


@public
def view_as_real(input):
    """A real view of a complex tensor with a trailing dim of 2 (real, imaginary)."""
    return dispatch(PM.view_as_real, input)


@public
def view_as_complex(input):
    """A complex view of a float tensor whose last dim is 2 with stride 1."""
    return dispatch(PM.view_as_complex, input)


@public
def isreal(input):
    """True where an element has no imaginary part (always for real dtypes)."""
    if input.is_complex():
        return input.imag == 0
    return input.new_ones(tuple(input.shape), dtype=D.bool)


# ----------------------------------------------------------------------------- closeness
@public
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (infinities equal only to themselves)."""
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{dtype_title(input.dtype)} did not match {dtype_title(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = input == other
    if equal_nan and (input.is_floating_point() or input.is_complex()):
        close = close | (input.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    a, b = input, other
    if a.dtype is D.bool:
        a, b = a.to(D.get_default_dtype()), b.to(D.get_default_dtype())
    allowed = atol + (rtol * b).abs()
    actual = (a - b).abs()
    return close | (actual.isfinite() & (actual <= allowed))


@public
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of ``input`` is close to ``other`` (see :func:`isclose`)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@public
def equal(input, other):
    """True when both tensors have the same shape and elements."""
    if input.dtype is D.complex32:
        raise refuse("equal")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool((input == other).all())


def view_dtype(self, dtype):
    """``Tensor.view(dtype)``: the same memory read as ``dtype`` (not differentiable, as in torch)."""
    from ._args import as_dtype
    dt = as_dtype(dtype)
    if self.storage_offset() and dt.itemsize != self.dtype.itemsize:  # the kernel cannot see offsets
        PM.view_dtype.meta_rule(self, dtype=dt)
    return dispatch(PM.view_dtype, self, dtype=dt)


def _lshift(self, other):
    return bitwise_left_shift(self, other)


def _rshift(self, other):
    return bitwise_right_shift(self, other)


def _rlshift(self, other):
    return dispatch(PM.bitwise_left_shift, _other(other), self)


def _rrshift(self, other):
    return dispatch(PM.bitwise_right_shift, _other(other), self)


class PointwiseMathMixin:
    __slots__ = ()
    lgamma, lgamma_, digamma, digamma_, sinc, sinc_ = lgamma, lgamma_, digamma, digamma_, sinc, sinc_
    deg2rad, deg2rad_, rad2deg, rad2deg_ = deg2rad, deg2rad_, rad2deg, rad2deg_
    xlogy, xlogy_, copysign, copysign_ = xlogy, xlogy_, copysign, copysign_
    nextafter, nextafter_, gcd, gcd_, lcm, lcm_ = nextafter, nextafter_, gcd, gcd_, lcm, lcm_
    bitwise_left_shift, bitwise_left_shift_ = bitwise_left_shift, bitwise_left_shift_
    bitwise_right_shift, bitwise_right_shift_ = bitwise_right_shift, bitwise_right_shift_
    polygamma, polygamma_ = _polygamma_method, _polygamma_
    heaviside, heaviside_, logit, logit_, ldexp, ldexp_ = heaviside, _heaviside_, logit, _logit_, ldexp, \
        _ldexp_
    frexp, angle, isreal, isclose, allclose, equal = frexp, angle, isreal, isclose, allclose, equal
    __lshift__, __rshift__, __rlshift__, __rrshift__ = _lshift, _rshift, _rlshift, _rrshift
    __ilshift__, __irshift__ = bitwise_left_shift_, bitwise_right_shift_
    view_dtype = view_dtype
    fmax, fmin, mvlgamma, mvlgamma_, positive = fmax, fmin, mvlgamma, _mvlgamma_, positive


FUNCTIONS = dict(
    lgamma=lgamma, digamma=digamma, polygamma=polygamma, sinc=sinc, sinc_=sinc_, deg2rad=deg2rad,
    deg2rad_=deg2rad_, rad2deg=rad2deg, rad2deg_=rad2deg_, xlogy=xlogy_fn, xlogy_=xlogy_,
    copysign=copysign, nextafter=nextafter, gcd=gcd, gcd_=gcd_, lcm=lcm, lcm_=lcm_,
    bitwise_left_shift=bitwise_left_shift, bitwise_right_shift=bitwise_right_shift, heaviside=heaviside,
    logit=logit, logit_=_logit_, ldexp=ldexp, ldexp_=_ldexp_, frexp=frexp, angle=angle, complex=complex,
    polar=polar, view_as_real=view_as_real, view_as_complex=view_as_complex, isreal=isreal,
    isclose=isclose, allclose=allclose, equal=equal, fmax=fmax, fmin=fmin, mvlgamma=mvlgamma,
    positive=positive, view_as_real_copy=public(lambda input: view_as_real(input).clone()),
    view_as_complex_copy=public(lambda input: view_as_complex(input).clone()),
)
for _n in ("view_as_real_copy", "view_as_complex_copy"):
    FUNCTIONS[_n].__name__ = FUNCTIONS[_n].__qualname__ = _n
    FUNCTIONS[_n].__doc__ = f"A copy of ``{_n[:-5]}``'s result."
