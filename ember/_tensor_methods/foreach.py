"""Foreach functions (layer L2): ``ember._foreach_add_(params, grads, alpha=-lr)`` and friends.

Each runs one foreach primitive over the whole list. In-place variants write into every tensor,
bump its version counter and return the list they were given; out-of-place ones return a tuple, as
torch does. With grad mode on and a tensor requiring grad, the per-tensor ops run instead, so
autograd is recorded (or torch's in-place-on-leaf error is raised).

Example:
    >>> import ember
    >>> ps = [ember.ones(2), ember.ones(3)]
    >>> _ = ember._foreach_add_(ps, [ember.ones(2), ember.ones(3)], alpha=-0.5)
    >>> ps[1]
    tensor([0.5000, 0.5000, 0.5000])
"""
from __future__ import annotations

import numbers

from .._dispatch import dispatch
from ..autograd.grad_mode import STATE
from .._primitives import foreach as F
from ._args import TensorBase

__all__ = ["ForeachMixin", "FUNCTIONS"]

_SCALARS = (bool, int, float, complex)


def _bad_args(name, *args):
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got})")


def _all_tensors(x) -> bool:
    # a plain loop: a generator under all() costs a frame resume per element (lists of 100s)
    for t in x:
        if not isinstance(t, TensorBase):
            return False
        if t.is_quantized:  # foreach ops have no quantized kernels (they never see the raw integers)
            raise NotImplementedError("Could not run foreach ops with arguments from the "
                                      "'QuantizedCPU' backend.")
    return True


def _tensors(name, x, *rest):
    if type(x) is not list and type(x) is not tuple or not _all_tensors(x):
        raise _bad_args(name, x, *rest)
    if not x:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return list(x)


def _same_len(a, b):
    if len(a) != len(b):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(a)} and {len(b)}")


def _other(name, tensors, other):
    """Normalise the second operand: a scalar, a list of scalars, one 0-d tensor or a tensor list."""
    if type(other) in _SCALARS:
        return other
    if isinstance(other, TensorBase):
        if other.dim() != 0:
            raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions "
                               f"and {other.numel()} elements.")
        return other
    if type(other) in (list, tuple):
        if other and _all_tensors(other):
            _same_len(tensors, other)
            return list(other)
        if all(isinstance(o, numbers.Number) for o in other):
            if len(other) != len(tensors):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
            return list(other)
    if isinstance(other, numbers.Number):
        return other
    raise _bad_args(name, tensors, other)


def _scalar_values(value, n):
    """``value=`` of addcmul/addcdiv: a scalar, a list of scalars, or a 1-D tensor of scalars."""
    if isinstance(value, TensorBase):
        if value.dim() != 1:
            raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got {value.dim()} "
                               f"instead.")
        value = value.tolist()
    if type(value) in (list, tuple):
        if len(value) != n:
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(value)
    return value


def _needs_autograd(*lists) -> bool:
    if not STATE.enabled:
        return False
    for lst in lists:
        if type(lst) is list:
            for t in lst:
                if isinstance(t, TensorBase) and t._requires_grad:
                    return True
        elif isinstance(lst, TensorBase) and lst._requires_grad:
            return True
    return False


def _bump(tensors):
    for t in tensors:
        t._version_cell().value += 1


def _at(x, i):
    return x[i] if type(x) is list else x


def _name(fn, name):
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "ember"
    return fn


# ------------------------------------------------------------------------------ binary
def _alpha_allowed(alpha_ok, other) -> bool:
    """torch's overloads: alpha= with a tensor list (add, sub) or one tensor (add only)."""
    if type(other) is list and isinstance(other[0], TensorBase):
        return bool(alpha_ok)
    return alpha_ok == "tensor" and isinstance(other, TensorBase)


def _binary(name, op, op_, method, alpha_ok):
    def fn(self, other, *, alpha=1):
        tensors = _tensors(f"_foreach_{name}", self, other)
        other = _other(f"_foreach_{name}", tensors, other)
        if alpha != 1 and not _alpha_allowed(alpha_ok, other):
            raise _bad_args(f"_foreach_{name}", self, other)
        if _needs_autograd(tensors, other):
            return tuple(method(t, _at(other, i), alpha) for i, t in enumerate(tensors))
        params = {"alpha": alpha} if alpha != 1 else {}
        return tuple(dispatch(op, tensors, other, **params))

    def fn_(self, other, *, alpha=1):
        tensors = _tensors(f"_foreach_{name}_", self, other)
        other = _other(f"_foreach_{name}_", tensors, other)
        if alpha != 1 and not _alpha_allowed(alpha_ok, other):
            raise _bad_args(f"_foreach_{name}_", self, other)
        if _needs_autograd(tensors, other):
            for i, t in enumerate(tensors):
                method(t, _at(other, i), alpha, inplace=True)
            return self
        params = {"alpha": alpha} if alpha != 1 else {}
        dispatch(op_, tensors, other, **params)
        _bump(tensors)
        return self
    fn.__doc__ = f"``{name}`` of every tensor with a scalar, scalars, a 0-d tensor or tensors."
    fn_.__doc__ = f"In-place ``{name}`` of every tensor (no autograd; used by optimizers)."
    return _name(fn, f"_foreach_{name}"), _name(fn_, f"_foreach_{name}_")


