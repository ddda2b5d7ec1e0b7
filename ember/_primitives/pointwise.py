"""Pointwise primitives (layer L1): kernel, derivative and fusable expression, one block each.

The family supplies broadcasting, torch's dtype promotion (``promotion=``), float16/bfloat16 computed
in float32, in-place and ``out=`` variants, and the summing of gradients over broadcast dims.
Derivatives are written in ember ops (Tensor methods), so they are differentiable again.
Kernels receive arrays already cast to the dtype they compute in, plus Python scalars.
"""
from __future__ import annotations

import builtins
import functools
import math

import warnings

import numpy as np

from .. import _dtype as D
from .. import _dtype_complex32 as C32
from .._dtype_scalar import checked_scalar
from ._registry import SlowPath, primitive
from .pointwise_backward import sigmoid_backward, tanh_backward, threshold_backward
from ._special import special as _sp

# torch gives inf/nan silently; NumPy warns. A filter on the kernels' modules costs nothing until a
# warning fires, where np.errstate would cost ~1.7 us on every call.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.ops\.")

_TITLE = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
          "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
          "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _not_impl(kname: str, x):
    """torch's error for a dtype a kernel has no loop for."""
    raise NotImplementedError(f'"{kname}" not implemented for \'{_TITLE[str(np.result_type(x))]}\'')


def _kind(x) -> str:
    return x.dtype.kind if type(x) is np.ndarray else np.result_type(x).kind


def _is_t(x) -> bool:
    return hasattr(x, "_dtype")


def _conj(x):
    if type(x) is np.ndarray:  # a raw backward's real array (hasattr would raise and catch: ~0.4 us)
        return x
    return x.conj() if _is_t(x) and x.is_complex() else x


def _is_complex(x) -> bool:
    """A complex Tensor (derivatives written against ``K`` also run on real arrays: False there)."""
    return type(x) is not np.ndarray and _is_t(x) and x.is_complex()


def _zeros(grad):
    return grad.new_zeros(grad.shape)


def _wrap_ints(args, strict=True):
    """torch casts a Python int to the other operand's integer dtype, wrapping when out of range
    (``uint8_tensor + 300``); NumPy raises OverflowError instead."""
    dt = next((a.dtype for a in args if type(a) is np.ndarray and a.dtype.kind in "iu"), None)
    if dt is None:
        if strict:
            raise OverflowError("Python integer out of bounds")
        return args
    return tuple(np.array(a).astype(dt) if type(a) is int else a for a in args)


def _int_wrap(kernel):
    @functools.wraps(kernel)
    def run(*args, **params):
        try:
            return kernel(*args, **params)
        except OverflowError:
            return kernel(*_wrap_ints(args), **params)
    return run


# ----------------------------------------------------------------------------- arithmetic


@primitive("add", kind="pointwise", expr="a + alpha * b", array_ufunc=np.add)
def add(a, b, *, alpha=1):
    try:  # inline rather than @_int_wrap: add is the hottest op
        return np.add(a, b) if alpha == 1 else np.add(a, np.multiply(b, alpha))
    except OverflowError:
        a, b = _wrap_ints((a, b))
        return np.add(a, np.multiply(b, _wrap_ints((b, alpha))[1]))


@add.inplace_writer(takes_params=True)
def _add_into(a, b, *, out, alpha=1):
    if type(alpha) is not float and type(alpha) is not int:
        raise SlowPath  # bool/complex alpha: the ordinary path validates it as torch does
    np.add(a, b if alpha == 1 else np.multiply(b, alpha), out=out)


@add.derivative
def _(grad, *, alpha, K):
    return grad, (grad if alpha == 1 else K.mul(grad, alpha))


@primitive("sub", kind="pointwise", expr="a - alpha * b", array_ufunc=np.subtract)
def sub(a, b, *, alpha=1):
    try:
        return np.subtract(a, b) if alpha == 1 else np.subtract(a, np.multiply(b, alpha))
    except OverflowError:
        a, b = _wrap_ints((a, b))
        return np.subtract(a, np.multiply(b, _wrap_ints((b, alpha))[1]))


