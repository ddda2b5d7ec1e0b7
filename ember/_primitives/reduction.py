"""Reduction primitives (layer L1): sum, mean, prod, amax/amin, max/min over a dim, argmax/argmin,
var/std, cumsum/cumprod, logsumexp, any/all and the vector norm.

Params arrive canonical from the method layer: ``dim`` is None (all dims) or a sorted tuple of
non-negative dims (an int for the single-dim ops), ``keepdim`` a bool; a requested ``dtype`` has
already been applied to the input (torch casts before reducing), so kernels only use it to pick an
integer accumulator. Kernels call the ufunc's ``reduce`` directly: ``np.sum``/``np.mean`` add
microseconds of Python per call.
Derivatives broadcast the gradient back over the reduced dims (``unreduce`` / ``keep``) and are
written in ember ops, so they are differentiable again.
"""
from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from .._shape import normalize_dim
from ._meta import reduce_meta
from ._registry import TENSOR_K, SlowPath, TensorMeta, primitive
from .pointwise import where as _where

_I64 = np.dtype(np.int64)
_INTS = "biu"


def _count(shape, dim) -> int:
    """How many elements each output element reduces."""
    return math.prod(shape) if dim is None else math.prod(shape[d] for d in dim)


def keep(t, ndim: int, dim, keepdim: bool):
    """A reduced tensor reshaped to keepdim form, so it broadcasts against the input."""
    if keepdim or ndim == 0:
        return t
    if dim is None:
        return t.reshape((1,) * ndim)
    for d in sorted(dim):
        t = t.unsqueeze(d)
    return t


def unreduce(grad, a_shape, dim, keepdim, K=TENSOR_K):
    """Broadcast a reduction's gradient back to the input's shape (``K``: the derivative's ops
    namespace, so this also runs on arrays): the reduced dims become 1 (one reshape), then expand."""
    if not keepdim and a_shape:
        grad = K.reshape(grad, tuple(1 if dim is None or i in dim else s for i, s in enumerate(a_shape)))
    return K.expand(grad, size=tuple(a_shape))


# ----------------------------------------------------------------------------- sum / mean / prod
@primitive("sum", kind="reduction")
def sum(a, *, dim=None, keepdim=False, dtype=None):
    if a.dtype.kind in _INTS:
        return np.add.reduce(a, axis=dim, keepdims=keepdim,
                             dtype=_I64 if dtype is None else dtype.np)
    return np.add.reduce(a, axis=dim, keepdims=keepdim)


@sum.meta
def _(a, *, dim=None, keepdim=False, dtype=None):
    out = dtype or (D.int64 if a.dtype.category < 2 else a.dtype)
    return reduce_meta(a, dim, keepdim, out)


@sum.derivative
def _(grad, *, a_shape, dim, keepdim, K):
    return unreduce(grad, a_shape, dim, keepdim, K)


def _mean_error(dt, optional=False):
    which = "Optional dtype" if optional else "Input dtype"
    return RuntimeError(f"mean(): could not infer output dtype. {which} must be either a floating "
                        f"point or complex dtype. Got: {dtype_title(dt)}")


@primitive("mean", kind="reduction")
def mean(a, *, dim=None, keepdim=False, dtype=None):
    if a.dtype.kind in _INTS:
        raise _mean_error(D.FROM_NP[a.dtype])
    s = np.add.reduce(a, axis=dim, keepdims=keepdim)
    n = _count(a.shape, dim)
    if n == 0:
        with np.errstate(invalid="ignore"):
            return np.true_divide(s, 0)
    return np.true_divide(s, n)


@mean.meta
def _(a, *, dim=None, keepdim=False, dtype=None):
    if a.dtype.category < 2:
        raise _mean_error(a.dtype)
    return reduce_meta(a, dim, keepdim, a.dtype)


@mean.derivative
def _(grad, *, a_shape, dim, keepdim, K):
    n = _count(a_shape, dim)  # divided before the expand: the same quotient for every element
    return unreduce(K.div(grad, n) if n else K.mul(grad, float("nan")), a_shape, dim, keepdim, K)


def _int_acc(a, dtype):
    return (_I64 if dtype is None else dtype.np) if a.dtype.kind in _INTS else None


@primitive("prod", kind="reduction")
def prod(a, *, dim=None, keepdim=False, dtype=None):
    return np.multiply.reduce(a, axis=dim, keepdims=keepdim, dtype=_int_acc(a, dtype))


