"""The Tensor's fields (layer L2): one slot layout shared by Tensor and the method mixins.

On 'cpu', ``_data`` is the NumPy view (the source of truth for shape, strides and dtype). On 'meta',
``_data`` is None and ``_meta`` holds ``(shape, strides, offset)``. Rarely used autograd fields live in
an ``AutogradMeta`` created on demand, so plain tensors stay cheap to make.
"""
from __future__ import annotations

__all__ = ["TensorBase", "AutogradMeta", "new_tensor", "shape_of"]


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


# every slot after ``_data`` and ``_dtype`` with its value in a fresh tensor outside any graph; a new
# slot needs an entry here (``new_tensor`` is generated from this table; tests check every slot is set)
_DEFAULTS = {"_meta": None, "_base": None, "_storage": None, "_vc": None, "_grad_fn": None,
             "_output_nr": 0, "_requires_grad": False, "_ameta": None}
assert tuple(_DEFAULTS) == TensorBase.__slots__[2:], "TensorBase slots and _DEFAULTS disagree"


def _generate_constructor():
    """``new_tensor(cls, data, dtype, meta=None, base=None, ...)`` with one store per slot, written out
    (a loop over the slots would cost a few microseconds per tensor on the hot path)."""
    params = ", ".join(f"{name[1:]}={value!r}" for name, value in _DEFAULTS.items())
    stores = "".join(f"    t.{name} = {name[1:]}\n" for name in TensorBase.__slots__)
    src = (f"def new_tensor(cls, data, dtype, {params}):\n"
           '    """The one Tensor constructor: every slot is set (generated from the slot list)."""\n'
           f"    t = _new(cls)\n{stores}    return t\n")
    namespace = {"_new": object.__new__}
    exec(compile(src, "<ember._tensor_base.new_tensor>", "exec"), namespace)
    return namespace["new_tensor"]


new_tensor = _generate_constructor()


def shape_of(t) -> tuple:
    """A tensor's shape as a plain tuple (cpu: the array's; meta: the recorded one)."""
    d = t._data
    return d.shape if d is not None else t._meta[0]