@sub.inplace_writer(takes_params=True)
def _sub_into(a, b, *, out, alpha=1):
    if type(alpha) is not float and type(alpha) is not int:
        raise SlowPath
    np.subtract(a, b if alpha == 1 else np.multiply(b, alpha), out=out)


@sub.derivative
def _(grad, *, alpha, K):
    return grad, (K.neg(grad) if alpha == 1 else K.mul(grad, -alpha))


@primitive("mul", kind="pointwise", expr="a * b")
def mul(a, b):
    try:
        return np.multiply(a, b)
    except OverflowError:
        return np.multiply(*_wrap_ints((a, b)))


mul.inplace_writer(np.multiply)


@mul.derivative(reads={"a": ("b",), "b": ("a",)})
def _(grad, a, b, *, needs_input_grad, K):
    return (K.mul(grad, _conj(b)) if needs_input_grad[0] else None,
            K.mul(grad, _conj(a)) if needs_input_grad[1] else None)


@primitive("div", kind="pointwise", promotion="int_to_float", expr="a / b")
def div(a, b):
    return np.true_divide(a, b)


div.inplace_writer(np.true_divide)


@div.derivative(reads={"a": ("b",), "b": ("a", "b")})
def _(grad, a, b, *, needs_input_grad, K):
    gb = K.div(K.mul(K.neg(grad), _conj(a)), _conj(K.mul(b, b))) if needs_input_grad[1] else None
    return (K.div(grad, _conj(b)) if needs_input_grad[0] else None), gb


def _int_divmod_check(a, b):
    """Integer division by zero raises as torch does (floats give inf/nan)."""
    if _kind(a) in "iub" and _kind(b) in "iub" and not np.all(b):
        raise RuntimeError("ZeroDivisionError")


def _float_only_zero_grads(grad, a, b):
    return _zeros(grad), (_zeros(grad) if _is_t(b) else None)


@primitive("div_floor", kind="pointwise", node_name="DivBackward1", expr="floor(a / b)")
@_int_wrap
def div_floor(a, b):
    _int_divmod_check(a, b)
    if _kind(a) in "iub" and _kind(b) in "iub":
        return np.floor_divide(a, b)
    return np.floor(np.true_divide(a, b))


div_floor.derivative(lambda grad, b: _float_only_zero_grads(grad, None, b))


@primitive("div_trunc", kind="pointwise", node_name="DivBackward1", expr="trunc(a / b)")
@_int_wrap
def div_trunc(a, b):
    _int_divmod_check(a, b)
    if _kind(a) in "iub" and _kind(b) in "iub":
        q = np.floor_divide(a, b)
        fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
        return q + fix.astype(q.dtype)
    return np.trunc(np.true_divide(a, b))


div_trunc.derivative(lambda grad, b: _float_only_zero_grads(grad, None, b))


@primitive("remainder", kind="pointwise", expr="a - b * floor(a / b)")
@_int_wrap
def remainder(a, b):
    if _kind(a) == "b" or _kind(b) == "b":
        _not_impl("remainder_cpu", np.bool_)
    _int_divmod_check(a, b)
    return np.remainder(a, b)


@remainder.derivative(reads={"a": (), "b": ("a", "b")})
def _(grad, a, b):
    if not _is_t(a):  # scalar % tensor: torch has no derivative w.r.t. the divisor here
        raise RuntimeError("derivative for aten::remainder is not implemented")
    return grad, (-grad * a.div(b, rounding_mode="floor") if _is_t(b) else None)


@primitive("fmod", kind="pointwise", expr="fmod(a, b)")
@_int_wrap
def fmod(a, b):
    if _kind(a) == "b" or _kind(b) == "b":
        _not_impl("fmod_cpu", np.bool_)
    _int_divmod_check(a, b)
    return np.fmod(a, b)


