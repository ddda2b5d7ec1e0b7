"""Indexing primitives (layer L1): advanced ``index``/``index_put``, gather/scatter, index_* and
masked ops, nonzero, take.

Kernels check index bounds themselves so errors carry torch's wording; backward of a gather-like op
is the matching scatter-add (duplicate indices accumulate, as in torch).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from .._shape import broadcast_shapes
from ._registry import TensorMeta, primitive

__all__ = ["index", "index_put", "gather", "scatter", "scatter_add", "scatter_reduce_two",
           "index_select", "index_add", "index_copy", "index_fill", "masked_fill", "nonzero", "take",
           "index_shape", "check_bounds"]


def check_bounds(idx, n, dim, exc=IndexError, negative=True, prefix=""):
    """Raise torch's out-of-bounds error for the first index outside [-n, n) ([0, n) if not
    ``negative``: gather/scatter-like ops refuse negative indices)."""
    if idx.size:
        bad = (idx >= n) | (idx < (-n if negative else 0))
        if bad.any():
            v = idx.reshape(-1)[np.argmax(bad.reshape(-1))]
            raise exc(f"{prefix}index {v} is out of bounds for dimension {dim} with size {n}")


# ----------------------------------------------------------------------------- index / index_put
def index_shape(shape, indices) -> tuple:
    """Result shape of ``a[indices]``: torch's (and NumPy's) placement of the advanced dims."""
    shape = tuple(shape)
    adv = [d for d, i in enumerate(indices) if i is not None]
    ishapes = [tuple(indices[d].shape) for d in adv]
    try:
        bshape = broadcast_shapes(*ishapes)
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(s)) for s in ishapes)) from None
    n = len(indices)
    if adv == list(range(adv[0], adv[-1] + 1)):
        return shape[:adv[0]] + bshape + shape[adv[-1] + 1:]
    return bshape + tuple(s for d, s in enumerate(shape[:n]) if indices[d] is None) + shape[n:]


def _key(a, indices):
    key = []
    for d, i in enumerate(indices):
        if i is None:
            key.append(slice(None))
        else:
            check_bounds(i, a.shape[d], d)
            key.append(i)
    return tuple(key)


@primitive("index", kind="other")
def index(a, indices):
    """``a[indices]`` where ``indices`` holds an integer array or None (a full slice) per leading dim."""
    return a[_key(a, indices)]


@index.meta
def _(a, indices):
    return TensorMeta(index_shape(a.shape, indices), a.dtype)


@index.derivative
def _(grad, indices, *, a_shape):
    return grad.new_zeros(a_shape)._op(index_put, indices, grad, accumulate=True)


@primitive("index_put", kind="other")
def index_put(a, indices, values, *, accumulate=False):
    """A copy of ``a`` with ``a[indices] = values`` (``+=`` with duplicates summed if accumulate)."""
    out = a.copy()
    key = _key(a, indices)
    if accumulate:
        np.add.at(out, key, values)
    else:
        out[key] = values
    return out


@index_put.meta
def _(a, indices, values, *, accumulate=False):
    if values.dtype is not a.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{dtype_title(a.dtype)} for the destination and {dtype_title(values.dtype)} "
                           "for the source.")
    target = index_shape(a.shape, indices)
    try:
        if broadcast_shapes(tuple(values.shape), target) != target:
            raise RuntimeError
    except RuntimeError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}") from None
    return TensorMeta(tuple(a.shape), a.dtype)


@index_put.derivative
def _(grad, indices, *, accumulate):
    ga = grad if accumulate else grad._op(index_put, indices, grad.new_zeros(()), accumulate=False)
    return (ga,) + (None,) * len(indices) + (grad._op(index, indices),)


# ----------------------------------------------------------------------------- gather / scatter
def _grid(index, dim):
    key = list(np.indices(index.shape, sparse=True))
    key[dim] = index
    return tuple(key)


def _gather_meta_check(name, a, index, dim, src=None):
    if index.dtype not in (D.int64, D.int32) and index.numel() != 0:  # torch skips an empty index
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    na, ni = max(a.dim(), 1), max(index.dim(), 1)
    if ni != na and index.numel() != 0:
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'input' if name == 'gather' else 'self'} tensor")
    if src is not None and max(src.dim(), 1) != na and index.numel() != 0:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    ish, ash = list(index.shape) or [1], list(a.shape) or [1]
    if index.numel() == 0:
        return
    if name == "gather":
        for d in range(na):
            if d != dim and ish[d] > ash[d]:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)}"
                                   f" to be no larger than self {list(a.shape)} apart from dimension {dim}")
        return
    ssh = (list(src.shape) or [1]) if src is not None else None
    for d in range(na):
        if (d != dim and ish[d] > ash[d]) or (ssh is not None and ish[d] > ssh[d]):
            msg = (f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} apart "
                   f"from dimension {dim}")
            if ssh is not None:
                msg += f" and to be no larger size than src {list(src.shape)}"
            raise RuntimeError(msg)


def _at_least_1d(*arrays):
    return [x.reshape(1) if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in arrays]


@primitive("gather", kind="other")
def gather(a, index, *, dim):
    if index.size == 0:
        return np.empty(index.shape, a.dtype)
    ishape = index.shape
    a, index = _at_least_1d(a, index)
    check_bounds(index, a.shape[dim], dim, RuntimeError, False)
    src = a[tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(index.shape))]
    return np.take_along_axis(src, index, axis=dim).reshape(ishape)  # the index's shape


@gather.meta
def _(a, index, *, dim):
    _gather_meta_check("gather", a, index, dim)
    return TensorMeta(tuple(index.shape), a.dtype)


@gather.derivative
def _(grad, index, *, a_shape, dim):
    return grad.new_zeros(a_shape)._op(scatter_add, index, grad, dim=dim)


def _src_part(src, index):
    if not isinstance(src, np.ndarray):
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


def _scatter_out(a, index, dim):
    out = a.copy()
    shape = out.shape
    o, index = _at_least_1d(out, index)
    check_bounds(index, o.shape[dim], dim, RuntimeError, False)
    return out, o, shape, index


@primitive("scatter", kind="other")
def scatter(a, index, src, *, dim):
    """A copy of ``a`` with ``a[..., index[i][j], ...] = src[i][j]`` along ``dim`` (src may be a scalar)."""
    if index.size == 0:  # nothing to write (an empty index may have any number of dims)
        return a.copy()
    out, o, _, index = _scatter_out(a, index, dim)
    o[_grid(index, dim)] = _src_part(*_at_least_1d(src), index)
    return out


def _scatter_meta(name):
    def rule(a, index, src, *, dim, **_):
        is_t = hasattr(src, "_dtype")
        if is_t and src.dtype is not a.dtype:
            raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
        _gather_meta_check(name, a, index, dim, src if is_t else None)
        return TensorMeta(tuple(a.shape), a.dtype)
    return rule


scatter.meta(_scatter_meta("scatter"))


def _src_grad(grad, index, dim, src_shape):
    g = grad.gather(dim, index)
    return g if src_shape is None else _pad_to(g, tuple(src_shape))


@scatter.derivative
def _(grad, index, *, dim, src_shape):
    ga = grad._op(scatter, index, 0, dim=dim)
    return ga, None, None if src_shape is None else _src_grad(grad, index, dim, src_shape)


@primitive("scatter_add", kind="other")
def scatter_add(a, index, src, *, dim):
    if index.size == 0:  # nothing to write (an empty index may have any number of dims)
        return a.copy()
    out, o, _, index = _scatter_out(a, index, dim)
    np.add.at(o, _grid(index, dim), _src_part(*_at_least_1d(src), index))
    return out


scatter_add.meta(_scatter_meta("scatter_add"))


@scatter_add.derivative
def _(grad, index, *, dim, src_shape):
    return grad, None, _src_grad(grad, index, dim, src_shape)


_UFUNC = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum,
          "add": np.add, "multiply": np.multiply}


@primitive("scatter_reduce_two", kind="other", node_name="ScatterReduceBackward0")
def scatter_reduce_two(a, index, src, *, dim, reduce, include_self=True):
    """torch's ``scatter_reduce(dim, index, src, reduce, include_self)``."""
    if index.size == 0:  # nothing to write (an empty index may have any number of dims)
        return a.copy()
    out, o, _, index = _scatter_out(a, index, dim)
    key = _grid(index, dim)
    src = _src_part(*_at_least_1d(src), index)
    if reduce == "mean":
        cnt = np.full(o.shape, 1 if include_self else 0, np.int64)
        if not include_self:
            o[key] = 0
        np.add.at(o, key, src)
        np.add.at(cnt, key, 1)
        cnt = np.maximum(cnt, 1)
        o[...] = o / cnt if o.dtype.kind in "fc" else o // cnt
        return out
    if not include_self:
        if reduce in ("sum", "prod"):
            o[key] = 0 if reduce == "sum" else 1
        else:
            if o.dtype.kind == "b":
                lo, hi = False, True
            elif o.dtype.kind == "f":
                lo, hi = -np.inf, np.inf
            else:
                lo, hi = np.iinfo(o.dtype).min, np.iinfo(o.dtype).max
            o[key] = lo if reduce == "amax" else hi
    _UFUNC[reduce].at(o, key, src)
    return out


