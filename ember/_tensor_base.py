"""The Tensor's fields (layer L2): one slot layout shared by Tensor and the method mixins.

On 'cpu', ``_data`` is the NumPy view (the source of truth for shape, strides and dtype). On 'meta',
``_data`` is None and ``_meta`` holds ``(shape, strides, offset)``. Rarely used autograd fields live in
an ``AutogradMeta`` created on demand, so plain tensors stay cheap to make.
"""
from __future__ import annotations

from ._dtype import FROM_NP

__all__ = ["TensorBase", "AutogradMeta", "new_tensor", "wrap", "set_tensor_class", "shape_of"]


class AutogradMeta:
    """Per-tensor autograd extras: ``.grad``, hooks, ``retain_grad``, the cached AccumulateGrad."""

    # ``acc_edge``: a leaf's graph edge ``(AccumulateGrad, 0)``, made once (recording reuses the tuple)
    # ``multi_view``: (function name, output index) on an output of a function returning several
    # views (split/chunk/unbind), (None, None) on a view of one; torch forbids writing into them
    __slots__ = ("grad", "hooks", "post_acc_hooks", "retains_grad", "acc_edge", "name", "multi_view")

    def __init__(self):
        self.grad = self.hooks = self.post_acc_hooks = self.retains_grad = self.acc_edge = None
        self.name = self.multi_view = None


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


# the public Tensor class (``_tensor.py`` defines it above this layer and hands it in once)
_TENSOR_CLASS = [TensorBase]


def set_tensor_class(cls) -> None:
    """Make ``wrap`` build instances of ``cls`` (called once, by ``_tensor.py``)."""
    _TENSOR_CLASS[0] = cls


def _generate_constructors():
    """``new_tensor(cls, data, dtype, meta=None, base=None, ...)`` and the hot-path form ``wrap(data,
    dtype=None)`` (a fresh cpu Tensor outside autograd), both written out with one store per slot from
    the slot list and ``_DEFAULTS`` (a loop over slots, or one calling the other, costs time per op)."""
    params = ", ".join(f"{name[1:]}={value!r}" for name, value in _DEFAULTS.items())
    stores = "".join(f"    t.{name} = {name[1:]}\n" for name in TensorBase.__slots__)
    fixed = "".join(f"    t.{name} = {value!r}\n" for name, value in _DEFAULTS.items())
    src = (f"def new_tensor(cls, data, dtype, {params}):\n"
           '    """The one Tensor constructor: every slot is set (generated from the slot list)."""\n'
           f"    t = _new(cls)\n{stores}    return t\n\n\n"
           "def wrap(data, dtype=None):\n"
           '    """A fresh cpu Tensor over the NumPy array ``data`` (no autograd); ``new_tensor`` with the\n'
           '    defaults, for the hot path."""\n'
           "    t = _new(_TENSOR_CLASS[0])\n    t._data = data\n"
           "    t._dtype = dtype or FROM_NP[data.dtype]\n"
           f"{fixed}    return t\n")
    namespace = {"_new": object.__new__, "_TENSOR_CLASS": _TENSOR_CLASS, "FROM_NP": FROM_NP}
    exec(compile(src, "<ember._tensor_base constructors>", "exec"), namespace)
    return namespace["new_tensor"], namespace["wrap"]


new_tensor, wrap = _generate_constructors()


def shape_of(t) -> tuple:
    """A tensor's shape as a plain tuple (cpu: the array's; meta: the recorded one)."""
    d = t._data
    return d.shape if d is not None else t._meta[0]