@fmod.derivative(reads={"a": (), "b": ("a", "b")})
def _(grad, a, b):
    return grad, (-grad * a.div(b, rounding_mode="trunc") if _is_t(b) else None)


@primitive("neg", kind="pointwise", expr="-a")
def neg(a):
    if a.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(a)


neg.inplace_writer(np.negative)


neg.derivative(lambda grad, *, K: K.neg(grad))


def _int_pow(a, b):
    """Integer powers with negative integer exponents, as torch computes them (1, -1 or 0)."""
    a, b = np.asarray(a), np.asarray(b)
    neg_exp = b < 0
    r = np.power(a, np.where(neg_exp, 0, b))
    odd = (b % 2) != 0
    special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(r.dtype)
    return np.where(neg_exp, special, r)


@primitive("pow", kind="pointwise", expr="a ** b", array_ufunc=np.power)
@_int_wrap
def pow(a, b):
    if _kind(a) in "iub" and _kind(b) in "iu":
        if type(b) is not np.ndarray:
            if b < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
        elif (b < 0).any():
            return _int_pow(a, b)
    return np.power(a, b)


@primitive("pow_tensor_scalar", kind="pointwise", expr="a ** b", node_name="PowBackward0",
           array_ufunc=np.power)
def pow_tensor_scalar(a, b):
    """``pow`` with a Python-number exponent: its own primitive because its derivative saves only the
    base (torch's ``pow.Tensor_Scalar``), so the output may be written in place; a tensor exponent
    (or base) needs the output, as in torch."""
    return pow.kernel(a, b)


@pow_tensor_scalar.derivative
def _(grad, a, b):
    if b == 0:
        return _zeros(grad), None
    return grad * b * _conj(a ** (b - 1)), None


@pow.derivative
def _(grad, a, b, out):
    if not _is_t(b):  # scalar exponent (ember.pow dispatches pow_tensor_scalar for these)
        if b == 0:
            return _zeros(grad), None
        return grad * b * _conj(a ** (b - 1)), None
    gb = grad * _conj(out * (a.log() if _is_t(a) else math.log(a)))
    if not _is_t(a):
        return None, (gb if a != 0 else gb.new_zeros(()).where(b >= 0, gb))
    ga = grad * _conj(b * a ** (b - 1))
    real_b = b.real if b.is_complex() else b
    gb = gb.new_zeros(()).where((a == 0) & (real_b >= 0), gb)
    return ga, gb


@primitive("abs", kind="pointwise", promotion="complex_to_float", expr="abs(a)")
def abs(a):
    if a.dtype == np.bool_:
        _not_impl("abs_cpu", a)
    return np.abs(a)


abs.derivative(lambda grad, a, *, K: K.mul(grad, K.sgn(a)))


@primitive("sign", kind="pointwise", expr="sign(a)")
def sign(a):
    if a.dtype == np.bool_:
        return a.copy()
    if a.dtype.kind == "f":
        return np.where(a != a, 0, np.sign(a))  # torch: sign(nan) == 0
    return np.sign(a)


sign.derivative(lambda grad: _zeros(grad))


@primitive("sgn", kind="pointwise", expr="sgn(a)")
def sgn(a):
    if np.iscomplexobj(a):
        mag = np.abs(a)
        return np.where(mag == 0, 0, a / np.where(mag == 0, 1, mag)).astype(a.dtype)
    return sign.kernel(a)


@sgn.derivative
def _(grad, a, out):
    if not a.is_complex():
        return _zeros(grad)
    mag = a.abs()
    return grad.new_zeros(()).where(mag == 0, (grad - (out * _conj(grad)).real * out) / mag)


# ----------------------------------------------------------------------------- unary float family


def _unary(name, fn, expr, deriv, promotion="int_to_float"):
    """A unary primitive computing ``fn(a)``, with derivative ``deriv(grad, a | out)``."""
    def kernel(a):
        return fn(a)
    kernel.__name__ = name
    op = primitive(name, kind="pointwise", promotion=promotion, expr=expr,
                   array_ufunc=fn if isinstance(fn, np.ufunc) else None)(kernel)
    if deriv is not None:
        op.derivative(deriv)
    return op