scatter_reduce_two.meta(_scatter_meta("scatter_reduce"))


@scatter_reduce_two.derivative
def _(grad, a, index, src, out, *, dim, reduce, include_self):
    # torch's scatter_reduce_backward, written with ember ops
    part = src[tuple(slice(0, n) for n in index.shape)] if tuple(src.shape) != tuple(index.shape) else src
    if reduce == "sum":
        ga, gs = grad, grad.gather(dim, index)
    elif reduce == "mean":
        n = grad.new_full(tuple(grad.shape), 1 if include_self else 0)
        n = n._op(scatter_add, index, grad.new_ones(tuple(index.shape)), dim=dim)
        n = n.masked_fill(n == 0, 1)
        ga = grad / n
        gs = ga.gather(dim, index)
    elif reduce in ("amax", "amin"):
        self_is = (a == out).to(grad.dtype)
        src_is = (part == out.gather(dim, index)).to(grad.dtype)
        count = self_is._op(scatter_add, index, src_is, dim=dim)
        dist = grad / count
        ga = self_is * dist
        gs = src_is * dist.gather(dim, index)
    else:  # prod
        masked_a = a.masked_fill(a == 0, 1)
        res_masked = masked_a._op(scatter_reduce_two, index, part, dim=dim, reduce="prod",
                                  include_self=include_self)
        ga = grad * res_masked / masked_a
        src_zero = part == 0
        zeros = src_zero.to(grad.dtype)
        n_zero = grad.new_zeros(tuple(grad.shape))._op(scatter_add, index, zeros, dim=dim).gather(dim, index)
        single = src_zero & (n_zero == 1)
        masked_src = part.masked_fill(single, 1)
        res_src = a._op(scatter_reduce_two, index, masked_src, dim=dim, reduce="prod",
                        include_self=include_self)
        gs = (grad * out).gather(dim, index) / part.masked_fill(src_zero, 1)
        gs = (grad * res_src).gather(dim, index).where(single, gs.masked_fill(src_zero, 0))
    if not include_self:
        ga = ga._op(scatter, index, 0, dim=dim)
    return ga, None, _pad_to(gs, tuple(src.shape))


