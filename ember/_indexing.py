"""``tensor[index]`` and ``tensor[index] = value`` (layer L2).

Basic indices (ints, slices, None, Ellipsis) become views through ``select``/``slice``/``unsqueeze``;
integer tensors, lists and boolean masks take the advanced path (``_indexing_advanced``: the ``index``
and ``index_put`` primitives), which copies.

Example:
    >>> import ember
    >>> x = ember.arange(6).view(2, 3)
    >>> x[1, ::2], x[:, [2, 0]].tolist()
    (tensor([3, 5]), [[2, 0], [5, 3]])
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._dispatch import MODES, _any_mode, dispatch
from ._dtype_scalar import PLAIN_RANGE, setitem_scalar
from . import _dtype as D
from ._tensor_base import _TENSOR_CLASS, TensorBase, new_tensor, wrap
from .autograd._recording import recorder_for
from .autograd.grad_mode import LEAN, STATE, is_grad_enabled
from ._dispatch_inplace import WRITE_HOOKS
from .overrides import _FUNCTION_MODES, PLAIN_TYPES, handle_torch_function, has_torch_function
from ._primitives import view as V

__all__ = ["getitem", "setitem"]

_INT64, _BOOL = D.int64, D.bool
# ``x[i]`` / ``x[a:b]`` on a tensor requiring grad record select's / slice's node themselves
_SELECT_RECORDER, _SLICE_RECORDER = recorder_for(V.select), recorder_for(V.slice_)
_INDEX_TYPES_MSG = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                    "valid indices (got {})")


def _is_bool_tensor(i) -> bool:
    return isinstance(i, TensorBase) and i.dtype.name in ("bool", "uint8")


def _expand_ellipsis(index: tuple, ndim: int) -> tuple:
    consumed = 0
    for i in index:
        if i is None or i is Ellipsis:
            continue
        if ndim == 0 and isinstance(i, int):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if ndim == 0 and isinstance(i, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        consumed += i.dim() if _is_bool_tensor(i) else 1
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    k = next((j for j, i in enumerate(index) if i is Ellipsis), None)
    if k is None:
        return index + (slice(None),) * (ndim - consumed)
    # like torch, only the first ellipsis expands; later ones stand for nothing
    rest = tuple(i for i in index[k + 1:] if i is not Ellipsis)
    return index[:k] + (slice(None),) * (ndim - consumed) + rest


def _basic_view(t, index: tuple):
    """Apply the basic part of an index; returns the view and ``[(dim, advanced index)]`` in it."""
    out = t
    dim = 0
    advanced = []
    for pos, i in enumerate(index):
        if i is None:
            out = out.unsqueeze(dim)
            dim += 1
        elif isinstance(i, slice):
            step = 1 if i.step is None else i.step.__index__()
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            start = i.start.__index__() if i.start is not None else None
            stop = i.stop.__index__() if i.stop is not None else None
            if not (start is None and stop is None and step == 1):
                out = out.slice(dim, start, stop, step)
            dim += 1
        elif isinstance(i, int):
            n = out.shape[dim]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {pos} with size {n}")
            out = out.select(dim, i)
        elif _is_bool_tensor(i) and i.dim() == 0:
            # x[True] adds a dim of size 1 (size 0 for False): unsqueeze, then index it
            out = out.unsqueeze(dim)
            if i.is_meta:
                raise NotImplementedError("indexing with a 0-dim boolean mask depends on its value, "
                                          "which a meta tensor does not have")
            advanced.append((dim, i.new_zeros((1 if bool(i.item()) else 0,), dtype=_int64())))
            dim += 1
        else:
            advanced.append((dim, i))
            dim += i.dim() if _is_bool_tensor(i) else 1
    return out, advanced


def _int64():
    from . import _dtype
    return _dtype.int64


def _to_index_tensor(i, like):
    """Lists and NumPy arrays as indices become int64 (or bool) tensors; floats are refused."""
    from ._creation import tensor
    if isinstance(i, np.ndarray):
        if i.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return tensor(i, device=like.device)
    if len(i) == 0:
        return tensor([], dtype=_int64(), device=like.device)
    try:
        t = tensor(i, device=like.device)
    except (TypeError, ValueError):
        raise IndexError(_INDEX_TYPES_MSG.format(type(i[0]).__name__)) from None
    if t.dtype.category >= 2:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return t


def _normalize(index, t):
    if type(index) is list and any(i is None or i is Ellipsis or isinstance(i, (slice, TensorBase))
                                   for i in index):
        index = tuple(index)  # NumPy's legacy rule: such a list means a tuple of indices
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        if i is None or i is Ellipsis or isinstance(i, slice):
            out.append(i)
        elif isinstance(i, bool) or isinstance(i, np.bool_):
            from ._creation import tensor
            out.append(tensor(bool(i), device=t.device))
        elif isinstance(i, (int, np.integer)):
            out.append(int(i))
        elif isinstance(i, TensorBase):
            cat = i.dtype.category
            if cat >= 2:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if i.dim() == 0 and cat == 1 and i.dtype.name != "uint8" and not i.is_meta:
                out.append(int(i.item()))  # a 0-dim integer tensor selects, like an int
            else:
                out.append(i)
        elif isinstance(i, (list, np.ndarray)) or (isinstance(i, tuple) and len(index) > 1):
            out.append(_to_index_tensor(i, t))
        elif isinstance(i, Sequence) and not isinstance(i, (str, bytes, tuple)):
            out.append(_to_index_tensor(list(i), t))  # range, deque...: an index sequence, as in torch
        elif hasattr(i, "__index__"):
            out.append(i.__index__())
        else:
            raise IndexError(_INDEX_TYPES_MSG.format(type(i).__name__))
    return tuple(out)


def getitem(t, index):
    """``t[index]``: a view for basic indices, a copy when any index is advanced."""
    ti = type(index)
    if ti is int and type(t) in PLAIN_TYPES:
        # fast path of ``t[i]`` on a cpu tensor: the view ``select`` makes (base, shared version
        # counter), without normalising a tuple index; dispatch when autograd records or a mode is on
        d = t._data
        if d is not None and d.ndim:
            n = d.shape[0]
            if -n <= index < n:  # else the general path raises torch's IndexError
                if index < 0:
                    index += n
                if _any_mode[0] and MODES.stack:
                    return dispatch(V.select, t, dim=0, index=index)
                b = t._base
                out = new_tensor(_TENSOR_CLASS[0], d[index, ...], t._dtype, None,  # 0-d: a view
                                 t if b is None else b, None, t._vc or t._version_cell())
                if t._requires_grad:  # select's node, recorded as dispatch's fast path would
                    if LEAN[0]:
                        _SELECT_RECORDER(t, {"dim": 0, "index": index}, out)
                    elif STATE.enabled:
                        return dispatch(V.select, t, dim=0, index=index)
                return out
    elif ti is slice and type(t) in PLAIN_TYPES:
        d = t._data
        if d is not None and d.ndim and _plain_slice(index):
            grad = t._requires_grad
            if (grad and not LEAN[0] and STATE.enabled) or (_any_mode[0] and MODES.stack):
                s, e, st = index.indices(d.shape[0])
                return dispatch(V.slice_, t, dim=0, start=s, end=max(e, s), step=st)
            b = t._base  # NumPy clamps a slice exactly as ``slice.indices`` does
            out = new_tensor(_TENSOR_CLASS[0], d[index], t._dtype, None, t if b is None else b, None,
                             t._vc or t._version_cell())
            if grad and LEAN[0]:  # slice's node, recorded as dispatch's fast path would
                s, e, st = index.indices(d.shape[0])
                _SLICE_RECORDER(t, {"dim": 0, "start": s, "end": max(e, s), "step": st}, out)
            return out
    elif ti is tuple and type(t) in PLAIN_TYPES and index:
        # ``t[i, j]``, ``t[:, k]``...: ints and int slices only; outside autograd and modes the view
        # NumPy's basic indexing gives is the one the chain of select/slice views ends at
        d = t._data
        if d is not None and len(index) <= d.ndim and _basic_tuple(index, d.shape) \
                and not ((t._requires_grad and STATE.enabled) or (_any_mode[0] and MODES.stack)):
            b = t._base
            return new_tensor(_TENSOR_CLASS[0], d[index + (Ellipsis,)], t._dtype, None,
                              t if b is None else b, None, t._vc or t._version_cell())
    elif ti is _TENSOR_CLASS[0] and type(t) in PLAIN_TYPES:
        # ``t[idx]`` with an int64 tensor of >= 1 dim, ``t[mask]`` with a bool mask over leading dims:
        # the copy NumPy's advanced indexing makes is the ``index`` primitive's result; out-of-range
        # indices and mismatched masks take the general path, which raises torch's error
        d, i = t._data, index._data
        if d is not None and i is not None and d.ndim and i.ndim \
                and not ((t._requires_grad and STATE.enabled) or (_any_mode[0] and MODES.stack)):
            k = index._dtype
            if k is _INT64 or (k is _BOOL and i.shape == d.shape[:i.ndim]):
                try:
                    r = d[i]
                except IndexError:
                    pass
                else:
                    return wrap(r, t._dtype)
    if type(index) not in PLAIN_TYPES and has_torch_function((index,)):  # as torch: tensor-like
        return handle_torch_function(getitem, (t, index), t, index)  # indices (first-class dims)
    index = _normalize(index, t)
    index = _expand_ellipsis(index, t.dim())
    view, advanced = _basic_view(t, index)
    if not advanced:
        return view if view is not t else dispatch(V.alias, t)
    from ._indexing_advanced import advanced_getitem
    return advanced_getitem(view, advanced)


def _basic_tuple(index: tuple, shape: tuple) -> bool:
    """Every entry an in-range int or a slice with int (or None) parts and a positive step."""
    for k, i in enumerate(index):
        if type(i) is int:
            n = shape[k]
            if not -n <= i < n:
                return False
        elif type(i) is slice:
            start, stop, step = i.start, i.stop, i.step
            if (type(start) is not int and start is not None) or (type(stop) is not int and stop is not None):
                return False
            if step is not None and (type(step) is not int or step <= 0):
                return False
        else:
            return False
    return True


def _plain_slice(index: slice) -> bool:
    """int (or None) parts and a positive step, and not ``:`` (an alias in the general path)."""
    start, stop, step = index.start, index.stop, index.step
    if step is None:
        return (type(start) is int or (start is None and type(stop) is int)) and \
            (type(stop) is int or stop is None)
    return type(step) is int and step > 0 and (start is not None or stop is not None or step != 1) \
        and (type(start) is int or start is None) and (type(stop) is int or stop is None)


def _value_tensor(view, value):
    """``value`` as a tensor of ``view``'s dtype, leading size-1 dims dropped as torch does."""
    if isinstance(value, TensorBase):
        v = value if value.dtype is view.dtype else value.to(view.dtype)
    elif isinstance(value, (list, tuple, np.ndarray)):
        v = view.new_tensor(value)
    else:
        v = view.new_full((), setitem_scalar(value, view.dtype))  # torch's checks for t[i] = v
    return v