prod.meta(sum.meta_rule)


@prod.derivative
def _(grad, a, out, *, dim, keepdim):
    # Exact with zeros: a zero element gets the product of the others when it is the only zero in
    # its slice (0 otherwise); other elements get out / a, which is 0 whenever the slice holds a zero
    # and stays differentiable through ``out`` (so double backward is right too).
    nd = a.dim()
    g, o = keep(grad, nd, dim, keepdim), keep(out, nd, dim, keepdim)
    zero = a == 0
    safe = _where(zero, 1, a)
    count = zero._op(sum, dim=dim, keepdim=True)
    others = safe._op(prod, dim=dim, keepdim=True)
    return _where(zero, _where(count == 1, others, 0), o / safe) * g


# ----------------------------------------------------------------------------- amax / amin / max / min
def _empty_full_error(name):
    return RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                        "Specify the reduction dim with the 'dim' argument.")


def _check_extreme(name, a, dim, exc=IndexError):
    """torch refuses max-like reductions with no identity over empty dims."""
    if a.dtype.is_complex and name in ("max", "min", "amax", "amin"):
        raise NotImplementedError(f'"{name}" not implemented for \'{dtype_title(a.dtype)}\'')
    shape = tuple(a.shape)
    if dim is None:
        if math.prod(shape) == 0:
            raise _empty_full_error(name) if exc is not IndexError else \
                IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return
    for d in dim:
        if shape and shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _extreme(name, ufunc, node_name=None):
    @primitive(name, kind="reduction", node_name=node_name)
    def kernel(a, *, dim=None, keepdim=False):
        if a.dtype.kind == "c":
            raise TypeError  # the meta rule raises torch's error
        return ufunc.reduce(a, axis=dim, keepdims=keepdim)

    @kernel.meta
    def _(a, *, dim=None, keepdim=False):
        if a.dtype.is_complex:  # torch names its kernel: "max_all", "max_values_cpu" (amax)
            kname = {"amax": "max_values_cpu", "amin": "min_values_cpu"}.get(name, name)
            raise NotImplementedError(f'"{kname}" not implemented for \'{dtype_title(a.dtype)}\'')
        _check_extreme(name.split("_")[0], a, dim, RuntimeError)
        return reduce_meta(a, dim, keepdim, a.dtype)
    return kernel


amax = _extreme("amax", np.maximum)
amin = _extreme("amin", np.minimum)
max_all = _extreme("max_all", np.maximum, "MaxBackward1")  # max(input): the value only
min_all = _extreme("min_all", np.minimum, "MinBackward1")


def _amax_grad(grad, a, out, *, dim, keepdim):
    # the gradient is shared evenly among tied extremes (torch's scale_grad_by_count)
    nd = a.dim()
    mask = a == keep(out, nd, dim, keepdim)
    count = mask._op(sum, dim=dim, keepdim=True)
    return keep(grad, nd, dim, keepdim) / count * mask


def _max_all_grad(grad, a, out):
    # torch's evenly_distribute_backward: NaN results share the gradient among the NaN inputs
    mask = (a == out).logical_or(a.isnan().logical_and(out.isnan()))
    return grad / mask._op(sum) * mask


amax.derivative(_amax_grad)
amin.derivative(_amax_grad)
max_all.derivative(_max_all_grad)
min_all.derivative(_max_all_grad)


def _select(a, idx, dim, keepdim):
    """``(values, indices)`` of ``a`` at ``idx`` (keepdims indices along ``dim``), squeezed unless
    ``keepdim``."""
    vals = np.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return vals, idx


def _value_index_meta(a, dim, keepdim):
    """Metas of a ``(values, int64 indices)`` reduction of ``a`` over ``dim``."""
    m = reduce_meta(a, (dim,) if a.dim() else None, keepdim, a.dtype)
    return m, TensorMeta(m.shape, D.int64)


