"""Foreach primitives (layer L1): one op over lists of tensors, as optimizers use them.

Kernels receive lists of arrays (and a scalar, a list of scalars, one 0-d array or a second list of
arrays). Out-of-place kernels return a list of fresh arrays in torch's result dtypes; in-place kernels
(``_foreach_add_``...) write into each array with NumPy ``out=`` and return None; the public wrapper
bumps the version counters. float16/bfloat16 compute in float32 and round once, as torch does.
The ops have no derivative: with grad mode on and a tensor requiring grad, the public wrappers run the
per-tensor ops instead, which record autograd (or raise torch's in-place-on-leaf error).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from .._shape import broadcast_shapes
from ._registry import SlowPath, TensorMeta, primitive
from .pointwise import _ADDCDIV_INT

__all__ = ["BINARY", "UNARY", "addcmul", "addcmul_", "addcdiv", "addcdiv_", "lerp", "lerp_", "norm",
           "zero_", "copy_", "pow_scalar_base"]

_LOW = (np.dtype(np.float16), D.bfloat16.np)
_F32 = np.dtype(np.float32)
_BOOL = np.dtype(np.bool_)
_FROM_NP = D.FROM_NP
_PY = (bool, int, float, complex)


def _pick(other, i):
    return other[i] if type(other) is list else other


def _key(x):
    if isinstance(x, np.ndarray):
        return (_FROM_NP[x.dtype], x.ndim == 0)
    if hasattr(x, "_dtype"):  # a Tensor (meta rules)
        return (x._dtype, x.dim() == 0)
    t = type(x)
    if t in _PY:
        return t
    if isinstance(x, (bool, np.bool_)):
        return bool
    if isinstance(x, (int, np.integer)):
        return int
    if isinstance(x, (complex, np.complexfloating)):
        return complex
    return float


def _result(t, others, int_to_float=False):
    """torch's result dtype (a NumPy dtype) of ``t`` combined with ``others``."""
    td = t.dtype
    if td.kind in "fc" and all(type(o) is float or type(o) is int for o in others):
        return td  # the optimizer case: float tensors and real Python scalars
    dt = D.result_type_of((_key(t),) + tuple(_key(o) for o in others))
    if int_to_float and dt.category < 2:
        dt = D.get_default_dtype()
    return dt.np


def _cast_error(rt, td):
    raise RuntimeError(f"result type {dtype_title(_FROM_NP[rt])} can't be cast to the desired output "
                       f"type {dtype_title(_FROM_NP[td])}")


def _f32(x):
    return x.astype(_F32) if isinstance(x, np.ndarray) and x.dtype in _LOW else x


def _apply(fn, t, others, rt, inplace):
    """Run ``fn(t, *others, out)``: in place into ``t`` or into a fresh array of dtype ``rt``."""
    if inplace:
        if rt != t.dtype and not D.can_cast(_FROM_NP[rt], _FROM_NP[t.dtype]):
            _cast_error(rt, t.dtype)
        if t.dtype in _LOW or rt in _LOW:
            np.copyto(t, fn(_f32(t), *[_f32(o) for o in others], None), casting="unsafe")
        elif rt == t.dtype or rt.kind == t.dtype.kind:
            fn(t, *others, t)
        else:
            np.copyto(t, fn(t.astype(rt), *others, None), casting="unsafe")
        return None
    if rt in _LOW:
        return np.asarray(fn(_f32(t), *[_f32(o) for o in others], None)).astype(rt)
    if t.dtype != rt:
        t = t.astype(rt)
    r = fn(t, *others, None)
    r = np.asarray(r)
    return r if r.dtype == rt else r.astype(rt)


# ------------------------------------------------------------------------------ meta
def _shape(x):
    return tuple(x.shape) if hasattr(x, "_dtype") else ()


def _foreach_meta(inplace, int_to_float=False, float_only=False, real=False):
    def rule(tensors, *others, **params):
        metas = []
        for i, t in enumerate(tensors):
            os_ = [_pick(o, i) for o in others]
            shape = broadcast_shapes(tuple(t.shape), *[_shape(o) for o in os_])
            dt = D.result_type_of((_key(t),) + tuple(_key(o) for o in os_))
            if (int_to_float or float_only) and dt.category < 2:
                dt = D.get_default_dtype()
            if real:
                dt = dt.to_real()
            if inplace:
                if shape != tuple(t.shape):
                    raise RuntimeError(f"output with shape {list(t.shape)} doesn't match the broadcast "
                                       f"shape {list(shape)}")
                if dt is not t.dtype and not D.can_cast(dt, t.dtype):
                    raise RuntimeError(f"result type {dtype_title(dt)} can't be cast to the desired "
                                       f"output type {dtype_title(t.dtype)}")
            else:
                metas.append(TensorMeta(shape, dt))
        return None if inplace else metas
    return rule