def _sigmoid(a):
    return 1 / (1 + np.exp(-a)) if np.iscomplexobj(a) else _sp().expit(a)


exp = _unary("exp", np.exp, "exp(a)", lambda grad, out, *, K: K.mul(grad, _conj(out)))
exp.inplace_writer(np.exp)
exp2 = _unary("exp2", np.exp2, "exp2(a)", lambda grad, out: grad * _conj(out) * _LN2)
expm1 = _unary("expm1", np.expm1, "expm1(a)", lambda grad, out: grad * _conj(out + 1))
log = _unary("log", np.log, "log(a)", lambda grad, a, *, K: K.div(grad, _conj(a)))
log2 = _unary("log2", np.log2, "log2(a)", lambda grad, a: grad / (_conj(a) * _LN2))
log10 = _unary("log10", np.log10, "log10(a)", lambda grad, a: grad / (_conj(a) * _LN10))
log1p = _unary("log1p", np.log1p, "log1p(a)", lambda grad, a: grad / _conj(a + 1))
sqrt = _unary("sqrt", np.sqrt, "sqrt(a)", lambda grad, out, *, K: K.div(grad, K.mul(_conj(out), 2)))
sqrt.inplace_writer(np.sqrt)
rsqrt = _unary("rsqrt", lambda a: np.reciprocal(np.sqrt(a)), "1 / sqrt(a)",
               lambda grad, out: grad * _conj(out * out * out) * -0.5)
reciprocal = _unary("reciprocal", np.reciprocal, "1 / a",
                    lambda grad, out: -grad * _conj(out * out))
sin = _unary("sin", np.sin, "sin(a)", lambda grad, a: grad * _conj(a.cos()))
sin.inplace_writer(np.sin)
cos = _unary("cos", np.cos, "cos(a)", lambda grad, a: grad * -_conj(a.sin()))
cos.inplace_writer(np.cos)
tan = _unary("tan", np.tan, "tan(a)", lambda grad, out: grad * _conj(1 + out * out))
asin = _unary("asin", np.arcsin, "asin(a)", lambda grad, a: grad * (1 - a * a).rsqrt())
acos = _unary("acos", np.arccos, "acos(a)", lambda grad, a: -grad * (1 - a * a).rsqrt())
atan = _unary("atan", np.arctan, "atan(a)", lambda grad, a: grad / (1 + a * a))
sinh = _unary("sinh", np.sinh, "sinh(a)", lambda grad, a: grad * _conj(a.cosh()))
cosh = _unary("cosh", np.cosh, "cosh(a)", lambda grad, a: grad * _conj(a.sinh()))
tanh = _unary("tanh", np.tanh, "tanh(a)", lambda grad, out, *, K: grad * _conj(1 - out * out)
               if _is_complex(out) else K.tanh_backward(grad, out))
tanh.inplace_writer(np.tanh)
asinh = _unary("asinh", np.arcsinh, "asinh(a)", lambda grad, a: grad * (a * a + 1).rsqrt())
acosh = _unary("acosh", np.arccosh, "acosh(a)", lambda grad, a: grad * (a * a - 1).rsqrt())
atanh = _unary("atanh", np.arctanh, "atanh(a)", lambda grad, a: grad / (1 - a * a))
sigmoid = _unary("sigmoid", _sigmoid, "1 / (1 + exp(-a))",
                 lambda grad, out, *, K: grad * _conj(out * (1 - out))
                 if _is_complex(out) else K.sigmoid_backward(grad, out))
erf = _unary("erf", lambda a: _sp().erf(a), "erf(a)",
             lambda grad, a: grad * (2.0 / math.sqrt(math.pi)) * (-(a * a)).exp())