def _value_index(name, argfn):
    @primitive(name, kind="reduction", num_outputs=2, differentiable_outputs=(0,),
               node_name=f"{_camel(name.split('_')[0])}Backward0")
    def kernel(a, *, dim, keepdim=False):
        if a.dtype.kind == "c":
            raise TypeError  # the meta rule raises torch's error
        if a.ndim == 0:
            return a.copy(), np.zeros((), _I64)
        return _select(a, argfn(a, axis=dim, keepdims=True), dim, keepdim)

    @kernel.meta
    def _(a, *, dim, keepdim=False):
        base = name.split("_")[0]
        if a.dtype.is_complex:
            raise RuntimeError(f"{base}(): does not support complex input")
        _check_extreme(base, a, (dim,) if a.dim() else None)
        return _value_index_meta(a, dim, keepdim)

    @kernel.derivative
    def _(grads, out1, *, a_shape, dim, keepdim):
        # torch's value_selecting_reduction_backward: the gradient goes to the selected index only
        g = grads[0]
        if not a_shape:
            return g
        idx = out1
        if not keepdim:
            g, idx = g.unsqueeze(dim), idx.unsqueeze(dim)
        hit = idx._op(index_mask, dim=dim, size=a_shape[dim])
        return g.where(hit, 0)
    return kernel


def _camel(s):
    return s[:1].upper() + s[1:]


@primitive("index_mask", kind="other")
def index_mask(idx, *, dim, size):
    """Bool mask: ``mask[..., i, ...] = (idx[..., 0, ...] == i)`` along ``dim`` (a one-hot)."""
    shape = [1] * idx.ndim
    shape[dim] = size
    return np.arange(size).reshape(shape) == idx


@index_mask.meta
def _(idx, *, dim, size):
    shape = list(idx.shape)
    shape[dim] = size
    return TensorMeta(shape, D.bool)


max_dim = _value_index("max_dim", np.argmax)
min_dim = _value_index("min_dim", np.argmin)


def _arg(name, fn):
    @primitive(name, kind="reduction")
    def kernel(a, *, dim=None, keepdim=False):
        if a.dtype.kind in "bc":
            raise TypeError  # the meta rule raises torch's error
        if dim is None:
            r = fn(a.reshape(-1))
            return np.reshape(r, (1,) * a.ndim) if keepdim else np.asarray(r)
        return fn(a, axis=dim, keepdims=keepdim)

    @kernel.meta
    def _(a, *, dim=None, keepdim=False):
        if a.dtype is D.bool:
            raise RuntimeError(f"{name}(): does not support bool input")
        if a.dtype.is_complex:
            raise RuntimeError(f"{name}(): does not support complex input")
        _check_extreme(name, a, None if dim is None else (dim,))
        return reduce_meta(a, None if dim is None else (dim,), keepdim, D.int64)
    return kernel


argmax = _arg("argmax", np.argmax)
argmin = _arg("argmin", np.argmin)