# ------------------------------------------------------------------------------ op families
def _register(name, kernel, meta):
    op = primitive(name, kind="foreach")(kernel)
    op.meta(meta)
    return op


_NOERR = {"divide": "ignore", "invalid": "ignore"}


def _is_fast(dt) -> bool:
    """float32/float64 (the optimizer case): ufuncs run in place on the arrays, no promotion."""
    return dt.kind == "f" and dt not in _LOW


def _binary(name, fn, *, ufunc, quiet=False, int_to_float=False, check=None):
    """``_foreach_<name>`` and ``_foreach_<name>_`` for ``fn(t, o, out)`` (alpha for add/sub).

    ``ufunc`` is what ``fn`` calls: lists of same-dtype float tensors (with Python real scalars or
    same-dtype tensors) call it directly, with one errstate for the whole list when ``quiet``.
    """
    def one(t, o, alpha, inplace, res):
        if check is not None:
            check(t, o)
        if alpha != 1:
            o = np.multiply(o, alpha)
        td = t.dtype
        to = type(o)
        if _is_fast(td) and (to is float or to is int or (to is np.ndarray and o.dtype == td)):
            if inplace:
                fn(t, o, t)
            else:
                res.append(np.asarray(fn(t, o, None)))
            return
        res.append(_apply(fn, t, (o,), _result(t, (o,), int_to_float), inplace))

    def direct(t, o, inplace, res):
        if inplace:
            ufunc(t, o, out=t)
        else:
            r = ufunc(t, o)
            res.append(r if type(r) is np.ndarray else np.asarray(r))

    def fast(self, other, alpha, inplace, d0):
        res = []
        if type(other) is list:
            for t, o in zip(self, other):
                to = type(o)
                if alpha == 1 and t.dtype is d0 and (to is np.ndarray and o.dtype is d0 or to is float):
                    direct(t, o, inplace, res)
                else:
                    one(t, o, alpha, inplace, res)
            return res
        o = other
        to = type(o)
        if alpha != 1 or not (to is float or to is int or (to is np.ndarray and o.dtype is d0)):
            for t in self:
                one(t, o, alpha, inplace, res)
            return res
        for t in self:
            if t.dtype is d0:
                direct(t, o, inplace, res)
            else:
                one(t, o, alpha, inplace, res)
        return res

    def run(self, other, alpha, inplace):
        d0 = self[0].dtype
        if _is_fast(d0):
            if quiet:
                with np.errstate(**_NOERR):
                    res = fast(self, other, alpha, inplace, d0)
            else:
                res = fast(self, other, alpha, inplace, d0)
        else:
            res = []
            is_list = type(other) is list
            for i, t in enumerate(self):
                one(t, other[i] if is_list else other, alpha, inplace, res)
        return None if inplace else res

    def kernel(self, other, *, alpha=1):
        return run(self, other, alpha, False)

    def kernel_(self, other, *, alpha=1):
        return run(self, other, alpha, True)
    return (_register(f"_foreach_{name}", kernel, _foreach_meta(False, int_to_float)),
            _register(f"_foreach_{name}_", kernel_, _foreach_meta(True, int_to_float)))


def _unary(name, fn, *, ufunc, quiet=False, int_to_float=False, check=None, real=False):
    def one(t, inplace, res):
        if check is not None:
            check(t)
        if real and t.dtype.kind == "c":  # complex in, real out: never in place
            if inplace:
                raise RuntimeError(f"In-place {name} is not supported for complex tensors.")
            res.append(np.asarray(fn(t, None)))
            return
        res.append(_apply(fn, t, (), _result(t, (), int_to_float), inplace))

    def fast(self, inplace, d0):
        res = []
        uf = ufunc
        for t in self:
            if t.dtype is d0:
                if inplace:
                    uf(t, out=t)
                else:
                    r = uf(t)
                    res.append(r if type(r) is np.ndarray else np.asarray(r))
            else:
                one(t, inplace, res)
        return res

    def run(self, inplace):
        d0 = self[0].dtype
        if _is_fast(d0):
            if quiet:
                with np.errstate(**_NOERR):
                    res = fast(self, inplace, d0)
            else:
                res = fast(self, inplace, d0)
        else:
            res = []
            for t in self:
                one(t, inplace, res)
        return None if inplace else res

    def kernel(self):
        return run(self, False)

    def kernel_(self):
        return run(self, True)
    return (_register(f"_foreach_{name}", kernel, _foreach_meta(False, int_to_float, real=real)),
            _register(f"_foreach_{name}_", kernel_, _foreach_meta(True, int_to_float)))