erfc = _unary("erfc", lambda a: _sp().erfc(a), "erfc(a)",
              lambda grad, a: grad * (-2.0 / math.sqrt(math.pi)) * (-(a * a)).exp())
erfinv = _unary("erfinv", lambda a: _sp().erfinv(a), "erfinv(a)",
                # recomputed from the input, as torch does (the output stays writable in place)
                lambda grad, a: grad * (math.sqrt(math.pi) / 2.0) * a.erfinv().square().exp())


_ZEROS: dict = {}  # a 0-d zero per dtype: np.maximum(a, 0) converts the Python 0 each call (2x slower)


def _relu(a):
    z = _ZEROS.get(a.dtype)
    if z is None:
        if a.dtype == np.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        z = _ZEROS[a.dtype] = np.zeros((), a.dtype)
    return np.maximum(a, z)


relu = _unary("relu", _relu, "max(a, 0)", lambda grad, out, *, K: K.threshold_backward(grad, out),
              promotion="default")
relu.array_ufunc = (np.maximum, 0)  # what _relu computes on float arrays, for dispatch's fast path


@relu.inplace_writer
def _relu_into(a, *, out):
    np.maximum(a, 0, out=out)  # (in place: a fresh 0-d zero would cost as much as the conversion)


def _rounding(name, fn, kname):
    def kernel(a):
        if a.dtype.kind in "iu":
            return a.copy()
        if a.dtype == np.bool_:
            _not_impl(kname, a)
        return fn(a)
    return kernel


floor = _unary("floor", _rounding("floor", np.floor, "floor_vml_cpu"), "floor(a)", lambda grad: _zeros(grad),
               promotion="default")
ceil = _unary("ceil", _rounding("ceil", np.ceil, "ceil_vml_cpu"), "ceil(a)", lambda grad: _zeros(grad),
              promotion="default")
trunc = _unary("trunc", _rounding("trunc", np.trunc, "trunc_vml_cpu"), "trunc(a)", lambda grad: _zeros(grad),
               promotion="default")


@primitive("round", kind="pointwise", expr="round(a)")
def round(a, *, decimals=0):
    if decimals == 0:
        return _rounding("round", np.rint, "round_vml_cpu")(a)
    if a.dtype.kind in "biu":
        _not_impl("round_cpu", a)
    ten = a.dtype.type(10.0 ** builtins.abs(decimals))
    return np.rint(a * ten) / ten if decimals > 0 else np.rint(a / ten) * ten


round.derivative(lambda grad: _zeros(grad))


def _frac(a):
    if a.dtype.kind in "biu":
        _not_impl("frac_cpu", a)
    return a - np.trunc(a)


frac = _unary("frac", _frac, "a - trunc(a)", lambda grad: grad, promotion="default")


# ----------------------------------------------------------------------------- binary float family


@primitive("atan2", kind="pointwise", promotion="int_to_float", expr="atan2(a, b)")
def atan2(a, b):
    return np.arctan2(a, b)


@atan2.derivative
def _(grad, a, b):
    # torch's: 0 at a == b == 0, where the formula is 0/0
    denom = a * a + b * b
    recip = (1 / denom).where(denom != 0, 0)
    return grad * b * recip, -grad * a * recip


def _float_binary(kname, ufunc):
    def kernel(a, b):
        if _kind(a) in "biu":
            _not_impl(kname, a)
        return ufunc(a, b)
    return kernel


logaddexp = primitive("logaddexp", kind="pointwise", expr="logaddexp(a, b)")(
    _float_binary("logaddexp_cpu", np.logaddexp))
logaddexp.derivative(lambda grad, a, b: (grad / (1 + (b - a).exp()), grad / (1 + (a - b).exp())))
logaddexp2 = primitive("logaddexp2", kind="pointwise", expr="logaddexp2(a, b)")(
    _float_binary("logaddexp2_cpu", np.logaddexp2))
