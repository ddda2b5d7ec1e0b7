"""Reduction primitives (layer L1): sum, mean, ... over ``dim`` (None: all dims) with ``keepdim``.

The derivative of a reduction broadcasts the gradient back over the reduced dims (``_unreduce``).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from ._meta import reduce_meta
from ._registry import TensorMeta, primitive


def _axis(dim):
    return None if dim is None else tuple(dim)


def unreduce(grad, a_shape, dim, keepdim):
    """Broadcast a reduction's gradient back to the input's shape."""
    if not keepdim and dim is not None and len(a_shape):
        for d in sorted(dim):
            grad = grad.unsqueeze(d)
    elif not keepdim and dim is None:
        grad = grad.reshape((1,) * len(a_shape))
    return grad.expand(a_shape)


def _sum_dtype(a, dtype):
    if dtype is not None:
        return dtype.np
    return np.int64 if a.dtype.kind in "biu" else None


@primitive("sum", kind="reduction")
def sum(a, *, dim=None, keepdim=False, dtype=None):
    return np.sum(a, axis=_axis(dim), keepdims=keepdim, dtype=_sum_dtype(a, dtype))


@sum.meta
def _(a, *, dim=None, keepdim=False, dtype=None):
    out = dtype or (D.int64 if a.dtype.category < 2 else a.dtype)
    return reduce_meta(a, dim, keepdim, out)


@sum.derivative
def _(grad, *, a_shape, dim, keepdim):
    return unreduce(grad, a_shape, dim, keepdim)


@primitive("mean", kind="reduction")
def mean(a, *, dim=None, keepdim=False, dtype=None):
    if dtype is None and a.dtype.kind in "biu":
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {_TITLE.get(a.dtype.name, a.dtype.name)}")
    out = np.mean(a, axis=_axis(dim), keepdims=keepdim, dtype=dtype.np if dtype else None)
    return out.astype(a.dtype if dtype is None else dtype.np, copy=False)


_TITLE = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool"}


@mean.meta
def _(a, *, dim=None, keepdim=False, dtype=None):
    if dtype is None and a.dtype.category < 2:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype.")
    return reduce_meta(a, dim, keepdim, dtype or a.dtype)


@mean.derivative
def _(grad, *, a_shape, dim, keepdim):
    n = 1
    for d in (range(len(a_shape)) if dim is None else dim):
        n *= a_shape[d]
    return unreduce(grad, a_shape, dim, keepdim) / max(n, 1) if n else \
        unreduce(grad, a_shape, dim, keepdim) * float("nan")


__all__ = ["sum", "mean", "unreduce", "TensorMeta"]
