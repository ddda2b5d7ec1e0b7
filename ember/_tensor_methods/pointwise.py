"""Pointwise methods and Python operators (layer L2).

Most are generated from the primitive they call: ``unary``/``binary`` build ``name``, ``name_`` (in
place) and accept ``out=``; a method is also the public ``ember.<name>`` function.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dispatch import dispatch, dispatch_inplace, dispatch_out, wrap
from ..ops import pointwise as P
from ..overrides import PLAIN_TYPES, handle_torch_function, has_torch_function
from ._args import TensorBase, as_dtype

__all__ = ["PointwiseMixin", "FUNCTIONS"]

PLAIN_TYPES.update((int, float, bool, complex, type(None)))
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


def unary(op, name: str, doc: str = ""):
    def method(input, *, out=None):
        if type(input) not in PLAIN_TYPES and has_torch_function((input,)):
            return handle_torch_function(method, (input,), input, out=out)
        if out is not None:
            return dispatch_out(op, out, input)
        return dispatch(op, input)

    def inplace(input):
        if type(input) not in PLAIN_TYPES and has_torch_function((input,)):
            return handle_torch_function(inplace, (input,), input)
        return dispatch_inplace(op, input)
    method.__doc__ = doc or f"Elementwise ``{name}``; see ``torch.{name}``."
    return _name(method, name), _name(inplace, name + "_")


def binary(op, name: str, doc: str = ""):
    def method(input, other, *, out=None):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            if has_torch_function((input, other)):
                return handle_torch_function(method, (input, other), input, other, out=out)
            other = _other(other)
        if out is not None:
            return dispatch_out(op, out, input, other)
        return dispatch(op, input, other)

    def inplace(input, other):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            if has_torch_function((input, other)):
                return handle_torch_function(inplace, (input, other), input, other)
            other = _other(other)
        return dispatch_inplace(op, input, other)
    method.__doc__ = doc or f"Elementwise ``{name}`` with broadcasting; see ``torch.{name}``."
    return _name(method, name), _name(inplace, name + "_")


def _with_alpha(op, name):
    def method(input, other, *, alpha=1, out=None):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            if has_torch_function((input, other)):
                return handle_torch_function(method, (input, other), input, other, alpha=alpha, out=out)
            other = _other(other)
        if out is not None:
            return dispatch_out(op, out, input, other, alpha=alpha)
        if alpha == 1:
            return dispatch(op, input, other)
        return dispatch(op, input, other, alpha=alpha)

    def inplace(input, other, *, alpha=1):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            if has_torch_function((input, other)):
                return handle_torch_function(inplace, (input, other), input, other, alpha=alpha)
            other = _other(other)
        if alpha == 1:
            return dispatch_inplace(op, input, other)
        return dispatch_inplace(op, input, other, alpha=alpha)
    method.__doc__ = f"``input {'+' if name == 'add' else '-'} alpha * other`` with broadcasting."
    return _name(method, name), _name(inplace, name + "_")


add, add_ = _with_alpha(P.add, "add")
sub, sub_ = _with_alpha(P.sub, "sub")
mul, mul_ = binary(P.mul, "mul")
_true_div, _true_div_ = binary(P.div, "div")
_floor_div, _floor_div_ = binary(P.div_floor, "floor_divide")
_trunc_div, _trunc_div_ = binary(P.div_trunc, "div")
pow, pow_ = binary(P.pow, "pow")
maximum, _ = binary(P.maximum, "maximum")
minimum, _ = binary(P.minimum, "minimum")
eq, eq_ = binary(P.eq, "eq")
ne, ne_ = binary(P.ne, "ne")
lt, lt_ = binary(P.lt, "lt")
le, le_ = binary(P.le, "le")
gt, gt_ = binary(P.gt, "gt")
ge, ge_ = binary(P.ge, "ge")
logical_and, logical_and_ = binary(P.logical_and, "logical_and")
logical_or, logical_or_ = binary(P.logical_or, "logical_or")
logical_xor, logical_xor_ = binary(P.logical_xor, "logical_xor")
bitwise_and, bitwise_and_ = binary(P.bitwise_and, "bitwise_and")
bitwise_or, bitwise_or_ = binary(P.bitwise_or, "bitwise_or")
bitwise_xor, bitwise_xor_ = binary(P.bitwise_xor, "bitwise_xor")

neg, neg_ = unary(P.neg, "neg")
abs, abs_ = unary(P.abs, "abs")
sign, sign_ = unary(P.sign, "sign")
sgn, sgn_ = unary(P.sgn, "sgn")
exp, exp_ = unary(P.exp, "exp")
log, log_ = unary(P.log, "log")
sqrt, sqrt_ = unary(P.sqrt, "sqrt")
rsqrt, rsqrt_ = unary(P.rsqrt, "rsqrt")
tanh, tanh_ = unary(P.tanh, "tanh")
sigmoid, sigmoid_ = unary(P.sigmoid, "sigmoid")
relu, relu_ = unary(P.relu, "relu")
erf, erf_ = unary(P.erf, "erf")
erfinv, erfinv_ = unary(P.erfinv, "erfinv")
sin, sin_ = unary(P.sin, "sin")
cos, cos_ = unary(P.cos, "cos")
isnan, _ = unary(P.isnan, "isnan")
logical_not, logical_not_ = unary(P.logical_not, "logical_not")
bitwise_not, bitwise_not_ = unary(P.bitwise_not, "bitwise_not")
conj_physical, conj_physical_ = unary(P.conj_physical, "conj_physical")

_DIV_OPS = {None: (_true_div, _true_div_), "floor": (_floor_div, _floor_div_),
            "trunc": (_trunc_div, _trunc_div_)}


def div(input, other, *, rounding_mode=None, out=None):
    """``input / other`` (true division; ``rounding_mode`` 'trunc' or 'floor' rounds)."""
    if rounding_mode not in _DIV_OPS:
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{rounding_mode}'")
    return _DIV_OPS[rounding_mode][0](input, other, out=out)


def div_(input, other, *, rounding_mode=None):
    if rounding_mode not in _DIV_OPS:
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{rounding_mode}'")
    return _DIV_OPS[rounding_mode][1](input, other)


def floor_divide(input, other, *, out=None):
    return _floor_div(input, other, out=out)


def clamp(input, min=None, max=None, *, out=None):
    """Clamp every element into ``[min, max]`` (either may be None; tensors allowed)."""
    if type(input) not in PLAIN_TYPES and has_torch_function((input,)):
        return handle_torch_function(clamp, (input,), input, min, max, out=out)
    if isinstance(min, TensorBase) or isinstance(max, TensorBase):
        res = input
        if min is not None:
            res = maximum(res, min if isinstance(min, TensorBase) else res.new_full((), min))
        if max is not None:
            res = minimum(res, max if isinstance(max, TensorBase) else res.new_full((), max))
        if out is not None:
            return out.copy_(res)
        return res
    if out is not None:
        return dispatch_out(P.clamp, out, input, min=min, max=max)
    return dispatch(P.clamp, input, min=min, max=max)


def clamp_(input, min=None, max=None):
    return dispatch_inplace(P.clamp, input, min=min, max=max)


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


def where(condition, input=None, other=None, *, out=None):
    """Elements of ``input`` where ``condition`` is True, else ``other`` (both broadcast)."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    args = (condition, input, other)
    if has_torch_function(args):
        return handle_torch_function(where, args, *args, out=out)
    input, other = _other(input), _other(other)
    if out is not None:
        return dispatch_out(P.where, out, condition, input, other)
    return dispatch(P.where, condition, input, other)