def _pad_to(g, shape):
    if tuple(g.shape) == shape:
        return g
    full = g.new_zeros(shape)
    full[tuple(slice(0, n) for n in g.shape)] = g
    return full


# ----------------------------------------------------------------------------- index_select / index_*
def _idx_check(name, index):
    if index.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")


def _moved(a, dim):
    return np.moveaxis(a.reshape(1) if a.ndim == 0 else a, dim, 0)


@primitive("index_select", kind="other")
def index_select(a, index, *, dim):
    n = a.shape[dim] if a.ndim else 1
    idx = index.reshape(-1)
    if idx.size and ((idx >= n) | (idx < 0)).any():
        raise IndexError("index out of range in self")
    out = np.take(a.reshape(1) if a.ndim == 0 else a, idx, axis=dim)
    return out.reshape(()) if a.ndim == 0 else out


@index_select.meta
def _(a, index, *, dim):
    _idx_check("index_select", index)
    shape = list(a.shape)
    if shape:
        shape[dim] = index.numel()
    return TensorMeta(tuple(shape), a.dtype)


@index_select.derivative
def _(grad, index, *, a_shape, dim):
    return grad.new_zeros(a_shape)._op(index_add, index.reshape(-1), grad, dim=dim)


def _index_source_check(name, a, index, source, dim, exc):
    _idx_check(name, index)
    ns = source.shape[dim] if source.dim() else 1
    if index.numel() != ns:
        if name == "index_add_":
            raise exc(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                      f"source.size(dim): ({ns}), for dim: {dim}")
        raise exc(f"{name}(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                  f"({ns})")
    if source.dtype is not a.dtype:
        raise RuntimeError(f"{name.rstrip('_')}(): self ({dtype_title(a.dtype)}) and source "
                           f"({dtype_title(source.dtype)}) must have the same scalar type")


@primitive("index_add", kind="other")
def index_add(a, index, source, *, dim, alpha=1):
    out = a.copy()
    idx = index.reshape(-1)
    check_bounds(idx, a.shape[dim] if a.ndim else 1, dim, RuntimeError, False)
    src = _moved(source, dim)
    if alpha != 1 and type(alpha) is int and src.dtype.kind in "iu":
        alpha = np.array(alpha).astype(src.dtype)  # torch wraps the int into the integer dtype
    np.add.at(_moved(out, dim), idx, src * alpha if alpha != 1 else src)
    return out


@index_add.meta
def _(a, index, source, *, dim, alpha=1):
    _index_source_check("index_add_", a, index, source, dim, RuntimeError)
    return TensorMeta(tuple(a.shape), a.dtype)


@index_add.derivative
def _(grad, index, *, dim, alpha):
    gs = grad._op(index_select, index, dim=dim)
    return grad, None, gs * alpha if alpha != 1 else gs


@primitive("index_copy", kind="other")
def index_copy(a, index, source, *, dim):
    out = a.copy()
    idx = index.reshape(-1)
    check_bounds(idx, a.shape[dim] if a.ndim else 1, dim, IndexError, False, "index_copy_(): ")
    _moved(out, dim)[idx] = _moved(source, dim)
    return out


@index_copy.meta
def _(a, index, source, *, dim):
    _index_source_check("index_copy_", a, index, source, dim, IndexError)
    return TensorMeta(tuple(a.shape), a.dtype)


@index_copy.derivative
def _(grad, index, *, dim):
    return grad._op(index_fill, index, dim=dim, value=0), None, grad._op(index_select, index, dim=dim)


@primitive("index_fill", kind="other")
def index_fill(a, index, *, dim, value):
    out = a.copy()
    idx = index.reshape(-1)
    check_bounds(idx, a.shape[dim] if a.ndim else 1, dim)
    _moved(out, dim)[idx] = value
    return out


@index_fill.meta
def _(a, index, *, dim, value):
    if index.dtype is not D.int64:
        raise RuntimeError("index_fill_(): Expected dtype int64 for index.")
    return TensorMeta(tuple(a.shape), a.dtype)


@index_fill.derivative
def _(grad, index, *, dim):
    return grad._op(index_fill, index, dim=dim, value=0)


# ----------------------------------------------------------------------------- masked / nonzero / take
@primitive("masked_fill", kind="other")
def masked_fill(a, mask, *, value):
    return np.where(mask, np.asarray(value).astype(a.dtype), a)


@masked_fill.meta
def _(a, mask, *, value):
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.name}")
    return TensorMeta(broadcast_shapes(tuple(a.shape), tuple(mask.shape)), a.dtype)


