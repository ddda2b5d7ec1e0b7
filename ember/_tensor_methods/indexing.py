"""Indexing methods (layer L2): gather/scatter, index_select/add/copy/fill, masked ops, nonzero, take.

Primitives live in ``_primitives/indexing.py``; ``masked_select``, ``argwhere`` and ``take_along_dim`` are
composites. In-place variants (``scatter_``, ``masked_fill_``...) go through ``dispatch_inplace``.

Example:
    >>> import ember
    >>> x = ember.tensor([[1, 2], [3, 4]])
    >>> x.gather(1, ember.tensor([[1], [0]]))
    tensor([[2],
            [3]])
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dtype_complex32 import refuse
from .._dtype_scalar import PLAIN_RANGE, as_scalar, checked_scalar
from .._dispatch import dispatch
from .._dispatch_inplace import dispatch_inplace, dispatch_out
from .._errors import dtype_title
from .._indexing_advanced import index_put, index_put_
from .._shape import broadcast_shapes, normalize_dim
from .._primitives import indexing as I
from ..overrides import public
from ._args import TensorBase

__all__ = ["IndexingMixin", "FUNCTIONS"]


def _dim(input, dim):
    return normalize_dim(dim, input.dim())


def _check_index(name, index):
    if not isinstance(index, TensorBase):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")


def _run(op, out, *args, **params):
    if out is not None:
        return dispatch_out(op, out, *args, **params)
    return dispatch(op, *args, **params)


def _along_dim(op, input, dim, index, source, *, out=None, inplace=False, **params):
    """``op(input, index, source)`` along ``dim`` (scatter_add, index_add, index_copy) after its
    meta rule checks the shapes: in place, into ``out``, or as a new tensor."""
    dim = _dim(input, dim)
    op.meta_rule(input, index, source, dim=dim)
    if inplace:
        return dispatch_inplace(op, input, index, source, dim=dim, **params)
    return _run(op, out, input, index, source, dim=dim, **params)


# ----------------------------------------------------------------------------- gather / scatter
@public
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` for dim 0 (and likewise for other dims)."""
    _check_index("gather", index)
    dim = _dim(input, dim)
    I.gather.meta_rule(input, index, dim=dim)  # NumPy would broadcast or accept int32 silently
    return _run(I.gather, out, input, index, dim=dim)


def _scatter_src(input, src, value):
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    if isinstance(src, TensorBase):
        return src
    return src.item() if hasattr(src, "item") else src


def _scatter(input, dim, index, src, value, reduce, inplace, out=None):
    _check_index("scatter", index)
    dim = _dim(input, dim)
    src = _scatter_src(input, src, value)
    I.scatter.meta_rule(input, index, src, dim=dim)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
        if not isinstance(src, TensorBase):
            src = input.new_full(tuple(index.shape), src)
        r = "sum" if reduce == "add" else "prod"
        return _reduce(input, dim, index, src, r, True, inplace, out)
    if inplace:
        return dispatch_inplace(I.scatter, input, index, src, dim=dim)
    return _run(I.scatter, out, input, index, src, dim=dim)


@public
def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """A copy of ``input`` with ``src`` (a tensor or scalar) written at ``index`` along ``dim``."""
    return _scatter(input, dim, index, src, value, reduce, False, out)


@public
def scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    return _scatter(input, dim, index, src, value, reduce, True)


@public
def scatter_add(input, dim, index, src, *, out=None):
    """A copy of ``input`` with ``src`` summed in at ``index`` along ``dim`` (duplicates accumulate)."""
    return _along_dim(I.scatter_add, input, dim, index, src, out=out)


@public
def scatter_add_(input, dim, index, src):
    return _along_dim(I.scatter_add, input, dim, index, src, inplace=True)


def _reduce(input, dim, index, src, reduce, include_self, inplace, out=None):
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if reduce == "sum" and include_self:
        op, kw = I.scatter_add, {}
    else:
        op, kw = I.scatter_reduce_two, dict(reduce=reduce, include_self=include_self)
    if inplace:
        return dispatch_inplace(op, input, index, src, dim=dim, **kw)
    return _run(op, out, input, index, src, dim=dim, **kw)