def _lower_median(a, dim):
    """Indices (keepdims) of torch's lower median along ``dim``; a slice holding NaN picks its NaN."""
    n = a.shape[dim]
    order = np.argsort(a, axis=dim, kind="stable")
    idx = np.take(order, [(n - 1) // 2], axis=dim)
    if a.dtype.kind in "fc":
        nan = np.isnan(a)
        has = np.logical_or.reduce(nan, axis=dim, keepdims=True)
        if has.any():
            idx = np.where(has, np.argmax(nan, axis=dim, keepdims=True), idx)
    return idx


def _median_of_all(a, lower_median):
    """The median of all of ``a`` at the index ``lower_median(flat, 0)`` picks; an empty ``a``
    gives NaN (the lowest value for integers), as torch does."""
    if a.size == 0:
        return np.array(np.nan if a.dtype.kind in "fc" else np.iinfo(a.dtype).min, a.dtype)
    flat = a.reshape(-1)
    return flat[lower_median(flat, 0)[0]].copy()


def _median_of_all_meta(a):
    return TensorMeta((), a.dtype)


@primitive("median_all", kind="reduction", node_name="MedianBackward0")
def median_all(a):
    return _median_of_all(a, _lower_median)


median_all.meta(_median_of_all_meta)
median_all.derivative(_max_all_grad)


@primitive("median_dim", kind="reduction", num_outputs=2, differentiable_outputs=(0,),
           node_name="MedianBackward1")
def median_dim(a, *, dim, keepdim=False):
    if a.ndim == 0:
        return a.copy(), np.zeros((), _I64)
    return _select(a, _lower_median(a, dim), dim, keepdim)


@median_dim.meta
def _(a, *, dim, keepdim=False):
    _check_extreme("median", a, (dim,) if a.dim() else None)
    return _value_index_meta(a, dim, keepdim)


median_dim.derivative(max_dim.backward)


# ----------------------------------------------------------------------------- var / std
def _dof_warning(name, a_shape, dim, correction):
    if _count(a_shape, dim) - correction <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=5)


def _var_kernel(a, dim, correction, keepdim):
    n = _count(a.shape, dim)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.true_divide(np.add.reduce(a, axis=dim, keepdims=True), n)
        d = a - m
        sq = d.real * d.real + d.imag * d.imag if d.dtype.kind == "c" else d * d
        s = np.add.reduce(sq, axis=dim, keepdims=keepdim)
        return np.true_divide(s, n - correction if n > correction else 0)


def _var_meta(a, *, dim=None, correction=1, keepdim=False):
    if a.dtype.category < 2:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return reduce_meta(a, dim, keepdim, a.dtype.to_real())


@primitive("var", kind="reduction")
def var(a, *, dim=None, correction=1, keepdim=False):
    if a.dtype.kind in _INTS:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    _dof_warning("var", a.shape, dim, correction)
    return _var_kernel(a, dim, correction, keepdim)


@primitive("std", kind="reduction")
def std(a, *, dim=None, correction=1, keepdim=False):
    if a.dtype.kind in _INTS:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    _dof_warning("std", a.shape, dim, correction)
    return np.sqrt(_var_kernel(a, dim, correction, keepdim))


var.meta(_var_meta)
std.meta(_var_meta)


def _var_grad(g, a, dim, correction):
    # torch's var_backward: 2 (x - mean) / (N - correction); over all elements with N <= correction
    # it is inf, or NaN where x == mean
    dof = _count(tuple(a.shape), dim) - correction
    centred = a - a._op(mean, dim=dim, keepdim=True)
    if dof <= 0 and (dim is None or a.dim() == 0):
        return g * _where(centred == 0, math.nan, math.inf)
    return ((2.0 / dof if dof else math.inf) * g) * centred


@var.derivative
def _(grad, a, *, dim, correction, keepdim):
    return _var_grad(keep(grad, a.dim(), dim, keepdim), a, dim, correction)


@std.derivative
def _(grad, a, out, *, dim, correction, keepdim):
    nd = a.dim()
    o = keep(out, nd, dim, keepdim)
    g = (keep(grad, nd, dim, keepdim) / (o * 2)).where(o != 0, 0)
    return _var_grad(g, a, dim, correction)


# ----------------------------------------------------------------------------- cumulative
def _cumulative(ufunc, a, dim, dtype):
    acc = _int_acc(a, dtype)
    if a.ndim == 0:
        return a.astype(acc) if acc is not None else a.copy()
    return ufunc.accumulate(a, axis=dim, dtype=acc)


def _cum_meta(a, *, dim, dtype=None):
    normalize_dim(dim, a.dim())
    return TensorMeta(tuple(a.shape), dtype or (D.int64 if a.dtype.category < 2 else a.dtype))


@primitive("cumsum", kind="reduction")
def cumsum(a, *, dim, dtype=None):
    return _cumulative(np.add, a, dim, dtype)


@primitive("cumsum_reverse", kind="reduction")
def cumsum_reverse(a, *, dim):
    """``out[i] = sum(a[i:])`` along ``dim``: the backward of cumsum."""
    if a.ndim == 0:
        return a.copy()
    return np.ascontiguousarray(np.flip(np.add.accumulate(np.flip(a, dim), axis=dim), dim))


@primitive("cumprod", kind="reduction")
def cumprod(a, *, dim, dtype=None):
    return _cumulative(np.multiply, a, dim, dtype)


cumsum.meta(_cum_meta)
cumprod.meta(_cum_meta)
cumsum_reverse.meta(_cum_meta)


@cumsum.derivative
def _(grad, *, dim):
    return grad._op(cumsum_reverse, dim=dim)


@cumsum_reverse.derivative
def _(grad, *, dim):
    return grad._op(cumsum, dim=dim)


@cumprod.derivative
def _(grad, a, out, *, dim):
    # Before the first zero of a slice: sum_{j>=i} g_j out_j / a_i. At the first zero: the same sum
    # with that zero replaced by 1 in the products. After it every product is 0.
    if a.dim() == 0:
        return grad
    zero = a == 0
    seen = zero._op(cumsum, dim=dim)  # zeros at or before each position
    first = zero.logical_and(seen == 1)
    before = seen == 0
    safe = _where(before, a, 1)
    g_before = (grad * out)._op(cumsum_reverse, dim=dim) / safe
    out1 = _where(first, 1, a)._op(cumprod, dim=dim)
    g_first = (grad * out1)._op(cumsum_reverse, dim=dim)
    return _where(before, g_before, _where(first, g_first, 0))


# ----------------------------------------------------------------------------- logsumexp
@primitive("logsumexp", kind="reduction")
def logsumexp(a, *, dim=None, keepdim=False):
    if a.dtype.kind in _INTS:
        a = a.astype(D.get_default_dtype().np)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if a.size == 0:
            return np.log(np.add.reduce(np.exp(a), axis=dim, keepdims=keepdim))
        m = np.maximum.reduce(a.real if a.dtype.kind == "c" else a, axis=dim, keepdims=True)
        m = np.where(np.isinf(m), 0, m)
        s = np.log(np.add.reduce(np.exp(a - m), axis=dim, keepdims=True)) + m
    return s if keepdim else s.reshape(_reduced_shape(a.shape, dim))


def _reduced_shape(shape, dim):
    return tuple(s for i, s in enumerate(shape) if dim is not None and i not in dim)


@logsumexp.meta
def _(a, *, dim=None, keepdim=False):
    return reduce_meta(a, dim, keepdim,
                       D.get_default_dtype() if a.dtype.category < 2 else a.dtype)


@logsumexp.derivative
def _(grad, a, out, *, dim, keepdim):
    nd = a.dim()
    return keep(grad, nd, dim, keepdim) * (a - keep(out, nd, dim, keepdim)).exp()


# ----------------------------------------------------------------------------- any / all
def _logical(name, ufunc):
    @primitive(name, kind="reduction")
    def kernel(a, *, dim=None, keepdim=False):
        r = ufunc.reduce(a, axis=dim, keepdims=keepdim)
        return np.asarray(r, np.uint8) if a.dtype == np.uint8 else np.asarray(r, np.bool_)

    @kernel.meta
    def _(a, *, dim=None, keepdim=False):
        return reduce_meta(a, dim, keepdim, D.uint8 if a.dtype is D.uint8 else D.bool)
    return kernel


any = _logical("any", np.logical_or)
all = _logical("all", np.logical_and)


# ----------------------------------------------------------------------------- hash_tensor
any_ = builtins.any


@primitive("hash_tensor", kind="reduction")
def hash_tensor(a, *, dim=None, keepdim=False, mode=0):
    """XOR of the elements' 64-bit patterns over ``dim`` (floats as float64, integers and bool as
    int64), as uint64: torch's mode 0."""
    if mode != 0 or a.dtype.kind == "c" or (a.size == 0 and not dim) or \
            any_(a.shape[d] == 0 for d in (dim or ())):
        raise TypeError  # the meta rule raises torch's error
    wide = a.astype(np.float64 if a.dtype.kind in "fc" and a.dtype.kind != "c" else np.int64)
    bits = np.ascontiguousarray(wide).view(np.uint64).reshape(a.shape)
    return np.asarray(np.bitwise_xor.reduce(bits, axis=dim, keepdims=keepdim), np.uint64)


@hash_tensor.meta
def _(a, *, dim=None, keepdim=False, mode=0):
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if a.dtype.is_complex:
        raise NotImplementedError(f'"hash_tensor" not implemented for \'{dtype_title(a.dtype)}\'')
    dims = tuple(range(a.dim())) if dim is None or dim == () else dim
    if a.numel() == 0 and (dim is None or dim == ()):
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if a.dim() and a.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    return reduce_meta(a, dim, keepdim, D.uint64)


# ----------------------------------------------------------------------------- vector norm
@primitive("linalg_vector_norm", kind="reduction")
def linalg_vector_norm(a, *, ord=2, dim=None, keepdim=False):
    if a.dtype.kind in _INTS:
        raise TypeError  # the meta rule raises torch's error
    x = np.abs(a)
    if ord == 2:
        return np.sqrt(np.add.reduce(x * x, axis=dim, keepdims=keepdim))
    if ord == 1:
        return np.add.reduce(x, axis=dim, keepdims=keepdim)
    if ord == math.inf:
        return np.maximum.reduce(x, axis=dim, keepdims=keepdim)
    if ord == -math.inf:
        return np.minimum.reduce(x, axis=dim, keepdims=keepdim)
    if ord == 0:
        return np.add.reduce(x != 0, axis=dim, keepdims=keepdim, dtype=x.dtype)
    with np.errstate(divide="ignore"):
        return np.power(np.add.reduce(np.power(x, ord), axis=dim, keepdims=keepdim), 1.0 / ord)


@linalg_vector_norm.meta
def _(a, *, ord=2, dim=None, keepdim=False):
    if a.dtype.category < 2:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {dtype_title(a.dtype)}")
    if ord in (math.inf, -math.inf):
        shape = tuple(a.shape)
        which = "inf" if ord > 0 else "-inf"
        if dim is None and math.prod(shape) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {which} norm on an empty "
                               "tensor because the operation does not have an identity")
        for d in dim or ():
            if shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {which} norm on the "
                                   f"dimension {d}because this dimension is empty and the operation "
                                   "does not have an identity")
    return reduce_meta(a, dim, keepdim, a.dtype.to_real())


