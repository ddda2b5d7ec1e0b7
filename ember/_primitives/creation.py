"""Creation primitives (layer L1): no tensor inputs; ``device='meta'`` makes data-free tensors."""
from __future__ import annotations

import numpy as np

from ._registry import TensorMeta, primitive


@primitive("full", kind="creation")
def full(*, size, fill_value, dtype, device=None):
    return np.full(size, fill_value, dtype.np)


@full.meta
def _(*, size, fill_value, dtype, device=None):
    return TensorMeta(tuple(size), dtype)


@primitive("empty", kind="creation")
def empty(*, size, dtype, device=None):
    return np.empty(size, dtype.np)


@empty.meta
def _(*, size, dtype, device=None):
    return TensorMeta(tuple(size), dtype)


__all__ = ["full", "empty"]