@public
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Reduce ``src`` into a copy of ``input`` at ``index`` ('sum', 'prod', 'mean', 'amax', 'amin')."""
    dim = _dim(input, dim)
    I.scatter_reduce_two.meta_rule(input, index, src, dim=dim)
    return _reduce(input, dim, index, src, reduce, include_self, False, out)


@public
def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    dim = _dim(input, dim)
    I.scatter_reduce_two.meta_rule(input, index, src, dim=dim)
    return _reduce(input, dim, index, src, reduce, include_self, True)


# ----------------------------------------------------------------------------- index_*
@public
def index_select(input, dim, index, *, out=None):
    """The entries of ``input`` at ``index`` (a vector) along ``dim``; a copy.

    >>> import ember
    >>> ember.arange(6).view(2, 3).index_select(1, ember.tensor([2, 0]))
    tensor([[2, 0],
            [5, 3]])
    """
    _check_index("index_select", index)
    dim = _dim(input, dim)
    I.index_select.meta_rule(input, index, dim=dim)
    return _run(I.index_select, out, input, index, dim=dim)


@public
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """A copy of ``input`` with ``alpha * source`` added at ``index`` along ``dim``."""
    return _along_dim(I.index_add, input, dim, index, source, out=out, alpha=alpha)


@public
def index_add_(input, dim, index, source, *, alpha=1):
    return _along_dim(I.index_add, input, dim, index, source, inplace=True, alpha=alpha)


@public
def index_copy(input, dim, index, source, *, out=None):
    """A copy of ``input`` with slices of ``source`` written at ``index`` along ``dim``."""
    return _along_dim(I.index_copy, input, dim, index, source, out=out)


@public
def index_copy_(input, dim, index, source):
    return _along_dim(I.index_copy, input, dim, index, source, inplace=True)


def _fill_value(name, value, dtype):
    if isinstance(value, TensorBase):
        if value.dim() != 0:
            raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
        value = value.item()
    value = as_scalar(value)
    if isinstance(value, complex) and not dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    if dtype is D.uint64:
        raise NotImplementedError("\"index_fill_cpu\" not implemented for 'UInt64'")
    return checked_scalar(value, dtype)  # complex32 is checked against its own half range here


@public
def index_fill(input, dim, index, value):
    """A copy of ``input`` with ``value`` written at ``index`` along ``dim``."""
    dim = _dim(input, dim)
    I.index_fill.meta_rule(input, index, dim=dim, value=0)
    if isinstance(value, TensorBase) and value.requires_grad and value.dim() == 0:
        # the value receives a gradient: the filled positions as a mask, then a where()
        mask = dispatch(I.index_fill, input.new_zeros(tuple(input.shape), dtype=D.bool), index,
                        dim=dim, value=True)
        return _where(mask, value.to(input.dtype), input)
    return dispatch(I.index_fill, input, index, dim=dim,
                    value=_fill_value("index_fill_", value, input.dtype))


@public
def index_fill_(input, dim, index, value):
    dim = _dim(input, dim)
    I.index_fill.meta_rule(input, index, dim=dim, value=0)
    return dispatch_inplace(I.index_fill, input, index, dim=dim,
                            value=_fill_value("index_fill_", value, input.dtype))


# ----------------------------------------------------------------------------- masked
def _masked_fill(input, mask, value, inplace):
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{dtype_title(mask.dtype).lower()}")
    if isinstance(value, TensorBase):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                               f"with {value.dim()} dimension(s).")
        if value.requires_grad or value.is_meta:
            # the value receives a gradient: write it as a where() of ember ops
            I.masked_fill.meta_rule(input, mask, value=0)
            res = _where(mask, value.to(input.dtype), input)
            if inplace:
                return input.copy_(res)
            return res
        value = value.item()
    if ((t := type(value)) is not float and t is not int) or \
            not (r := PLAIN_RANGE[input.dtype])[0] <= value <= r[1]:  # else: stored as given
        value = as_scalar(value)
        if input.dtype is not D.uint64:  # complex32 is checked against its own half range here
            value = checked_scalar(value, input.dtype)
    if input.dtype is D.uint64:
        raise NotImplementedError("\"masked_fill\" not implemented for 'UInt64'")
    if inplace:
        return dispatch_inplace(I.masked_fill, input, mask, value=value)
    return dispatch(I.masked_fill, input, mask, value=value)


def _where(mask, a, b):
    from .._primitives import pointwise as P
    return dispatch(P.where, mask, a, b)


@public
def masked_fill(input, mask, value):
    """A copy of ``input`` with ``value`` (a scalar or 0-dim tensor) where ``mask`` is True.

    >>> import ember
    >>> ember.zeros(3).masked_fill(ember.tensor([True, False, True]), 2.)
    tensor([2., 0., 2.])
    """
    return _masked_fill(input, mask, value, False)


@public
def masked_fill_(input, mask, value):
    return _masked_fill(input, mask, value, True)


@public
def masked_select(input, mask, *, out=None):
    """The elements of ``input`` where ``mask`` (broadcast) is True, as a 1-D tensor."""
    if mask.dtype is not D.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    if input.is_meta or mask.is_meta:
        raise NotImplementedError("aten::masked_select: attempted to run this operator with Meta "
                                  "tensors, but its output shape depends on the data")
    x, m = input.expand(shape), mask.expand(shape)
    if not shape:
        x, m = x.reshape(1), m.reshape(1)
    nz = dispatch(I.nonzero, m)
    res = dispatch(I.index, x, [nz.select(1, j) for j in range(x.dim())])
    if out is not None:
        return out.copy_(res) if tuple(out.shape) == tuple(res.shape) else _resize_copy(out, res)
    return res


def _resize_copy(out, res):
    out._resize_for_out(tuple(res.shape))
    return out.copy_(res)


@public
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements: an (n, ndim) int64 tensor, or one 1-D tensor per dim.

    >>> import ember
    >>> ember.tensor([0, 3, 0, 4]).nonzero()
    tensor([[1],
            [3]])
    """
    res = _run(I.nonzero, out, input)
    if as_tuple:
        if input.dim() == 0:
            return (res.reshape(-1).new_zeros((res.shape[0],)),)
        return tuple(res.select(1, j) for j in range(res.shape[1]))
    return res