def _no_bool_sub(t, o):
    if t.dtype == _BOOL or (isinstance(o, np.ndarray) and o.dtype == _BOOL) or type(o) is bool:
        if t.dtype == _BOOL and (type(o) is bool or getattr(o, "dtype", None) == _BOOL):
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead.")
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _no_bool_neg(t):
    if t.dtype == _BOOL:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _int_pow(t, o):
    if t.dtype.kind in "iub" and np.any(np.asarray(o) < 0) and np.asarray(o).dtype.kind in "iu" \
            or (t.dtype.kind in "iu" and type(o) is int and o < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _div(t, o, out):
    return np.true_divide(t, o, out=out)


def _sign(t, out):
    if t.dtype == _BOOL:
        return t.copy() if out is None else t
    return _sign_nan0(t, out=out)


def _sign_nan0(t, out=None):
    """np.sign with torch's sign(NaN) == 0 (NumPy gives NaN)."""
    r = np.sign(t, out=out)
    if t.dtype.kind == "f":
        r = np.asarray(r)
        nan = r != r
        if nan.any():
            r[nan] = 0
    return r


def _sqrt(t, out):
    with np.errstate(invalid="ignore"):
        return np.sqrt(t, out=out)


def _reciprocal(t, out):
    with np.errstate(divide="ignore"):
        return np.reciprocal(t, out=out)


def _abs(t, out):
    return np.abs(t, out=out)


def _pow(t, o, out):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.power(t, o, out=out)


BINARY = {
    "add": _binary("add", lambda t, o, out: np.add(t, o, out=out), ufunc=np.add),
    "sub": _binary("sub", lambda t, o, out: np.subtract(t, o, out=out), ufunc=np.subtract,
                   check=_no_bool_sub),
    "mul": _binary("mul", lambda t, o, out: np.multiply(t, o, out=out), ufunc=np.multiply),
    "div": _binary("div", _div, ufunc=np.true_divide, int_to_float=True),
    "maximum": _binary("maximum", lambda t, o, out: np.maximum(t, o, out=out), ufunc=np.maximum),
    "minimum": _binary("minimum", lambda t, o, out: np.minimum(t, o, out=out), ufunc=np.minimum),
    "pow": _binary("pow", _pow, ufunc=np.power, quiet=True, check=_int_pow),
}
BINARY["clamp_min"] = BINARY["maximum"]
BINARY["clamp_max"] = BINARY["minimum"]

UNARY = {
    "sqrt": _unary("sqrt", _sqrt, ufunc=np.sqrt, quiet=True, int_to_float=True),
    "exp": _unary("exp", lambda t, out: np.exp(t, out=out), ufunc=np.exp, int_to_float=True),
    "neg": _unary("neg", lambda t, out: np.negative(t, out=out), ufunc=np.negative, check=_no_bool_neg),
    "abs": _unary("abs", _abs, ufunc=np.abs, real=True),
    "sign": _unary("sign", _sign, ufunc=_sign_nan0),
    "reciprocal": _unary("reciprocal", _reciprocal, ufunc=np.reciprocal, quiet=True, int_to_float=True),
}


@primitive("_foreach_pow_scalar_base", kind="foreach", node_name="ForeachPowBackward0")
def pow_scalar_base(exponent, *, base):
    """``base ** t`` for every ``t``: torch's ``_foreach_pow(scalar, tensors)``."""
    out = []
    for t in exponent:
        rt = _result(t, (base,))
        b = np.asarray(base, dtype=rt if rt not in _LOW else _F32)
        out.append(np.asarray(_pow(b, _f32(t), None)).astype(rt, copy=False))
    return out


pow_scalar_base.meta(lambda exponent, *, base: _foreach_meta(False)(exponent, base))


# ------------------------------------------------------------------------------ pointwise-with-value
def _addc(name, fn):
    """``self + value * fn(t1, t2)``: value a scalar or a list of scalars."""
    def fast(self, t1s, t2s, v, inplace, d0):
        # same-dtype float lists with one real scalar: the one-temporary loop with names hoisted
        res = []
        mul, add = np.multiply, np.add
        scale = v != 1
        for t, a, b in zip(self, t1s, t2s):
            if t.dtype is d0 and a.dtype is d0 and b.dtype is d0:
                tmp = fn(a, b)
                if type(tmp) is not np.ndarray:
                    tmp = np.asarray(tmp)
                if scale:
                    mul(tmp, v, out=tmp)
                if inplace:
                    add(t, tmp, out=t)
                else:
                    res.append(add(t, tmp, out=tmp))
            else:
                res.extend(slow([t], [a], [b], v, inplace) or ())
        return None if inplace else res

    def run(self, t1s, t2s, value, inplace):
        d0 = self[0].dtype
        if _is_fast(d0) and (type(value) is float or type(value) is int):
            return fast(self, t1s, t2s, value, inplace, d0)
        return slow(self, t1s, t2s, value, inplace)

    def slow(self, t1s, t2s, value, inplace):
        res = []
        for i, t in enumerate(self):
            v = _pick(value, i)
            a, b = t1s[i], t2s[i]
            td = t.dtype
            if td.kind == "f" and td not in _LOW and a.dtype == td and b.dtype == td and \
                    (type(v) is float or type(v) is int):  # the optimizer case: one temporary
                tmp = np.asarray(fn(a, b))
                if v != 1:
                    np.multiply(tmp, v, out=tmp)
                if inplace:
                    np.add(t, tmp, out=t)
                else:
                    res.append(np.add(t, tmp, out=tmp))
                continue
            if td.kind in "iub" and type(v) is float:  # integer tensors truncate the scalar
                v = int(v)
            if name == "addcdiv" and a.dtype.kind in "iub" and b.dtype.kind in "iub":
                raise RuntimeError(_ADDCDIV_INT)
            rt = _result(t, (a, b), name == "addcdiv")  # torch leaves ``value`` out of promotion

            def f(t, a, b, out, v=v):
                tmp = np.asarray(fn(a, b))  # an array even for 0-d inputs, so out= works
                if v != 1:
                    np.multiply(tmp, v, out=tmp, casting="unsafe")
                return np.add(t, tmp, out=out, casting="unsafe")
            res.append(_apply(f, t, (a, b), rt, inplace))
        return None if inplace else res

    def kernel(self, tensor1, tensor2, *, value=1):
        return run(self, tensor1, tensor2, value, False)

    def kernel_(self, tensor1, tensor2, *, value=1):
        return run(self, tensor1, tensor2, value, True)
    return (_register(f"_foreach_{name}", kernel, _foreach_meta(False, name == "addcdiv")),
            _register(f"_foreach_{name}_", kernel_, _foreach_meta(True, name == "addcdiv")))


addcmul, addcmul_ = _addc("addcmul", lambda a, b: np.multiply(a, b))
addcdiv, addcdiv_ = _addc("addcdiv", lambda a, b: np.true_divide(a, b))


def _lerp_fn(t, end, w, out):
    # torch's formula: exact at both ends (w small: from start; w large: from end)
    diff = np.asarray(np.subtract(end, t))
    if isinstance(w, np.ndarray) and w.ndim:
        small = np.abs(w) < 0.5
        r = np.where(small, t + w * diff, end - diff * (1 - w))
        if out is None:
            return r
        np.copyto(out, r, casting="unsafe")
        return out
    if abs(w) < 0.5:
        np.multiply(diff, w, out=diff)
        return np.add(t, diff, out=out)
    np.multiply(diff, 1 - w, out=diff)
    return np.subtract(end, diff, out=out)


def _lerp_fast(self, ends, w, inplace, d0):
    """Same-dtype float lists with one Python weight: ``_lerp_fn``'s steps with the branch hoisted."""
    res = []
    sub, mul, add = np.subtract, np.multiply, np.add
    small = abs(w) < 0.5
    c = w if small else 1 - w
    for t, e in zip(self, ends):
        if t.dtype is not d0 or e.dtype is not d0:
            if t.dtype.kind not in "fc":
                raise NotImplementedError(f"\"lerp_kernel_scalar\" not implemented for "
                                          f"'{dtype_title(_FROM_NP[t.dtype])}'")
            res.append(_apply(_lerp_fn, t, (e, w), _result(t, (e,)), inplace))
            continue
        diff = sub(e, t)
        if type(diff) is not np.ndarray:
            diff = np.asarray(diff)
        mul(diff, c, out=diff)
        out = t if inplace else None
        r = add(t, diff, out=out) if small else sub(e, diff, out=out)
        if not inplace:
            res.append(r if type(r) is np.ndarray else np.asarray(r))
    return None if inplace else res


def _lerp(inplace):
    def kernel(self, tensors1, weight):
        d0 = self[0].dtype
        if _is_fast(d0) and (type(weight) is float or type(weight) is int):
            return _lerp_fast(self, tensors1, weight, inplace, d0)
        res = []
        for i, t in enumerate(self):
            if t.dtype.kind not in "fc":
                raise NotImplementedError(f"\"lerp_kernel_scalar\" not implemented for "
                                          f"'{dtype_title(_FROM_NP[t.dtype])}'")
            w = _pick(weight, i)
            if isinstance(w, np.ndarray) and w.ndim == 0:
                w = w.item()
            e = tensors1[i]
            res.append(_apply(_lerp_fn, t, (e, w), _result(t, (e,)), inplace))
        return None if inplace else res
    return kernel


lerp = _register("_foreach_lerp", _lerp(False), _foreach_meta(False))
lerp_ = _register("_foreach_lerp_", _lerp(True), _foreach_meta(True))


# ------------------------------------------------------------------------------ norm, zero_, copy_
@primitive("_foreach_norm", kind="foreach")
def norm(self, *, ord=2, dtype=None):
    out = []
    for t in self:
        if t.dtype.kind not in "fc" or (dtype is not None and t.dtype.kind != "c"
                                        and dtype.np.itemsize < t.dtype.itemsize):
            raise SlowPath("_foreach_norm: dtype")  # the meta rule raises torch's message
        rt = dtype.np if dtype is not None else (t.dtype if t.dtype.kind != "c" else
                                                  np.dtype(t.real.dtype))
        x = t.astype(_F32) if t.dtype in _LOW else t
        if dtype is not None and x.dtype != dtype.np and x.dtype.kind != "c":
            x = x.astype(dtype.np)
        x = x.ravel()
        if x.dtype.kind == "c":
            x = np.abs(x)
        if ord == 2:
            v = np.sqrt(np.dot(x, x)) if x.dtype.kind == "f" else np.sqrt(np.sum(x * x))
        elif ord == 1:
            v = np.add.reduce(np.abs(x))
        elif ord == float("inf"):
            v = np.max(np.abs(x)) if x.size else 0
        elif ord == -float("inf"):
            v = np.min(np.abs(x)) if x.size else float("inf")
        elif ord == 0:
            v = np.count_nonzero(x)
        else:
            v = np.sum(np.abs(x) ** ord) ** (1.0 / ord)
        out.append(np.asarray(v, dtype=rt))
    return out


@norm.meta
def _(self, *, ord=2, dtype=None):
    out = []
    for t in self:
        if t.dtype.category < 2:
            raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                               f"input. Got {dtype_title(t.dtype)}")
        if dtype is not None and not t.dtype.is_complex and dtype.itemsize < t.dtype.itemsize:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({dtype_title(t.dtype)}) "
                               f"should be convertible without narrowing to the specified dtype "
                               f"({dtype_title(dtype)})")
        out.append(TensorMeta((), dtype or t.dtype.to_real()))
    return out


@primitive("_foreach_zero_", kind="foreach")
def zero_(self):
    for t in self:
        t.fill(0)


zero_.meta(lambda self: None)


@primitive("_foreach_copy_", kind="foreach")
def copy_(self, src, *, non_blocking=False):
    for t, s in zip(self, src):
        if t.dtype in _LOW and s.dtype.kind in "iu":  # ml_dtypes casts ints only through float32
            s = s.astype(_F32)
        np.copyto(t, s, casting="unsafe")


@copy_.meta
def _(self, src, *, non_blocking=False):
    for t, s in zip(self, src):
        shape = broadcast_shapes(tuple(t.shape), tuple(s.shape))
        if shape != tuple(t.shape):
            raise RuntimeError(f"output with shape {list(t.shape)} doesn't match the broadcast shape "
                               f"{list(shape)}")
    return None