def _method(mname, with_alpha=False):
    def call(t, o, alpha, inplace=False):
        m = getattr(t, mname + ("_" if inplace else ""))
        return m(o, alpha=alpha) if with_alpha and alpha != 1 else m(o)
    return call


def _clamp(kind):
    def call(t, o, alpha, inplace=False):
        if inplace:
            return t.clamp_(**{kind: o}) if not isinstance(o, TensorBase) else \
                t.copy_((t.maximum if kind == "min" else t.minimum)(o))
        return t.clamp(**{kind: o}) if not isinstance(o, TensorBase) else \
            (t.maximum if kind == "min" else t.minimum)(o)
    return call


def _pow_method(t, o, alpha, inplace=False):
    return t.pow_(o) if inplace else t.pow(o)


_foreach_add, _foreach_add_ = _binary("add", *F.BINARY["add"], _method("add", True), "tensor")
_foreach_sub, _foreach_sub_ = _binary("sub", *F.BINARY["sub"], _method("sub", True), True)
_foreach_mul, _foreach_mul_ = _binary("mul", *F.BINARY["mul"], _method("mul"), False)
_foreach_div, _foreach_div_ = _binary("div", *F.BINARY["div"], _method("div"), False)
_foreach_maximum, _foreach_maximum_ = _binary("maximum", *F.BINARY["maximum"], _clamp("min"), False)
_foreach_minimum, _foreach_minimum_ = _binary("minimum", *F.BINARY["minimum"], _clamp("max"), False)
_foreach_clamp_min, _foreach_clamp_min_ = _binary("clamp_min", *F.BINARY["maximum"], _clamp("min"), False)
_foreach_clamp_max, _foreach_clamp_max_ = _binary("clamp_max", *F.BINARY["minimum"], _clamp("max"), False)
_pow_list, _foreach_pow_ = _binary("pow", *F.BINARY["pow"], _pow_method, False)


def _foreach_pow(self, exponent):
    """``t ** exponent`` for every ``t``; or ``self ** t`` when ``self`` is a scalar."""
    if isinstance(self, numbers.Number) and not isinstance(self, TensorBase):
        tensors = _tensors("_foreach_pow", exponent, self)
        if _needs_autograd(tensors):
            return tuple(t.__rpow__(self) for t in tensors)
        return tuple(dispatch(F.pow_scalar_base, tensors, base=self))
    return _pow_list(self, exponent)


# ------------------------------------------------------------------------------ unary
def _unary(name, method):
    op, op_ = F.UNARY[name]

    def fn(self):
        tensors = _tensors(f"_foreach_{name}", self)
        if _needs_autograd(tensors):
            return tuple(getattr(t, method)() for t in tensors)
        return tuple(dispatch(op, tensors))

    def fn_(self):
        tensors = _tensors(f"_foreach_{name}_", self)
        if _needs_autograd(tensors):
            for t in tensors:
                getattr(t, method + "_")()
            return self
        dispatch(op_, tensors)
        _bump(tensors)
        return self
    fn.__doc__ = f"``{name}`` of every tensor in the list."
    fn_.__doc__ = f"In-place ``{name}`` of every tensor in the list."
    return _name(fn, f"_foreach_{name}"), _name(fn_, f"_foreach_{name}_")


_foreach_sqrt, _foreach_sqrt_ = _unary("sqrt", "sqrt")
_foreach_exp, _foreach_exp_ = _unary("exp", "exp")
_foreach_neg, _foreach_neg_ = _unary("neg", "neg")
_foreach_abs, _foreach_abs_ = _unary("abs", "abs")
_foreach_sign, _foreach_sign_ = _unary("sign", "sign")
_foreach_reciprocal, _foreach_reciprocal_ = _unary("reciprocal", "reciprocal")