def _rsub(self, other):
    return sub(other, self) if isinstance(other, TensorBase) else dispatch(P.sub, _other(other), self)


def _rdiv(self, other):
    return _true_div(other, self) if isinstance(other, TensorBase) else dispatch(P.div, _other(other), self)


def _rfloordiv(self, other):
    return dispatch(P.div_floor, _other(other), self)


def _rpow(self, other):
    return dispatch(P.pow, _other(other), self)


def _rmod(self, other):
    return dispatch(_remainder_op(), _other(other), self)


def _remainder_op():
    return P.__dict__.get("remainder")


def _float_power_dtype(x):
    return D.complex128 if x.is_complex() else D.float64


class PointwiseMixin:
    __slots__ = ()
    add, add_, sub, sub_, mul, mul_ = add, add_, sub, sub_, mul, mul_
    div, div_, floor_divide = div, div_, floor_divide
    true_divide = _name(lambda input, other, *, out=None: _true_div(input, other, out=out), "true_divide")
    multiply, subtract, divide = mul, sub, div
    pow, pow_, maximum, minimum = pow, pow_, maximum, minimum
    eq, eq_, ne, ne_, lt, lt_, le, le_, gt, gt_, ge, ge_ = eq, eq_, ne, ne_, lt, lt_, le, le_, gt, gt_, ge, ge_
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
    logical_and, logical_and_, logical_or, logical_or_ = logical_and, logical_and_, logical_or, logical_or_
    logical_xor, logical_xor_, logical_not, logical_not_ = logical_xor, logical_xor_, logical_not, logical_not_
    bitwise_and, bitwise_and_, bitwise_or, bitwise_or_ = bitwise_and, bitwise_and_, bitwise_or, bitwise_or_
    bitwise_xor, bitwise_xor_, bitwise_not, bitwise_not_ = bitwise_xor, bitwise_xor_, bitwise_not, bitwise_not_
    neg, neg_, negative, abs, abs_, absolute = neg, neg_, neg, abs, abs_, abs
    sign, sign_, sgn, sgn_ = sign, sign_, sgn, sgn_
    exp, exp_, log, log_, sqrt, sqrt_, rsqrt, rsqrt_ = exp, exp_, log, log_, sqrt, sqrt_, rsqrt, rsqrt_
    tanh, tanh_, sigmoid, sigmoid_, relu, relu_ = tanh, tanh_, sigmoid, sigmoid_, relu, relu_
    erf, erf_, erfinv, erfinv_, sin, sin_, cos, cos_ = erf, erf_, erfinv, erfinv_, sin, sin_, cos, cos_
    isnan = isnan
    conj_physical, conj_physical_ = conj_physical, conj_physical_
    clamp, clamp_, clip, clip_, clamp_min, clamp_max = clamp, clamp_, clamp, clamp_, clamp_min, clamp_max

    def where(self, condition, y):
        return where(condition, self, y)

    # Python operators -------------------------------------------------------------------------
    __add__ = __radd__ = add
    __iadd__ = add_
    __sub__ = sub
    __isub__ = sub_
    __rsub__ = _rsub
    __mul__ = __rmul__ = mul
    __imul__ = mul_
    __truediv__ = _true_div
    __itruediv__ = _true_div_
    __rtruediv__ = _rdiv
    __floordiv__ = _floor_div
    __ifloordiv__ = _floor_div_
    __rfloordiv__ = _rfloordiv
    __pow__ = pow
    __ipow__ = pow_
    __rpow__ = _rpow
    __rmod__ = _rmod
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


