"""The Tensor's fields (layer L2): one slot layout shared by Tensor and the method mixins.

On 'cpu', ``_data`` is the NumPy view (the source of truth for shape, strides and dtype). On 'meta',
``_data`` is None and ``_meta`` holds ``(shape, strides, offset)``. Rarely used autograd fields live in
an ``AutogradMeta`` created on demand, so plain tensors stay cheap to make.
"""
from __future__ import annotations

__all__ = ["TensorBase", "AutogradMeta", "shape_of"]


class AutogradMeta:
    """Per-tensor autograd extras: ``.grad``, hooks, ``retain_grad``, the cached AccumulateGrad."""

    __slots__ = ("grad", "hooks", "post_acc_hooks", "retains_grad", "acc", "name")

    def __init__(self):
        self.grad = self.hooks = self.post_acc_hooks = self.retains_grad = self.acc = self.name = None


class TensorBase:
    __slots__ = (
        "_data",           # np.ndarray on cpu; None on meta
        "_dtype",          # ember dtype
        "_meta",           # (shape, strides, offset) for meta tensors, else None
        "_base",           # the root tensor this one views, or None
        "_storage",        # UntypedStorage, created lazily for roots
        "_vc",             # VersionCounter shared by views and detach(); None until first needed
        "_grad_fn",        # Node that produced this tensor (None for leaves)
        "_output_nr",      # which output of _grad_fn this is
        "_requires_grad",  # True for leaves that require grad and for every non-leaf in a graph
        "_ameta",          # AutogradMeta or None
    )


def shape_of(t) -> tuple:
    """A tensor's shape as a plain tuple (cpu: the array's; meta: the recorded one)."""
    d = t._data
    return d.shape if d is not None else t._meta[0]
