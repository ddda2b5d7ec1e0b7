"""Tensor pickling and deepcopy (layer L2): memoised on storage so views stay views."""
from __future__ import annotations

import numpy as np

__all__ = ["reduce_tensor", "deepcopy_tensor", "setstate_tensor"]


def _rebuild(array, dtype_name, requires_grad, cls=None):
    from . import _dtype as D
    from ._dispatch import wrap
    t = wrap(array, D._dtype_by_name(dtype_name))
    t._requires_grad = requires_grad
    if cls is not None:
        from ._tensor import Tensor
        t = Tensor._make_subclass(cls, t, requires_grad)
    return t


def reduce_tensor(t):
    from ._tensor import Tensor
    cls = None if type(t) is Tensor else type(t)
    state = t.__dict__ or None
    return (_rebuild, (np.array(t.detach()._data), t.dtype.name, t.requires_grad, cls), state)


def setstate_tensor(t, state):
    if state:
        t.__dict__.update(state)


def deepcopy_tensor(t, memo):
    import copy
    new = t.detach().clone()
    new = type(t)._make_subclass(type(t), new, t.requires_grad) if type(t).__name__ != "Tensor" else new
    new._requires_grad = t.requires_grad
    if t.grad is not None:
        new.grad = copy.deepcopy(t.grad, memo)
    new.__dict__.update(copy.deepcopy(t.__dict__, memo))
    memo[id(t)] = new
    return new
