"""``tensor[index]`` and ``tensor[index] = value`` (layer L2).

Basic indices (ints, slices, None, Ellipsis) become views through ``select``/``slice``/``unsqueeze``;
integer tensors, lists and boolean masks take the advanced path (``index`` / ``index_put``).
"""
from __future__ import annotations

import numpy as np

from ._tensor_base import TensorBase

__all__ = ["getitem", "setitem"]


def _is_basic(i) -> bool:
    return i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer)) and not isinstance(i, bool)


def _expand_ellipsis(index: tuple, ndim: int) -> tuple:
    consumed = sum(1 for i in index if i is not None and i is not Ellipsis and
                   not (isinstance(i, TensorBase) and i.dtype.name == "bool"))
    consumed += sum(i.dim() - 1 for i in index if isinstance(i, TensorBase) and i.dtype.name == "bool")
    n_ell = sum(1 for i in index if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if n_ell == 0:
        return index + (slice(None),) * (ndim - consumed)
    k = index.index(Ellipsis)
    return index[:k] + (slice(None),) * (ndim - consumed) + index[k + 1:]


def _basic_view(t, index: tuple):
    """Apply the basic part of an index; returns the view and the advanced indices by result dim."""
    out = t
    dim = 0
    advanced = []
    for i in index:
        if i is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(i, slice):
            if i.step is not None and i.step <= 0:
                raise ValueError("step must be greater than zero")
            start = i.start.__index__() if i.start is not None else None
            stop = i.stop.__index__() if i.stop is not None else None
            if not (start is None and stop is None and (i.step or 1) == 1):
                out = out.slice(dim, start, stop, i.step or 1)
            dim += 1
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            n = out.shape[dim]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {n}")
            out = out.select(dim, int(i))
        else:
            advanced.append((dim, i))
            dim += 1 if not (isinstance(i, TensorBase) and i.dtype.name == "bool") else i.dim()
    return out, advanced


def _normalize(index):
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        if isinstance(i, bool):
            from ._creation import tensor
            out.append(tensor(i))
        elif isinstance(i, TensorBase) and i.dim() == 0 and i.dtype.category == 1:
            out.append(int(i.item()))
        else:
            out.append(i)
    return tuple(out)


def getitem(t, index):
    index = _normalize(index)
    if t.dim() == 0 and any(isinstance(i, (int, slice)) for i in index):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    index = _expand_ellipsis(index, t.dim())
    view, advanced = _basic_view(t, index)
    if not advanced:
        return view if view is not t else t.alias_() if False else view
    from ._indexing_advanced import advanced_getitem
    return advanced_getitem(view, advanced)


def setitem(t, index, value):
    index = _normalize(index)
    index = _expand_ellipsis(index, t.dim())
    view, advanced = _basic_view(t, index)
    if not advanced:
        if isinstance(value, TensorBase):
            view.copy_(value)
        else:
            view.copy_(view.new_full((), value) if not isinstance(value, (list, tuple, np.ndarray))
                       else view.new_tensor(value))
        return
    from ._indexing_advanced import advanced_setitem
    advanced_setitem(view, advanced, value)