@public
def argwhere(input):
    """``nonzero(input)``: an (n, ndim) tensor of the indices of non-zero elements."""
    return dispatch(I.nonzero, input)


# ----------------------------------------------------------------------------- take
@public
def take(input, index):
    """``input`` viewed as 1-D, indexed by ``index`` (result has ``index``'s shape)."""
    _check_index("take", index)
    if index.dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {dtype_title(index.dtype)}")
    return dispatch(I.take, input, index)


@public
def take_along_dim(input, indices, dim=None, *, out=None):
    """Gather values along ``dim`` at ``indices`` broadcast against ``input`` (flattened if None)."""
    if dim is None:
        flat = indices.reshape(-1)
        flat = flat + (flat < 0).to(flat.dtype) * input.numel()  # negative indices count from the end
        return gather(input.reshape(-1), 0, flat, out=out)
    dim = _dim(input, dim)
    indices = indices + (indices < 0).to(indices.dtype) * input.shape[dim]
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.dim()} dimensions for input, and {indices.dim()} "
                           "dimensions for indices")
    si, sx = list(input.shape), list(indices.shape)
    si[dim] = sx[dim] = 1
    b = list(broadcast_shapes(tuple(si), tuple(sx)))
    bi, bx = list(b), list(b)
    bi[dim], bx[dim] = input.shape[dim], indices.shape[dim]
    return gather(input.expand(bi), dim, indices.expand(bx), out=out)