logaddexp2.derivative(lambda grad, a, b: (grad / (1 + (b - a).exp2()), grad / (1 + (a - b).exp2())))
hypot = primitive("hypot", kind="pointwise", expr="hypot(a, b)")(_float_binary("hypot_cpu", np.hypot))
hypot.derivative(lambda grad, a, b, out: (grad * a / out, grad * b / out),
                 reads={"a": ("a", "out"), "b": ("b", "out")})


@primitive("lerp", kind="pointwise", promote_args=(0, 1), expr="a + weight * (b - a)")
def lerp(a, b, weight):
    if a.dtype.kind not in "fc":
        _not_impl("lerp_kernel_tensor" if type(weight) is np.ndarray else "lerp_kernel_scalar", a)
    diff = b - a
    w = weight
    # torch's formula: exact at both ends, stable for weights near 1
    return np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w)).astype(np.result_type(a, b))


@lerp.inplace_writer
def _lerp_into(a, b, w, *, out):
    if type(w) is np.ndarray:
        out[...] = lerp.kernel(a, b, w)
        return
    diff = np.subtract(b, a)
    if type(diff) is not np.ndarray:  # 0-d operands: NumPy returns a scalar, which out= refuses
        diff = np.asarray(diff)
    if builtins.abs(w) < 0.5:
        np.multiply(diff, w, out=diff)
        np.add(a, diff, out=out)
    else:
        np.multiply(diff, 1 - w, out=diff)
        np.subtract(b, diff, out=out)


@lerp.derivative(reads={"a": ("weight",), "b": ("weight",), "weight": ("a", "b", "weight")})
def _(grad, a, b, weight):
    gw = grad * (b - a) if _is_t(weight) else None
    return grad * (1 - weight), grad * weight, gw


@primitive("addcmul", kind="pointwise", expr="a + value * t1 * t2")
def addcmul(a, t1, t2, *, value=1):
    prod = np.multiply(t1, t2)
    if value != 1:
        if np.result_type(a, prod).kind in "biu":
            value = int(value)  # torch casts the scalar to the integer result type
        prod = np.multiply(prod, value)
    return np.add(a, prod)


@addcmul.inplace_writer(takes_params=True)
def _addcmul_into(a, t1, t2, *, out, value=1):
    prod = np.multiply(t1, t2)
    if type(prod) is not np.ndarray:  # 0-d operands give a NumPy scalar, which out= refuses
        prod = np.asarray(prod)
    if value != 1:
        prod = np.multiply(prod, value)  # 0-d operands give a NumPy scalar, not an out= target
    np.add(a, prod, out=out)


@addcmul.derivative(reads={"a": (), "t1": ("t2",), "t2": ("t1",)})
def _(grad, t1, t2, *, value):
    g = grad if value == 1 else grad * value
    return grad, g * _conj(t2), g * _conj(t1)


