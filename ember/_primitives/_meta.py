"""Shared meta rules (layer L1): shapes, strides and dtypes computed without data.

Inputs are anything with ``shape``, ``dtype``, ``stride()`` and ``storage_offset()`` (Tensors at run
time); results are ``TensorMeta``.
"""
from __future__ import annotations

from .. import _dtype as D
from .._shape import broadcast_shapes, contiguous_strides, normalize_dim, normalize_dims
from ._registry import TensorMeta

__all__ = ["where_meta", "reduce_meta", "view_meta", "same_meta"]


def _is_tensor(x) -> bool:
    return hasattr(x, "_dtype")


def _key(x):
    if _is_tensor(x):
        return (x._dtype, x.dim() == 0)
    return type(x)


def where_meta(condition, a, b) -> TensorMeta:
    if _is_tensor(condition) and condition.dtype is not D.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with "
                           f"dtype {condition.dtype.name.capitalize()}")
    shapes = [tuple(x.shape) for x in (condition, a, b) if _is_tensor(x)]
    return TensorMeta(broadcast_shapes(*shapes), D.result_type_of((_key(a), _key(b))))


def same_meta(a, **_) -> TensorMeta:
    return TensorMeta(tuple(a.shape), a.dtype)


def reduce_meta(a, dim=None, keepdim=False, dtype=None) -> TensorMeta:
    """Shape of a reduction over ``dim`` (None: all dims)."""
    shape = tuple(a.shape)
    dims = normalize_dims(dim, len(shape)) if dim is not None and dim != () else tuple(range(len(shape)))
    if keepdim:
        out = tuple(1 if i in dims else s for i, s in enumerate(shape))
    else:
        out = tuple(s for i, s in enumerate(shape) if i not in dims)
    return TensorMeta(out, dtype or a.dtype)


def view_meta(a, shape, strides, offset=None) -> TensorMeta:
    return TensorMeta(shape, a.dtype, tuple(strides), a.storage_offset() if offset is None else offset)


def dim_of(a, dim) -> int:
    return normalize_dim(dim, a.dim())


__all__ += ["dim_of", "contiguous_strides"]
