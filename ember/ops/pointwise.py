"""Pointwise primitives (layer L1): kernel, derivative and fusable expression, one block each.

The family supplies broadcasting, torch's dtype promotion (``promotion=``), float16/bfloat16 computed
in float32, in-place and ``out=`` variants, and the summing of gradients over broadcast dims.
Derivatives are written in ember ops (Tensor methods), so they are differentiable again.
"""
from __future__ import annotations

import numpy as np

from ._registry import primitive
from ._special import special as _sp

# ----------------------------------------------------------------------------- arithmetic


@primitive("add", kind="pointwise", expr="a + alpha * b")
def add(a, b, *, alpha=1):
    return np.add(a, b) if alpha == 1 else np.add(a, np.multiply(b, alpha))


@add.derivative
def _(grad, *, alpha):
    return grad, (grad if alpha == 1 else grad * alpha)


@primitive("sub", kind="pointwise", expr="a - alpha * b")
def sub(a, b, *, alpha=1):
    return np.subtract(a, b) if alpha == 1 else np.subtract(a, np.multiply(b, alpha))


@sub.derivative
def _(grad, *, alpha):
    return grad, (-grad if alpha == 1 else grad * -alpha)


@primitive("mul", kind="pointwise", expr="a * b")
def mul(a, b):
    return np.multiply(a, b)


@mul.derivative
def _(grad, a, b):
    return grad * _conj(b), grad * _conj(a)


def _conj(x):
    return x.conj() if hasattr(x, "conj") and x.is_complex() else x


@primitive("div", kind="pointwise", promotion="int_to_float", expr="a / b")
def div(a, b):
    return np.true_divide(a, b)


@div.derivative
def _(grad, a, b):
    gb = None
    if hasattr(b, "shape"):
        gb = -grad * _conj(a) / _conj(b * b)
    return grad / _conj(b), gb


@primitive("div_floor", kind="pointwise", node_name="DivBackward1", expr="floor(a / b)")
def div_floor(a, b):
    if np.issubdtype(np.result_type(a), np.integer) and np.issubdtype(np.result_type(b), np.integer):
        if np.any(np.asarray(b) == 0):
            raise ZeroDivisionError("ZeroDivisionError")
        return np.floor_divide(a, b)
    return np.floor(np.true_divide(a, b))


@div_floor.derivative
def _(grad, a, b):
    return grad * 0, (grad * 0 if hasattr(b, "shape") else None)