def _strip_ones(v, ndim):
    extra = v.dim() - ndim
    if extra > 0 and all(s == 1 for s in v.shape[:extra]):
        v = v.reshape(tuple(v.shape[extra:]))
    return v


def setitem(t, index, value):
    """``t[index] = value``: copy into the view (basic) or ``index_put_`` (advanced), with autograd."""
    if ((tv := type(value)) is float or tv is int) and type(t) in PLAIN_TYPES and not t._requires_grad \
            and not WRITE_HOOKS and not (_any_mode[0] and (MODES.stack or _FUNCTION_MODES.stack)):
        # fast path of ``t[i] = 1.0``, ``t[a:b] = 0``, ``t[i, j] = v`` on a cpu tensor outside autograd:
        # a number the dtype stores as given, written through NumPy's basic indexing into the memory
        # the select/slice view chain would reach; the view's version counter is bumped as copy_ does
        d = t._data
        if d is not None and d.ndim and d.flags.writeable and t._dtype is not D.complex32 \
                and (r := PLAIN_RANGE.get(t._dtype)) is not None and r[0] <= value <= r[1]:
            ti = type(index)
            if (ti is int and -d.shape[0] <= index < d.shape[0]) or (ti is slice and _plain_slice(index)) \
                    or (ti is tuple and index and len(index) <= d.ndim and _basic_tuple(index, d.shape)):
                d[index] = value
                vc = t._vc
                (vc if vc is not None else t._version_cell()).value += 1
                return
    index = _normalize(index, t)
    index = _expand_ellipsis(index, t.dim())
    view, advanced = _basic_view(t, index)
    root = t._base if t._base is not None else t
    if root._requires_grad and root._grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation."
                           if view is root else "a view of a leaf Variable that requires grad is being "
                           "used in an in-place operation.")
    v = _value_tensor(view, value)
    if not advanced:
        view.copy_(_strip_ones(v, view.dim()))
        return
    from ._indexing_advanced import advanced_setitem
    advanced_setitem(view, advanced, v)