# ------------------------------------------------------------------------------ addcmul / addcdiv
def _addc(name, ops, method):
    op, op_ = ops

    def prepare(fname, self, tensor1, tensor2, value):
        tensors = _tensors(fname, self, tensor1, tensor2)
        t1 = _tensors(fname, tensor1)
        t2 = _tensors(fname, tensor2)
        _same_len(tensors, t1)
        _same_len(tensors, t2)
        return tensors, t1, t2, _scalar_values(value, len(tensors))

    def fn(self, tensor1, tensor2, value=1):
        tensors, t1, t2, value = prepare(f"_foreach_{name}", self, tensor1, tensor2, value)
        if _needs_autograd(tensors, t1, t2):
            return tuple(getattr(t, method)(a, b, value=_at(value, i))
                         for i, (t, a, b) in enumerate(zip(tensors, t1, t2)))
        return tuple(dispatch(op, tensors, t1, t2, value=value))

    def fn_(self, tensor1, tensor2, value=1):
        tensors, t1, t2, value = prepare(f"_foreach_{name}_", self, tensor1, tensor2, value)
        if _needs_autograd(tensors, t1, t2):
            for i, (t, a, b) in enumerate(zip(tensors, t1, t2)):
                getattr(t, method + "_")(a, b, value=_at(value, i))
            return self
        dispatch(op_, tensors, t1, t2, value=value)
        _bump(tensors)
        return self
    fn.__doc__ = f"``self + value * {name[3:]}(tensor1, tensor2)`` for every tensor."
    fn_.__doc__ = f"In-place ``self += value * {name[3:]}(tensor1, tensor2)`` for every tensor."
    return _name(fn, f"_foreach_{name}"), _name(fn_, f"_foreach_{name}_")


_foreach_addcmul, _foreach_addcmul_ = _addc("addcmul", (F.addcmul, F.addcmul_), "addcmul")
_foreach_addcdiv, _foreach_addcdiv_ = _addc("addcdiv", (F.addcdiv, F.addcdiv_), "addcdiv")


# ------------------------------------------------------------------------------ lerp
def _lerp_args(fname, self, tensors1, weight):
    tensors = _tensors(fname, self, tensors1, weight)
    ends = _tensors(fname, tensors1)
    _same_len(tensors, ends)
    if type(weight) in (list, tuple):
        if weight and _all_tensors(weight):
            _same_len(tensors, weight)
        elif len(weight) != len(tensors):
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        weight = list(weight)
    return tensors, ends, weight


def _foreach_lerp(self, tensors1, weight):
    """``self + weight * (tensors1 - self)`` for every tensor; weight a scalar, scalars or tensors."""
    tensors, ends, weight = _lerp_args("_foreach_lerp", self, tensors1, weight)
    if _needs_autograd(tensors, ends, weight):
        return tuple(t.lerp(e, _at(weight, i)) for i, (t, e) in enumerate(zip(tensors, ends)))
    return tuple(dispatch(F.lerp, tensors, ends, weight))


def _foreach_lerp_(self, tensors1, weight):
    """In-place ``self += weight * (tensors1 - self)`` for every tensor."""
    tensors, ends, weight = _lerp_args("_foreach_lerp_", self, tensors1, weight)
    if _needs_autograd(tensors, ends, weight):
        for i, (t, e) in enumerate(zip(tensors, ends)):
            t.lerp_(e, _at(weight, i))
        return self
    dispatch(F.lerp_, tensors, ends, weight)
    _bump(tensors)
    return self


# ------------------------------------------------------------------------------ norm, zero_, copy_
def _foreach_norm(self, ord=2, dtype=None):
    """The vector ``ord``-norm of every tensor (0-d tensors), as ``clip_grad_norm_`` uses it."""
    tensors = _tensors("_foreach_norm", self)
    if _needs_autograd(tensors):
        return tuple(_norm(t, ord, dtype) for t in tensors)
    params = {}
    if ord != 2:
        params["ord"] = ord
    if dtype is not None:
        params["dtype"] = dtype
    return tuple(dispatch(F.norm, tensors, **params))


def _norm(t, ord, dtype):
    """The norm written with Tensor ops, so it records autograd."""
    a = (t.to(dtype) if dtype is not None else t).abs()
    if ord == 2:
        return (a * a).sum().sqrt()
    if ord == 1:
        return a.sum()
    if ord == float("inf"):
        return a.max()
    if ord == -float("inf"):
        return a.min()
    if ord == 0:
        return (a != 0).sum().to(a.dtype)
    return a.pow(ord).sum().pow(1.0 / ord)


def _foreach_zero_(self):
    """Fill every tensor with zeros."""
    tensors = _tensors("_foreach_zero_", self)
    if _needs_autograd(tensors):
        for t in tensors:
            t.zero_()
        return self
    dispatch(F.zero_, tensors)
    _bump(tensors)
    return self


def _foreach_copy_(self, src, non_blocking=False):
    """Copy ``src[i]`` into ``self[i]`` (broadcasting, casting) for every i."""
    tensors = _tensors("_foreach_copy_", self, src)
    srcs = _tensors("_foreach_copy_", src)
    _same_len(tensors, srcs)
    if _needs_autograd(tensors, srcs):
        for t, s in zip(tensors, srcs):
            t.copy_(s)
        return self
    dispatch(F.copy_, tensors, srcs)
    _bump(tensors)
    return self


class ForeachMixin:
    __slots__ = ()


FUNCTIONS = {k: v for k, v in dict(globals()).items() if k.startswith("_foreach_") and callable(v)}