_ADDCDIV_INT = ("Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                "for all dtypes.")


@primitive("addcdiv", kind="pointwise", expr="a + value * t1 / t2")
def addcdiv(a, t1, t2, *, value=1):
    if _kind(t1) in "biu" and _kind(t2) in "biu":
        raise RuntimeError(_ADDCDIV_INT)
    q = np.true_divide(t1, t2)
    return np.add(a, q if value == 1 else np.multiply(q, value))


@addcdiv.inplace_writer(takes_params=True)
def _addcdiv_into(a, t1, t2, *, out, value=1):
    q = np.true_divide(t1, t2)
    if type(q) is not np.ndarray:  # 0-d operands give a NumPy scalar, which out= refuses
        q = np.asarray(q)
    if value != 1:
        q = np.multiply(q, value)
    np.add(a, q, out=out)


@addcdiv.derivative(reads={"a": ("t2",), "t1": ("t2",), "t2": ("t1", "t2")})
def _(grad, t1, t2, *, value):
    g = grad if value == 1 else grad * value
    return grad, g / _conj(t2), -g * _conj(t1) / _conj(t2 * t2)


@primitive("nan_to_num", kind="pointwise", expr="nan_to_num(a)")
def nan_to_num(a, *, nan=0.0, posinf=None, neginf=None):
    if a.dtype.kind not in "fc":
        return a.copy()
    return np.nan_to_num(a, copy=True, nan=nan, posinf=posinf, neginf=neginf)


nan_to_num.derivative(lambda grad, a: grad * a.isfinite())


# ----------------------------------------------------------------------------- comparison, select


@primitive("maximum", kind="pointwise", expr="max(a, b)")
def maximum(a, b):
    return np.maximum(a, b)


maximum.inplace_writer(np.maximum)


@maximum.derivative
def _(grad, a, b):
    # torch's routing: ties split the gradient, and a NaN on either side passes it to both (no
    # comparison holds), so only a strict loss masks it out
    tie = grad.where(a != b, grad * 0.5)
    return tie.masked_fill(a < b, 0), tie.masked_fill(a > b, 0)


@primitive("minimum", kind="pointwise", expr="min(a, b)")
def minimum(a, b):
    return np.minimum(a, b)


minimum.inplace_writer(np.minimum)


@minimum.derivative
def _(grad, a, b):
    tie = grad.where(a != b, grad * 0.5)  # as maximum's, mirrored
    return tie.masked_fill(a > b, 0), tie.masked_fill(a < b, 0)


@primitive("clamp", kind="pointwise", promote_args=(0,), expr="min(max(a, lo), hi)")
def clamp(a, *, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if a.dtype == np.bool_:
        _not_impl("clamp_scalar_cpu" if min is not None and max is not None else
                  "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu", a)
    if a.dtype.kind in "iu":  # int bounds convert into the dtype with torch's checks (uint8: -1 -> 255)
        dt = D.from_numpy_dtype(a.dtype)
        min, max = (v if v is None else checked_scalar(v, dt) for v in (min, max))
    out = a
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
        out = np.minimum(out, max)
    return out if out is not a else a.copy()


@clamp.derivative
def _(grad, a, *, min, max):
    mask = None
    if min is not None:
        mask = a >= min
    if max is not None:
        m2 = a <= max
        mask = m2 if mask is None else mask & m2
    return grad.where(mask, 0)


@primitive("clamp_tensor", kind="pointwise", expr="min(max(a, lo), hi)", node_name="ClampBackward0")
def clamp_tensor(a, lo, hi, *, has_min=True, has_max=True):
    """``clamp`` with tensor bounds; a missing bound (``has_min``/``has_max`` False) is passed as a
    0-d placeholder of ``a``'s dtype, which changes no promotion and is not read."""
    if a.dtype == np.bool_ and has_min and has_max:  # one-sided bounds on bool work (max/min)
        _not_impl("clamp_cpu", a)
    out = np.maximum(a, lo) if has_min else a
    out = np.minimum(out, hi) if has_max else out
    return out if out is not a else a.copy()


@clamp_tensor.derivative
def _(grad, a, lo, hi, *, has_min, has_max):
    # torch's routing (exact at ties): x gets the gradient inside [lo, hi] (bounds included); lo only
    # where x is below it and lo < hi, hi where x is above it or the bounds cross (lo > hi); a tie
    # lo == hi above x gives it to nobody
    if not has_max:
        return grad.where(a >= lo, 0), grad.where(a < lo, 0), None
    if not has_min:
        return grad.where(a <= hi, 0), None, grad.where(a > hi, 0)
    return (grad.where((a >= lo) & (a <= hi), 0), grad.where((a < lo) & (lo < hi), 0),
            grad.where((a > hi) | (lo > hi), 0))


@primitive("where", kind="pointwise", promote_args=(1, 2), expr="b if c else d")
def where(condition, a, b):
    return np.where(condition, a, b)


@where.meta
def _(condition, a, b):
    from ._meta import where_meta
    return where_meta(condition, a, b)


@where.derivative
def _(grad, condition):
    zero = grad.new_zeros(())
    return None, grad.where(condition, zero), zero.where(condition, grad)


def _comparison(name, ufunc, expr):
    ordering = name in ("lt", "le", "gt", "ge")
    @primitive(name, kind="pointwise", promotion="compare", expr=expr, array_ufunc=ufunc)
    def kernel(a, b):
        if ordering and (_kind(a) == "c" or _kind(b) == "c"):  # NumPy orders complex numbers, torch not
            _not_impl(f"{name}_cpu", a if _kind(a) == "c" else b)
        # NumPy compares an out-of-range Python int exactly; torch first wraps it to the dtype
        if type(b) is int or type(a) is int:
            a, b = _wrap_ints((a, b), strict=False)
        return ufunc(a, b)
    return kernel


eq = _comparison("eq", np.equal, "a == b")
ne = _comparison("ne", np.not_equal, "a != b")
lt = _comparison("lt", np.less, "a < b")
le = _comparison("le", np.less_equal, "a <= b")
gt = _comparison("gt", np.greater, "a > b")
ge = _comparison("ge", np.greater_equal, "a >= b")


def _predicate(name, fn, expr):
    return primitive(name, kind="pointwise", promotion="always_bool", expr=expr)(fn)


def _float_pred(ufunc, fill):
    def kernel(a):
        if a.dtype.kind in "biu":
            return np.full(a.shape, fill)
        return ufunc(a)
    return kernel


isnan = _predicate("isnan", lambda a: np.isnan(a), "isnan(a)")
isinf = _predicate("isinf", _float_pred(np.isinf, False), "isinf(a)")
isfinite = _predicate("isfinite", _float_pred(np.isfinite, True), "isfinite(a)")
isposinf = _predicate("isposinf", _float_pred(np.isposinf, False), "isposinf(a)")
isneginf = _predicate("isneginf", _float_pred(np.isneginf, False), "isneginf(a)")
signbit = _predicate("signbit", lambda a: np.signbit(a) if a.dtype.kind != "b" else np.zeros(a.shape, bool),
                     "signbit(a)")
logical_not = _predicate("logical_not", lambda a: np.logical_not(a), "not a")
logical_and = _predicate("logical_and", lambda a, b: np.logical_and(a, b), "a and b")
logical_or = _predicate("logical_or", lambda a, b: np.logical_or(a, b), "a or b")
logical_xor = _predicate("logical_xor", lambda a, b: np.logical_xor(a, b), "a != b")


def _int_or_bool(name, ufunc, expr):
    @primitive(name, kind="pointwise", expr=expr)
    @_int_wrap
    def kernel(a, b):
        for x in (a, b):
            if _kind(x) not in "biu":
                _not_impl(f"{name}_cpu", x)
        return ufunc(a, b)
    return kernel


bitwise_and = _int_or_bool("bitwise_and", np.bitwise_and, "a & b")
bitwise_or = _int_or_bool("bitwise_or", np.bitwise_or, "a | b")
bitwise_xor = _int_or_bool("bitwise_xor", np.bitwise_xor, "a ^ b")


@primitive("bitwise_not", kind="pointwise", expr="~a")
def bitwise_not(a):
    if a.dtype.kind not in "biu":
        _not_impl("bitwise_not_cpu", a)
    return np.invert(a)


# ----------------------------------------------------------------------------- conversion


@primitive("to_dtype", kind="other", node_name="ToCopyBackward0")
def to_dtype(a, *, dtype, copy=True):
    # float16/bfloat16 arrive already as float32 when the source is low precision
    if dtype is D.complex32 or a.dtype == D.CHALF_NP:
        return C32.cast(a, dtype.np)
    return a.astype(dtype.np, copy=True)


@to_dtype.meta
def _(a, *, dtype, copy=True):
    from ._registry import TensorMeta
    return TensorMeta(tuple(a.shape), dtype)


to_dtype.derivative(lambda grad: grad)


@primitive("conj_physical", kind="pointwise", expr="conj(a)")
def conj_physical(a):
    return np.conj(a)


conj_physical.derivative(lambda grad: grad.conj_physical())
