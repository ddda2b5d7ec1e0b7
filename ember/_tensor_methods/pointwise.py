"""Pointwise methods and Python operators (layer L2).

Most are generated from the primitive they call: ``unary``/``binary`` build ``name``, ``name_`` (in
place) and accept ``out=``; a method is also the public ``ember.<name>`` function.

Example:
    >>> import ember
    >>> (ember.tensor([5, -5]) % 3).tolist(), ember.tensor([200], dtype=ember.uint8).add(300).tolist()
    ([2, 1], [244])
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dtype_scalar import as_scalar, checked_scalar
from .._dispatch import dispatch, fast_method, result_dtype, wrap
from .._dispatch_inplace import dispatch_inplace, dispatch_out
from .._errors import dtype_title
from .._primitives import pointwise as P
from ..overrides import PLAIN_TYPES, try_torch_function
from ._args import TensorBase

__all__ = ["PointwiseMixin", "FUNCTIONS"]

_SCALARS = (int, float, bool, complex)


def _name(fn, name):
    fn.__name__ = name
    fn.__qualname__ = f"Tensor.{name}"
    fn.__module__ = "ember._tensor"
    return fn


def _other(x):
    """NumPy arrays and scalars on the right of an operator become tensors / Python scalars."""
    t = type(x)
    if t in _SCALARS or isinstance(x, TensorBase):
        return x
    if isinstance(x, np.ndarray):
        return wrap(np.array(x)) if x.ndim else x.item()
    if isinstance(x, np.generic):
        return x.item()
    return x


def _need_tensor(name, other):
    if not isinstance(other, TensorBase):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")


def unary(op, name: str, doc: str = "", out: bool = True):
    if out:
        def method(input, *, out=None):
            if type(input) not in PLAIN_TYPES:
                r = try_torch_function(method, (input,), input, out=out)
                if r is not NotImplemented:
                    return r
            if out is not None:
                return dispatch_out(op, out, input)
            return dispatch(op, input)
    else:
        def method(input):
            if type(input) not in PLAIN_TYPES:
                r = try_torch_function(method, (input,), input)
                if r is not NotImplemented:
                    return r
            return dispatch(op, input)

    def inplace(input):
        if type(input) not in PLAIN_TYPES:
            r = try_torch_function(inplace, (input,), input)
            if r is not NotImplemented:
                return r
        return dispatch_inplace(op, input)
    method.__doc__ = doc or f"Elementwise ``{name}``; see ``torch.{name}``."
    method = fast_method(op, method)  # rebinds the cell the closure above hands to overrides
    inplace.__doc__ = f"In-place ``{name}``."
    return _name(method, name), _name(inplace, name + "_")


def binary(op, name: str, doc: str = "", tensor_only: bool = False, scalar_op=None):
    """``name(input, other, *, out=None)`` and ``name_``; ``tensor_only`` refuses a scalar ``other``;
    ``scalar_op`` is the primitive used when ``other`` is a Python number (one that saves less)."""
    def method(input, other, *, out=None):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            r = try_torch_function(method, (input, other), input, other, out=out)
            if r is not NotImplemented:
                return r
            other = _other(other)
        if tensor_only:
            _need_tensor(name, other)
        o = scalar_op if scalar_op is not None and not isinstance(other, TensorBase) else op
        if out is not None:
            return dispatch_out(o, out, input, other)
        return dispatch(o, input, other)

    def inplace(input, other):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            r = try_torch_function(inplace, (input, other), input, other)
            if r is not NotImplemented:
                return r
            other = _other(other)
        if tensor_only:
            _need_tensor(name, other)
        o = scalar_op if scalar_op is not None and not isinstance(other, TensorBase) else op
        return dispatch_inplace(o, input, other)
    method.__doc__ = doc or f"Elementwise ``{name}`` with broadcasting; see ``torch.{name}``."
    if scalar_op is None:  # (a scalar ``other`` takes another primitive: the method decides)
        method = fast_method(op, method, accept=_tensors_only if tensor_only else None)
    inplace.__doc__ = f"In-place ``{name}``."
    return _name(method, name), _name(inplace, name + "_")


def _tensors_only(key) -> bool:
    """A fast-path plan key (dtype, 0-d flag per operand) with no Python-scalar operand."""
    return not any(k in _SCALARS for k in key)


def _no_bool(key) -> bool:
    """A fast-path plan key with no bool operand (subtraction refuses bools)."""
    return not any(k is bool or k is D.bool for k in key)


def _is_bool(x) -> bool:
    return x._dtype is D.bool if isinstance(x, TensorBase) else type(x) is bool


def _check_sub(input, other):
    if _is_bool(input) or _is_bool(other):
        if _is_bool(input) and _is_bool(other):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _check_alpha(op, input, other, alpha):
    dt = result_dtype(op, (input, other))[0]
    if type(alpha) is bool:
        if dt is not D.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(alpha, float) and dt.category < 2:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    elif isinstance(alpha, complex) and not dt.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _with_alpha(op, name):
    is_sub = name == "sub"

    def method(input, other, *, alpha=1, out=None):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            r = try_torch_function(method, (input, other), input, other, alpha=alpha, out=out)
            if r is not NotImplemented:
                return r
            other = _other(other)
        if is_sub:
            _check_sub(input, other)
        if type(alpha) is not int or alpha != 1:
            _check_alpha(op, input, other, alpha)
            if out is not None:
                return dispatch_out(op, out, input, other, alpha=alpha)
            return dispatch(op, input, other, alpha=alpha)
        if out is not None:
            return dispatch_out(op, out, input, other)
        return dispatch(op, input, other)

    def inplace(input, other, *, alpha=1):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            r = try_torch_function(inplace, (input, other), input, other, alpha=alpha)
            if r is not NotImplemented:
                return r
            other = _other(other)
        if is_sub:
            _check_sub(input, other)
        if type(alpha) is not int or alpha != 1:
            _check_alpha(op, input, other, alpha)
            return dispatch_inplace(op, input, other, alpha=alpha)
        return dispatch_inplace(op, input, other)
    method.__doc__ = f"``input {'+' if name == 'add' else '-'} alpha * other`` with broadcasting."
    method = fast_method(op, method, accept=_no_bool if is_sub else None)
    inplace.__doc__ = f"In-place ``{name}``."
    return _name(method, name), _name(inplace, name + "_")


add, add_ = _with_alpha(P.add, "add")
sub, sub_ = _with_alpha(P.sub, "sub")
mul, mul_ = binary(P.mul, "mul")
_true_div, _true_div_ = binary(P.div, "div")
floor_divide, floor_divide_ = binary(P.div_floor, "floor_divide")
_trunc_div, _trunc_div_ = binary(P.div_trunc, "div")
remainder, remainder_ = binary(P.remainder, "remainder", "Python's ``%``: the result has the sign of "
                               "``other``.\n\n    >>> ember.remainder(ember.tensor([-3, 3]), 2).tolist()\n"
                               "    [1, 1]")
fmod, fmod_ = binary(P.fmod, "fmod", "C's ``fmod``: the result has the sign of ``input``.")
pow, pow_ = binary(P.pow, "pow", scalar_op=P.pow_tensor_scalar)
maximum, _ = binary(P.maximum, "maximum", tensor_only=True)
minimum, _ = binary(P.minimum, "minimum", tensor_only=True)
atan2, atan2_ = binary(P.atan2, "atan2", tensor_only=True)
logaddexp, _ = binary(P.logaddexp, "logaddexp", tensor_only=True)
logaddexp2, _ = binary(P.logaddexp2, "logaddexp2", tensor_only=True)
hypot, hypot_ = binary(P.hypot, "hypot", tensor_only=True)
eq, eq_ = binary(P.eq, "eq")
ne, ne_ = binary(P.ne, "ne")
lt, lt_ = binary(P.lt, "lt")
le, le_ = binary(P.le, "le")
gt, gt_ = binary(P.gt, "gt")
ge, ge_ = binary(P.ge, "ge")
logical_and, logical_and_ = binary(P.logical_and, "logical_and", tensor_only=True)
logical_or, logical_or_ = binary(P.logical_or, "logical_or", tensor_only=True)
logical_xor, logical_xor_ = binary(P.logical_xor, "logical_xor", tensor_only=True)
bitwise_and, bitwise_and_ = binary(P.bitwise_and, "bitwise_and")
bitwise_or, bitwise_or_ = binary(P.bitwise_or, "bitwise_or")
bitwise_xor, bitwise_xor_ = binary(P.bitwise_xor, "bitwise_xor")

_UNARY = ("neg", "abs", "sign", "sgn", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
          "rsqrt", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
          "asinh", "acosh", "atanh", "sigmoid", "erf", "erfc", "erfinv", "floor", "ceil", "trunc", "frac",
          "logical_not", "bitwise_not", "conj_physical", "isnan", "isinf", "isfinite", "isposinf",
          "isneginf", "signbit")
_NO_OUT = ("isnan", "isinf", "isfinite", "relu")
_UNARY_FNS = {}
for _n in _UNARY + ("relu",):
    _UNARY_FNS[_n], _UNARY_FNS[_n + "_"] = unary(getattr(P, _n), _n, out=_n not in _NO_OUT)
globals().update(_UNARY_FNS)
_PREDICATES = ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit")
for _n in _PREDICATES:
    del _UNARY_FNS[_n + "_"]  # torch has no in-place predicates
del _n

_DIV_OPS = {None: (_true_div, _true_div_), "floor": (floor_divide, floor_divide_),
            "trunc": (_trunc_div, _trunc_div_)}


def _rounding_mode(mode):
    if mode not in _DIV_OPS:
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{mode}'")
    return _DIV_OPS[mode]


def div(input, other, *, rounding_mode=None, out=None):
    """``input / other`` (true division; ``rounding_mode`` 'trunc' or 'floor' rounds)."""
    return _rounding_mode(rounding_mode)[0](input, other, out=out)


def div_(input, other, *, rounding_mode=None):
    """In-place ``div``."""
    return _rounding_mode(rounding_mode)[1](input, other)


def true_divide(input, other, *, out=None):
    """``input / other`` (always true division)."""
    return _true_div(input, other, out=out)


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return sub(other, input, alpha=alpha) if isinstance(other, TensorBase) else \
        dispatch(P.sub, _other(other), input, **({} if alpha == 1 else {"alpha": alpha}))


def round(input, *, decimals=0, out=None):
    """Round half to even; ``decimals`` rounds to that many decimal digits (floats only)."""
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(round, (input,), input, decimals=decimals, out=out)
        if r is not NotImplemented:
            return r
    kw = {"decimals": decimals} if decimals else {}
    if out is not None:
        return dispatch_out(P.round, out, input, **kw)
    return dispatch(P.round, input, **kw)


def round_(input, *, decimals=0):
    """In-place ``round``."""
    return dispatch_inplace(P.round, input, **({"decimals": decimals} if decimals else {}))


def square(input, *, out=None):
    """``input ** 2`` (bool squares to int64, as in torch)."""
    return pow(input, 2, out=out)


def square_(input):
    """In-place ``square``."""
    return pow_(input, 2)


def _float_power_dtype(*xs):
    return D.complex128 if any(isinstance(x, TensorBase) and x.is_complex() or type(x) is complex
                               for x in xs) else D.float64


def _as(x, dt):
    return x.to(dt) if isinstance(x, TensorBase) and x._dtype is not dt else x


def float_power(input, exponent, *, out=None):
    """``input ** exponent`` computed in double precision (float64 or complex128)."""
    dt = _float_power_dtype(input, exponent)
    return pow(_as(input, dt), _as(exponent, dt), out=out)


def float_power_(input, exponent):
    """In-place ``float_power``; ``input`` must already be float64 (complex128)."""
    dt = _float_power_dtype(input, exponent)
    if input._dtype is not dt:
        raise RuntimeError(f"the base given to float_power_ has dtype {dtype_title(input._dtype)} but "
                           f"the operation's result requires dtype {dtype_title(dt)}")
    return pow_(input, _as(exponent, dt))


def _clamp_dtype(input, min, max):
    key = ((input._dtype, input.dim() == 0),) + tuple(type(v) for v in (min, max) if v is not None)
    return D.result_type_of(key)


def _clamp_bounds(input, dt, min, max):
    """The result dtype and the number bounds converted into it with torch's checks (uint8: -1 ->
    255, float16: 70000 overflows). Complex inputs, or complex bounds of integer inputs, are refused;
    a complex bound of a floating input converts as a double (its imaginary part must be 0)."""
    if min is None and max is None:
        return dt, min, max
    min, max = (v if v is None else as_scalar(v) for v in (min, max))  # Python ints beyond a Scalar
    if dt.is_complex:
        if input._dtype.is_complex or not input._dtype.is_floating_point:
            raise NotImplementedError("clamp is not supported for complex types")
        dt = input._dtype
        min, max = (v if not isinstance(v, complex) else checked_scalar(v, D.float64) for v in (min, max))
    if dt is D.bool:
        return dt, min, max  # the kernel refuses bool
    return dt, *(v if v is None else checked_scalar(v, dt) for v in (min, max))


def clamp(input, min=None, max=None, *, out=None):
    """Clamp every element into ``[min, max]`` (either may be None; tensors allowed)."""
    if not (type(input) in PLAIN_TYPES and type(min) in PLAIN_TYPES and type(max) in PLAIN_TYPES):
        r = try_torch_function(clamp, (input, min, max), input, min, max, out=out)
        if r is not NotImplemented:
            return r
    if isinstance(min, TensorBase) or isinstance(max, TensorBase):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        if not all(v is None or isinstance(v, TensorBase) for v in (min, max)):
            got = ", ".join(type(v).__name__ if not isinstance(v, TensorBase) else "Tensor"
                            for v in (input, min, max))
            raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but "
                            "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, "
                            "Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, "
                            "*, Tensor out = None)\n")
        lo, hi = min, max
        holder = input.new_empty(())
        res = dispatch(P.clamp_tensor, input, holder if lo is None else lo, holder if hi is None else hi,
                       has_min=lo is not None, has_max=hi is not None)
        return out.copy_(res) if out is not None else res
    dt, min, max = _clamp_bounds(input, _clamp_dtype(input, min, max), min, max)
    if dt is not input._dtype:
        input = input.to(dt)
    if out is not None:
        return dispatch_out(P.clamp, out, input, min=min, max=max)
    return dispatch(P.clamp, input, min=min, max=max)


def clamp_(input, min=None, max=None):
    """In-place ``clamp``."""
    if isinstance(min, TensorBase) or isinstance(max, TensorBase):
        return input.copy_(clamp(input, min, max))
    dt = _clamp_dtype(input, min, max)
    if dt is not input._dtype and not D.can_cast(dt, input._dtype):
        raise RuntimeError(f"result type {dtype_title(dt)} can't be cast to the desired output type "
                           f"{dtype_title(input._dtype)}")
    dt, min, max = _clamp_bounds(input, dt, min, max)
    return dispatch_inplace(P.clamp, input, min=min, max=max)


def clamp_min(input, min, *, out=None):
    """``clamp(input, min=min)``."""
    return clamp(input, min, None, out=out)


def clamp_max(input, max, *, out=None):
    """``clamp(input, max=max)``."""
    return clamp(input, None, max, out=out)


def clamp_min_(input, min):
    return clamp_(input, min, None)


def clamp_max_(input, max):
    return clamp_(input, None, max)


def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` is True, else ``other`` (both broadcast)."""
    if input is None and other is None:
        if type(condition) not in PLAIN_TYPES:  # a mode sees ``where(c)`` too
            r = try_torch_function(where, (condition,), condition)
            if r is not NotImplemented:
                return r
        return condition.nonzero(as_tuple=True)
    args = (condition, input, other)
    r = try_torch_function(where, args, *args, out=out)
    if r is not NotImplemented:
        return r
    if condition._dtype is not D.bool:
        if condition._dtype is not D.uint8:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                               f"dtype {dtype_title(condition._dtype)}")
        condition = condition.to(D.bool)
    input, other = _other(input), _other(other)
    if out is not None:
        return dispatch_out(P.where, out, condition, input, other)
    return dispatch(P.where, condition, input, other)