@linalg_vector_norm.derivative
def _(grad, a, out, *, ord, dim, keepdim):
    # torch's norm_backward, case by case
    nd = a.dim()
    g, n = keep(grad, nd, dim, keepdim), keep(out, nd, dim, keepdim)
    if ord == 0:
        return a.new_zeros(tuple(a.shape))
    if ord == 1:
        return a.sgn() * g
    if ord == 2:
        return g * (a / n).where(n != 0, 0)
    if ord in (math.inf, -math.inf):
        hit = (a.abs() == n).logical_or(a.isnan().logical_and(n.isnan()))
        count = hit._op(sum, dim=dim, keepdim=True)
        return a.sgn() * hit * (g / count)
    if ord < 1:
        scaled = a.sgn() * (a.abs() ** (ord - 1)).where(a != 0, 0)
        return scaled * g * n ** (1 - ord)
    scaled = a.sgn() * a.abs() ** (ord - 1) if ord < 2 else a * a.abs() ** (ord - 2)
    return scaled * (g / n ** (ord - 1)).where(n != 0, 0)


# ----------------------------------------------------------------------------- renorm
def _renorm_dims(a, dim):
    return tuple(d for d in range(a.ndim) if d != dim)


@primitive("renorm", kind="other")
def renorm(a, *, p, dim, maxnorm):
    """Each slice along ``dim`` whose p-norm (over the other dims) exceeds ``maxnorm`` is scaled by
    ``maxnorm / (norm + 1e-7)``; the norm is taken in float64 as torch accumulates on the CPU."""
    others = _renorm_dims(a, dim)
    if a.dtype.kind not in "fc" or (abs(p) == math.inf and a.size == 0):
        raise SlowPath  # the meta rule raises linalg.vector_norm's error
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        norm = linalg_vector_norm.kernel(wide, ord=p, dim=others, keepdim=True)
        factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
        return (a * factor.astype(a.real.dtype)).astype(a.dtype, copy=False)