@primitive("div_trunc", kind="pointwise", node_name="DivBackward1", expr="trunc(a / b)")
def div_trunc(a, b):
    if np.issubdtype(np.result_type(a), np.integer) and np.issubdtype(np.result_type(b), np.integer):
        if np.any(np.asarray(b) == 0):
            raise ZeroDivisionError("ZeroDivisionError")
        q = np.floor_divide(a, b)
        fix = (np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
        return q + fix.astype(q.dtype)
    return np.trunc(np.true_divide(a, b))


@div_trunc.derivative
def _(grad, a, b):
    return grad * 0, (grad * 0 if hasattr(b, "shape") else None)


@primitive("neg", kind="pointwise", expr="-a")
def neg(a):
    if a.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return np.negative(a)


@neg.derivative
def _(grad):
    return -grad


@primitive("pow", kind="pointwise", expr="a ** b")
def pow(a, b):
    if (isinstance(b, (int, np.integer)) or (hasattr(b, "dtype") and np.issubdtype(b.dtype, np.integer))) \
            and np.issubdtype(np.result_type(a), np.integer) and np.any(np.asarray(b) < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return np.power(a, b)


@pow.derivative
def _(grad, a, b, out):
    if not hasattr(b, "shape"):  # scalar exponent
        if b == 0:
            return grad * 0, None
        return grad * b * _conj(a ** (b - 1)), None
    ga = grad * _conj(b * a ** (b - 1))
    gb = grad * _conj(out * a.log())
    gb = gb.masked_fill((a == 0) & (b.real >= 0 if b.is_complex() else b >= 0), 0)
    return ga, gb


@primitive("abs", kind="pointwise", promotion="complex_to_float", expr="abs(a)")
def abs(a):
    return np.abs(a)


@abs.derivative
def _(grad, a):
    return grad * a.sgn()


@primitive("sign", kind="pointwise", expr="sign(a)")
def sign(a):
    if a.dtype == np.bool_:
        return a.copy()
    return np.sign(a)


@sign.derivative
def _(grad):
    return grad * 0


@primitive("sgn", kind="pointwise", expr="sgn(a)")
def sgn(a):
    if np.iscomplexobj(a):
        mag = np.abs(a)
        return np.where(mag == 0, 0, a / np.where(mag == 0, 1, mag)).astype(a.dtype)
    return np.sign(a)


@sgn.derivative
def _(grad, a, out):
    if not a.is_complex():
        return grad * 0
    mag = a.abs()
    return ((grad - (out * _conj(grad)).real * out) / mag).masked_fill(mag == 0, 0) * 0.5 * 2


# ----------------------------------------------------------------------------- transcendental


@primitive("exp", kind="pointwise", promotion="int_to_float", expr="exp(a)")
def exp(a):
    return np.exp(a)


@exp.derivative
def _(grad, out):
    return grad * _conj(out)


@primitive("log", kind="pointwise", promotion="int_to_float", expr="log(a)")
def log(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(a)


@log.derivative
def _(grad, a):
    return grad / _conj(a)


@primitive("sqrt", kind="pointwise", promotion="int_to_float", expr="sqrt(a)")
def sqrt(a):
    with np.errstate(invalid="ignore"):
        return np.sqrt(a)


@sqrt.derivative
def _(grad, out):
    return grad / (2 * _conj(out))


@primitive("rsqrt", kind="pointwise", promotion="int_to_float", expr="1 / sqrt(a)")
def rsqrt(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.reciprocal(np.sqrt(a))


@rsqrt.derivative
def _(grad, out):
    return grad * _conj(out * out * out) * -0.5


@primitive("tanh", kind="pointwise", promotion="int_to_float", expr="tanh(a)")
def tanh(a):
    return np.tanh(a)


@tanh.derivative
def _(grad, out):
    return grad * _conj(1 - out * out)


@primitive("sigmoid", kind="pointwise", promotion="int_to_float", expr="1 / (1 + exp(-a))")
def sigmoid(a):
    if np.iscomplexobj(a):
        return 1 / (1 + np.exp(-a))
    return _sp().expit(a)


@sigmoid.derivative
def _(grad, out):
    return grad * _conj(out * (1 - out))


@primitive("relu", kind="pointwise", expr="max(a, 0)")
def relu(a):
    if a.dtype == np.bool_:
        raise RuntimeError('"clamp_min_cpu" not implemented for \'Bool\'')
    return np.maximum(a, 0, dtype=a.dtype)


@relu.derivative
def _(grad, out):
    return grad * (out > 0)


@primitive("erf", kind="pointwise", promotion="int_to_float", expr="erf(a)")
def erf(a):
    return _sp().erf(a)


@erf.derivative
def _(grad, a):
    return grad * (2.0 / np.sqrt(np.pi)) * (-(a * a)).exp()


@primitive("erfinv", kind="pointwise", promotion="int_to_float", expr="erfinv(a)")
def erfinv(a):
    return _sp().erfinv(a)


@erfinv.derivative
def _(grad, out):
    return grad * (np.sqrt(np.pi) / 2.0) * (out * out).exp()


@primitive("sin", kind="pointwise", promotion="int_to_float", expr="sin(a)")
def sin(a):
    return np.sin(a)


@sin.derivative
def _(grad, a):
    return grad * _conj(a.cos())


@primitive("cos", kind="pointwise", promotion="int_to_float", expr="cos(a)")
def cos(a):
    return np.cos(a)


@cos.derivative
def _(grad, a):
    return grad * -_conj(a.sin())


# ----------------------------------------------------------------------------- comparison, select


@primitive("maximum", kind="pointwise", expr="max(a, b)")
def maximum(a, b):
    return np.maximum(a, b)


@maximum.derivative
def _(grad, a, b):
    pick_a = (a > b) + (a == b) * 0.5
    return grad * pick_a, grad * (1 - pick_a)


@primitive("minimum", kind="pointwise", expr="min(a, b)")
def minimum(a, b):
    return np.minimum(a, b)


@minimum.derivative
def _(grad, a, b):
    pick_a = (a < b) + (a == b) * 0.5
    return grad * pick_a, grad * (1 - pick_a)


@primitive("clamp", kind="pointwise", promote_args=(0,), expr="min(max(a, lo), hi)")
def clamp(a, *, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    out = a
    if min is not None:
        out = np.maximum(out, np.asarray(min).astype(a.dtype) if np.ndim(min) else min)
    if max is not None:
        out = np.minimum(out, np.asarray(max).astype(a.dtype) if np.ndim(max) else max)
    return out if out is not a else a.copy()


@clamp.derivative
def _(grad, a, *, min, max):
    mask = None
    if min is not None:
        mask = a >= min
    if max is not None:
        m2 = a <= max
        mask = m2 if mask is None else mask & m2
    return grad * mask


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
    @primitive(name, kind="pointwise", promotion="compare", expr=expr)
    def kernel(a, b):
        return ufunc(a, b)
    kernel.kernel.__name__ = name
    return kernel


eq = _comparison("eq", np.equal, "a == b")
ne = _comparison("ne", np.not_equal, "a != b")
lt = _comparison("lt", np.less, "a < b")
le = _comparison("le", np.less_equal, "a <= b")
gt = _comparison("gt", np.greater, "a > b")
ge = _comparison("ge", np.greater_equal, "a >= b")


@primitive("isnan", kind="pointwise", promotion="always_bool", expr="isnan(a)")
def isnan(a):
    return np.isnan(a)


@primitive("logical_not", kind="pointwise", promotion="always_bool", expr="not a")
def logical_not(a):
    return np.logical_not(a)


@primitive("logical_and", kind="pointwise", promotion="always_bool", expr="a and b")
def logical_and(a, b):
    return np.logical_and(a, b)


@primitive("logical_or", kind="pointwise", promotion="always_bool", expr="a or b")
def logical_or(a, b):
    return np.logical_or(a, b)


@primitive("logical_xor", kind="pointwise", promotion="always_bool", expr="a != b")
def logical_xor(a, b):
    return np.logical_xor(a, b)


def _int_or_bool(name, ufunc, expr):
    @primitive(name, kind="pointwise", expr=expr)
    def kernel(a, b):
        for x in (a, b):
            dt = np.result_type(x)
            if dt.kind not in "biu":
                raise RuntimeError(f'"{name}_cpu" not implemented for \'{_title(dt)}\'')
        return ufunc(a, b)
    return kernel


def _title(npdt):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(str(npdt), str(npdt))


bitwise_and = _int_or_bool("bitwise_and", np.bitwise_and, "a & b")
bitwise_or = _int_or_bool("bitwise_or", np.bitwise_or, "a | b")
bitwise_xor = _int_or_bool("bitwise_xor", np.bitwise_xor, "a ^ b")


@primitive("bitwise_not", kind="pointwise", expr="~a")
def bitwise_not(a):
    if a.dtype.kind not in "biu":
        raise RuntimeError(f'"bitwise_not_cpu" not implemented for \'{_title(a.dtype)}\'')
    return np.invert(a)


# ----------------------------------------------------------------------------- conversion


@primitive("to_dtype", kind="other", node_name="ToCopyBackward0")
def to_dtype(a, *, dtype, copy=True):
    # float16/bfloat16 arrive already as float32 when the source is low precision
    return a.astype(dtype.np, copy=True)


@to_dtype.meta
def _(a, *, dtype, copy=True):
    from ._registry import TensorMeta
    return TensorMeta(tuple(a.shape), dtype)


@to_dtype.derivative
def _(grad):
    return grad


@primitive("conj_physical", kind="pointwise", expr="conj(a)")
def conj_physical(a):
    return np.conj(a)


@conj_physical.derivative
def _(grad):
    return grad.conj_physical()


@primitive("real", kind="pointwise", promotion="complex_to_float", node_name="RealBackward0")
def real(a):
    return np.real(a).copy()


@real.derivative
def _(grad):
    return grad


@primitive("imag", kind="pointwise", promotion="complex_to_float", node_name="ImagBackward0")
def imag(a):
    return np.imag(a).copy()


@imag.derivative
def _(grad):
    return grad * 1j