FUNCTIONS = dict(
    add=add, sub=sub, subtract=sub, mul=mul, multiply=mul, div=div, divide=div, true_divide=PointwiseMixin.true_divide,
    floor_divide=floor_divide, pow=pow, maximum=maximum, minimum=minimum, eq=eq, ne=ne, lt=lt, le=le,
    gt=gt, ge=ge, greater=gt, greater_equal=ge, less=lt, less_equal=le, not_equal=ne,
    logical_and=logical_and, logical_or=logical_or, logical_xor=logical_xor, logical_not=logical_not,
    bitwise_and=bitwise_and, bitwise_or=bitwise_or, bitwise_xor=bitwise_xor, bitwise_not=bitwise_not,
    neg=neg, negative=neg, abs=abs, absolute=abs, sign=sign, sgn=sgn, exp=exp, log=log, sqrt=sqrt,
    rsqrt=rsqrt, tanh=tanh, sigmoid=sigmoid, relu=relu, erf=erf, erfinv=erfinv, sin=sin, cos=cos,
    isnan=isnan, conj_physical=conj_physical, clamp=clamp, clip=clamp, clamp_min=clamp_min,
    clamp_max=clamp_max, where=where, exp_=exp_, relu_=relu_, sigmoid_=sigmoid_, tanh_=tanh_,
)