# ----------------------------------------------------------------------------- put / masked_scatter / index_reduce
def _put_checks(name, input, index, source):
    if index.dtype is not D.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{dtype_title(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{name}(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {dtype_title(input.dtype)} and source.dtype = "
                           f"{dtype_title(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but "
                         f"got source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    if index.numel() and not input.is_meta:
        flat = index.reshape(-1)
        bad = (flat >= n) | (flat < -n)
        if bool(bad.any()):
            v = int(flat[bad.long().argmax()])
            raise IndexError(f"out of range: tried to access index {v} on a tensor of {n} elements.")


@public
def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source`` written at the flat ``index`` (summed when ``accumulate``)."""
    _put_checks("put", input, index, source)
    flat = input.reshape(-1)
    res = index_put(flat, (index.reshape(-1),), source.reshape(-1), accumulate)
    return res.view(tuple(input.shape))


@public
def put_(input, index, source, accumulate=False):
    """In-place ``put``: writes ``source`` at the flat ``index`` of ``input``."""
    _put_checks("put_", input, index, source)
    return input.copy_(put(input, index, source, accumulate))


@public
def masked_scatter(input, mask, source):
    """A copy of ``input`` with consecutive elements of ``source`` written where ``mask`` is True.

    >>> import ember
    >>> ember.zeros(3).masked_scatter(ember.tensor([True, False, True]), ember.tensor([1., 2.])).tolist()
    [1.0, 0.0, 2.0]
    """
    if input.dtype is D.complex32:
        raise refuse("masked_scatter")
    if mask.dtype is not D.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{dtype_title(mask.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{dtype_title(input.dtype)} and {dtype_title(source.dtype)}")
    shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    x, m = input.expand(shape).reshape(-1), mask.expand(shape).reshape(-1)
    pos = m.long().cumsum(0) - 1  # where each True takes its value from in source
    count = int(pos[-1]) + 1 if pos.numel() else 0
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count == 0:
        return x.clone().view(shape)
    taken = source.reshape(-1).index_select(0, pos.clamp(min=0))
    return _where(m, taken, x).view(shape)


@public
def masked_scatter_(input, mask, source):
    """In-place ``masked_scatter``."""
    return input.copy_(masked_scatter(input, mask, source))


_INDEX_REDUCE = ("prod", "mean", "amax", "amin")


def _index_reduce_args(name, input, dim, index, source, reduce):
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError(f"{name}(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    d = _dim(input, dim)
    if index.dim() > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index.dtype not in (D.int64, D.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index")
    n = source.shape[d] if source.dim() else 1
    if index.numel() != n:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({n}), for dim: {d}")
    shape = [1] * source.dim()
    if shape:
        shape[d] = -1
    return d, index.long().reshape(shape).expand(tuple(source.shape))


@public
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce slices of ``source`` into a copy of ``input`` at ``index`` along ``dim`` ('prod', 'mean',
    'amax', 'amin'; ``include_self`` counts input's own values)."""
    d, idx = _index_reduce_args("index_reduce", input, dim, index, source, reduce)
    return scatter_reduce(input, d, idx, source, reduce, include_self=include_self)


@public
def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """In-place ``index_reduce``."""
    d, idx = _index_reduce_args("index_reduce_", input, dim, index, source, reduce)
    return scatter_reduce_(input, d, idx, source, reduce, include_self=include_self)


@public
def fill_diagonal_(input, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal of ``input`` in place (all dims equal when > 2-D;
    ``wrap`` continues the diagonal every ``cols + 1`` rows of a tall matrix, like NumPy)."""
    nd = input.dim()
    if nd < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(input.shape)
    if nd > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    step = sum(strides)
    numel = acc
    if nd == 2 and wrap:
        end = numel
    else:
        end = min(shape) * step
    positions = input.new_tensor(np.arange(0, min(end, numel), step), dtype=D.int64)
    flat = input.reshape(-1).index_fill(0, positions, fill_value)
    return input.copy_(flat.view(shape))


class IndexingMixin:
    __slots__ = ()
    gather = gather
    scatter, scatter_, scatter_add, scatter_add_ = scatter, scatter_, scatter_add, scatter_add_
    scatter_reduce, scatter_reduce_ = scatter_reduce, scatter_reduce_
    index_select, index_add, index_add_ = index_select, index_add, index_add_
    index_copy, index_copy_, index_fill, index_fill_ = index_copy, index_copy_, index_fill, index_fill_
    index_put, index_put_ = public(index_put), public(index_put_)
    masked_fill, masked_fill_, masked_select = masked_fill, masked_fill_, masked_select
    nonzero, argwhere, take, take_along_dim = nonzero, argwhere, take, take_along_dim
    put, put_, masked_scatter, masked_scatter_ = put, put_, masked_scatter, masked_scatter_
    index_reduce, index_reduce_ = index_reduce, index_reduce_
    fill_diagonal_ = fill_diagonal_


FUNCTIONS = dict(
    gather=gather, scatter=scatter, scatter_add=scatter_add, scatter_reduce=scatter_reduce,
    index_select=index_select, index_add=index_add, index_copy=index_copy, index_fill=index_fill,
    index_put=IndexingMixin.index_put, index_put_=IndexingMixin.index_put_, masked_fill=masked_fill,
    masked_select=masked_select, nonzero=nonzero, argwhere=argwhere, take=take,
    take_along_dim=take_along_dim, put=put, masked_scatter=masked_scatter, index_reduce=index_reduce,
)