_LERP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
               "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int"}


def _lerp_check(input, end, weight):
    _need_tensor("lerp", end)
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, TensorBase) and t._dtype is not input._dtype and (name == "end" or t.dim()):
            raise RuntimeError(f"expected dtype {_LERP_NAMES.get(input._dtype.name, input._dtype.name)} "
                               f"for `{name}` but got dtype {_LERP_NAMES.get(t._dtype.name, t._dtype.name)}")


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)``; ``weight`` is a scalar or a tensor."""
    args = (input, end, weight)
    r = try_torch_function(lerp, args, *args, out=out)
    if r is not NotImplemented:
        return r
    _lerp_check(input, end, weight)
    weight = _other(weight)
    if out is not None:
        return dispatch_out(P.lerp, out, input, end, weight)
    return dispatch(P.lerp, input, end, weight)


def lerp_(input, end, weight):
    """In-place ``lerp``."""
    _lerp_check(input, end, weight)
    return dispatch_inplace(P.lerp, input, end, _other(weight))


def _addc(op, name):
    def method(input, tensor1, tensor2, *, value=1, out=None):
        args = (input, tensor1, tensor2)
        r = try_torch_function(method, args, *args, value=value, out=out)
        if r is not NotImplemented:
            return r
        kw = {} if value == 1 else {"value": value}
        if out is not None:
            return dispatch_out(op, out, input, tensor1, tensor2, **kw)
        return dispatch(op, input, tensor1, tensor2, **kw)

    def inplace(input, tensor1, tensor2, *, value=1):
        kw = {} if value == 1 else {"value": value}
        return dispatch_inplace(op, input, tensor1, tensor2, **kw)
    sign = "*" if name == "addcmul" else "/"
    method.__doc__ = f"``input + value * tensor1 {sign} tensor2`` with broadcasting."
    inplace.__doc__ = f"In-place ``{name}`` (used by optimizers)."
    return _name(method, name), _name(inplace, name + "_")


addcmul, addcmul_ = _addc(P.addcmul, "addcmul")
addcdiv, addcdiv_ = _addc(P.addcdiv, "addcdiv")


def _nan_to_num_args(input, nan, posinf, neginf):
    if input.is_floating_point():
        info = D.finfo(input._dtype)
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
    return {"nan": 0.0 if nan is None else nan, "posinf": posinf, "neginf": neginf}


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """NaN -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (defaults: 0 and the dtype's limits)."""
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(nan_to_num, (input,), input, nan, posinf, neginf, out=out)
        if r is not NotImplemented:
            return r
    kw = _nan_to_num_args(input, nan, posinf, neginf)
    if out is not None:
        return dispatch_out(P.nan_to_num, out, input, **kw)
    return dispatch(P.nan_to_num, input, **kw)


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """In-place ``nan_to_num``."""
    return dispatch_inplace(P.nan_to_num, input, **_nan_to_num_args(input, nan, posinf, neginf))


def _rsub(self, other):
    _check_sub(other, self)
    return sub(other, self) if isinstance(other, TensorBase) else dispatch(P.sub, _other(other), self)


def _rdiv(self, other):
    return _true_div(other, self) if isinstance(other, TensorBase) else dispatch(P.div, _other(other), self)


def _operator(op, method, accept=None):
    """``self <op> other`` on the fast path without the method's keyword flags to check."""
    def operator(self, other):
        return method(self, other)
    operator.__name__ = operator.__qualname__ = method.__name__
    return fast_method(op, operator, accept=accept)


_add_op, _sub_op = _operator(P.add, add), _operator(P.sub, sub, accept=_no_bool)
_mul_op, _div_op = _operator(P.mul, mul), _operator(P.div, _true_div)

# ``1 - x`` and ``1 / x`` on the fast path: the op's inputs are (other, self)
_rsub = fast_method(P.sub, _rsub, swap=True, accept=_no_bool)
_rdiv = fast_method(P.div, _rdiv, swap=True)


def _rfloordiv(self, other):
    return dispatch(P.div_floor, _other(other), self)


def _rpow(self, other):
    return dispatch(P.pow, _other(other), self)


def _scalar_exponent(key) -> bool:
    """A fast-path plan key of ``tensor ** <Python number>`` (pow_tensor_scalar's case)."""
    return key[0] not in _SCALARS and key[1] in _SCALARS


# ``x ** 2`` and ``2 ** x`` on the fast path (a tensor exponent takes ``pow``, the method)
_pow_op = _operator(P.pow_tensor_scalar, pow, accept=_scalar_exponent)
_rpow = fast_method(P.pow, _rpow, swap=True)


def _rmod(self, other):
    return dispatch(P.remainder, _other(other), self)


class PointwiseMixin:
    __slots__ = ()
    add, add_, sub, sub_, mul, mul_ = add, add_, sub, sub_, mul, mul_
    div, div_, floor_divide, floor_divide_, true_divide = div, div_, floor_divide, floor_divide_, true_divide
    multiply, multiply_, subtract, subtract_, divide, divide_ = mul, mul_, sub, sub_, div, div_
    remainder, remainder_, fmod, fmod_ = remainder, remainder_, fmod, fmod_
    pow, pow_, float_power, float_power_, square, square_ = pow, pow_, float_power, float_power_, square, square_
    maximum, minimum, atan2, atan2_, arctan2, arctan2_ = maximum, minimum, atan2, atan2_, atan2, atan2_
    logaddexp, logaddexp2, hypot, hypot_ = logaddexp, logaddexp2, hypot, hypot_
    eq, eq_, ne, ne_, lt, lt_, le, le_, gt, gt_, ge, ge_ = eq, eq_, ne, ne_, lt, lt_, le, le_, gt, gt_, ge, ge_
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
    greater_, greater_equal_, less_, less_equal_, not_equal_ = gt_, ge_, lt_, le_, ne_
    true_divide_ = _true_div_
    logical_and, logical_and_, logical_or, logical_or_ = logical_and, logical_and_, logical_or, logical_or_
    logical_xor, logical_xor_ = logical_xor, logical_xor_
    bitwise_and, bitwise_and_, bitwise_or, bitwise_or_ = bitwise_and, bitwise_and_, bitwise_or, bitwise_or_
    bitwise_xor, bitwise_xor_ = bitwise_xor, bitwise_xor_
    negative, negative_, absolute, absolute_ = neg, neg_, abs, abs_
    arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
    arcsin_, arccos_, arctan_, arcsinh_, arccosh_, arctanh_ = asin_, acos_, atan_, asinh_, acosh_, atanh_
    fix, fix_ = trunc, trunc_
    round, round_, nan_to_num, nan_to_num_ = round, round_, nan_to_num, nan_to_num_
    lerp, lerp_, addcmul, addcmul_, addcdiv, addcdiv_ = lerp, lerp_, addcmul, addcmul_, addcdiv, addcdiv_
    clamp, clamp_, clip, clip_ = clamp, clamp_, clamp, clamp_
    clamp_min, clamp_max, clamp_min_, clamp_max_ = clamp_min, clamp_max, clamp_min_, clamp_max_

    def where(self, condition, y):
        return where(condition, self, y)

    # Python operators -------------------------------------------------------------------------
    __add__ = __radd__ = _add_op
    __iadd__ = add_
    __sub__ = _sub_op
    __isub__ = sub_
    __rsub__ = _rsub
    __mul__ = __rmul__ = _mul_op
    __imul__ = mul_
    __truediv__ = _div_op
    __itruediv__ = _true_div_
    __rtruediv__ = __rdiv__ = _rdiv
    __floordiv__ = floor_divide
    __ifloordiv__ = floor_divide_
    __rfloordiv__ = _rfloordiv
    __mod__ = remainder
    __imod__ = remainder_
    __rmod__ = _rmod
    __pow__ = _pow_op
    __ipow__ = pow_
    __rpow__ = _rpow
    __neg__ = neg
    __abs__ = abs
    __eq__ = eq
    __ne__ = ne
    __lt__ = lt
    __le__ = le
    __gt__ = gt
    __ge__ = ge
    __and__ = __rand__ = bitwise_and
    __or__ = __ror__ = bitwise_or
    __xor__ = __rxor__ = bitwise_xor
    __iand__ = bitwise_and_
    __ior__ = bitwise_or_
    __ixor__ = bitwise_xor_
    __invert__ = bitwise_not

    def __pos__(self):
        return self


for _n, _f in _UNARY_FNS.items():
    setattr(PointwiseMixin, _n, _f)
del _n, _f


_IN_PLACE_FUNCTIONS = ("exp_", "relu_", "sigmoid_", "tanh_", "abs_", "neg_", "sqrt_", "rsqrt_", "log_",
                       "sin_", "cos_", "floor_", "ceil_", "trunc_", "round_", "clamp_", "clip_",
                       "reciprocal_", "erf_", "erfinv_", "square_", "nan_to_num_", "fix_", "negative_",
                       "clamp_min_", "clamp_max_", "exp2_", "expm1_", "log1p_", "log2_", "log10_",
                       "atan_", "asin_", "acos_", "sinh_", "cosh_", "frac_", "sgn_", "sign_", "fmod_",
                       "remainder_", "lerp_", "addcmul_", "addcdiv_", "logical_not_", "bitwise_not_",
                       "acosh_", "asinh_", "atanh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
                       "arctan_", "arctanh_", "erfc_", "tan_", "conj_physical_")

FUNCTIONS = {n: f for n, f in _UNARY_FNS.items() if not n.endswith("_")}
FUNCTIONS.update(
    add=add, sub=sub, subtract=sub, mul=mul, multiply=mul, div=div, divide=div, true_divide=true_divide,
    floor_divide=floor_divide, remainder=remainder, fmod=fmod, rsub=rsub, pow=pow, float_power=float_power,
    square=square, maximum=maximum, minimum=minimum, atan2=atan2, arctan2=atan2, logaddexp=logaddexp,
    logaddexp2=logaddexp2, hypot=hypot, eq=eq, ne=ne, lt=lt, le=le, gt=gt, ge=ge, greater=gt,
    greater_equal=ge, less=lt, less_equal=le, not_equal=ne, logical_and=logical_and,
    logical_or=logical_or, logical_xor=logical_xor, bitwise_and=bitwise_and, bitwise_or=bitwise_or,
    bitwise_xor=bitwise_xor, negative=neg, absolute=abs, arcsin=asin, arccos=acos, arctan=atan,
    arcsinh=asinh, arccosh=acosh, arctanh=atanh, fix=trunc, round=round, nan_to_num=nan_to_num,
    lerp=lerp, addcmul=addcmul, addcdiv=addcdiv, clamp=clamp, clip=clamp, clamp_min=clamp_min,
    clamp_max=clamp_max, where=where,
)
FUNCTIONS.update({n: PointwiseMixin.__dict__[n] for n in _IN_PLACE_FUNCTIONS})
