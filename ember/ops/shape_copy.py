"""Copying shape primitives (layer L1): clone, contiguous, copy_, cat, stack, flip, roll...

Each returns fresh memory; derivatives route the gradient back to the pieces.
"""
from __future__ import annotations

import numpy as np

from ._meta import same_meta
from ._registry import TensorMeta, primitive


@primitive("clone", kind="other")
def clone(a, *, memory_format=None):
    if memory_format == "contiguous":
        return np.array(a, order="C", copy=True)
    return np.array(a, order="K", copy=True)


@clone.meta
def _(a, *, memory_format=None):
    return TensorMeta(tuple(a.shape), a.dtype)


@clone.derivative
def _(grad):
    return grad


@primitive("copy", kind="other", node_name="CopyBackwards")
def copy(dst, src):
    """The value ``dst.copy_(src)`` writes: src broadcast to dst's shape, in dst's dtype."""
    return np.array(np.broadcast_to(src, dst.shape), dtype=dst.dtype, copy=True)


@copy.meta
def _(dst, src):
    return TensorMeta(tuple(dst.shape), dst.dtype)


@copy.derivative
def _(grad, *, src_shape):
    return grad * 0, grad


__all__ = ["clone", "copy", "same_meta"]