@masked_fill.derivative
def _(grad, mask):
    return grad._op(masked_fill, mask, value=0)


def _data_dependent(name):
    def rule(*args, **params):
        raise NotImplementedError(f"aten::{name}: attempted to run this operator with Meta tensors, but "
                                  "its output shape depends on the data, so it has no meta kernel")
    return rule


@primitive("nonzero", kind="other")
def nonzero(a):
    if a.ndim == 0:
        return np.zeros((1 if a else 0, 0), np.int64)
    return np.stack(np.nonzero(a), axis=1).astype(np.int64, copy=False)


nonzero.meta(_data_dependent("nonzero"))


@primitive("take", kind="other")
def take(a, index):
    flat = a.reshape(-1)
    n = flat.size
    if index.size:
        bad = (index >= n) | (index < -n)
        if bad.any():
            v = index.reshape(-1)[np.argmax(bad.reshape(-1))]
            raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements.")
    return flat[index]


@take.meta
def _(a, index):
    if index.dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {dtype_title(index.dtype)}")
    return TensorMeta(tuple(index.shape), a.dtype)


@take.derivative
def _(grad, index, *, a_shape):
    n = 1
    for s in a_shape:
        n *= s
    flat = grad.new_zeros((n,))._op(index_put, (index.reshape(-1),), grad.reshape(-1), accumulate=True)
    return flat.reshape(a_shape)