@renorm.meta
def _(a, *, p, dim, maxnorm):
    linalg_vector_norm.meta_rule(a, ord=p, dim=_renorm_dims(a, dim), keepdim=True)
    return TensorMeta(tuple(a.shape), a.dtype)


@renorm.derivative
def _(grad, a, *, p, dim, maxnorm):
    # torch's renorm_backward: the scaled slices get factor * grad minus the norm's own derivative
    # fed with sum(conj(a) grad) * factor / (norm + 1e-7); the others pass grad unchanged (the
    # choice is a where, so inf/NaN norms leave unscaled slices alone)
    others = _renorm_dims(a, dim)
    norm = a._op(linalg_vector_norm, ord=p, dim=others, keepdim=True)
    dot = a.conj() * grad
    dot = (dot.real if dot.is_complex() else dot)._op(sum, dim=others, keepdim=True)
    nb = linalg_vector_norm.backward(dot, a, norm, ord=p, dim=others, keepdim=True)
    inv = (norm + 1e-7).reciprocal()
    factor = inv * maxnorm
    return (factor * grad - (factor * inv) * nb).where(norm > maxnorm, grad)


__all__ = ["sum", "mean", "prod", "amax", "amin", "max_all", "min_all", "max_dim", "min_dim",
           "median_all", "median_dim",
           "argmax", "argmin", "var", "std", "cumsum", "cumsum_reverse", "cumprod", "logsumexp",
           "any", "all", "hash_tensor", "linalg_vector_norm", "renorm", "index_mask", "unreduce", "keep", "TensorMeta"]
