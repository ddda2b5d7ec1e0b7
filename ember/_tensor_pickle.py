"""Tensor pickling and deepcopy (layer L2), in PyTorch's conventions so views stay views.

A tensor reduces to ``_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`` over
a ``TypedStorage`` (the tensor family's shared ``UntypedStorage`` plus a dtype). Plain ``pickle``
memoises the untyped storage, so a tensor and its view pickled together come back as views of one
buffer; ``ember.save`` turns the same storages into persistent ids and zip records.

Example:
    >>> import pickle, ember
    >>> x = ember.arange(6.)
    >>> a, b = pickle.loads(pickle.dumps((x, x[2:])))
    >>> b.storage_offset(), a.untyped_storage() is b.untyped_storage()
    (2, True)
"""
from __future__ import annotations

import copy
import copyreg
from collections import OrderedDict

import numpy as np

from . import _dtype as D
from ._device import CPU
from ._dispatch import wrap, wrap_meta
from ._storage import UntypedStorage
from ._tensor_base import TensorBase

__all__ = ["TypedStorage", "reduce_tensor", "deepcopy_tensor", "setstate_tensor", "storage_from_bytes",
           "storage_from_array", "tensor_over_storage"]

# attributes ember's nn.Buffer marker puts on a tensor; they are not part of its saved state
_MARKER_ATTRS = ("_is_buffer", "persistent")


class TypedStorage:
    """An ``UntypedStorage`` seen with a dtype: what a pickled tensor names as its storage."""

    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, untyped: UntypedStorage, dtype: D.dtype):
        self._untyped_storage = untyped
        self.dtype = dtype

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    __len__ = size

    @property
    def device(self):
        return self._untyped_storage.device

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def _values(self) -> np.ndarray:
        """The elements as a 1-d array of this dtype (a view of the bytes, no copy)."""
        return self._untyped_storage._bytes[:self.size() * self.dtype.itemsize].view(self.dtype.np)

    def tolist(self) -> list:
        return self._values().tolist()

    def __getitem__(self, i):
        return self._values()[i].item()

    def __reduce__(self):
        return (TypedStorage, (self._untyped_storage, self.dtype))

    def __repr__(self) -> str:
        return f"TypedStorage(dtype={self.dtype}, size={self.size()})"


def storage_from_array(buf: np.ndarray) -> UntypedStorage:
    """An ``UntypedStorage`` over exactly the bytes of the 1-d uint8 array ``buf`` (no copy)."""
    st = UntypedStorage.__new__(UntypedStorage)
    st.device = CPU
    st._bytes = buf
    st._nbytes = buf.nbytes
    st._owner = buf  # keeps an mmap or a shared buffer alive as long as any view lives
    return st


def storage_from_bytes(data) -> UntypedStorage:
    return storage_from_array(np.frombuffer(bytearray(data), np.uint8))


def _reduce_untyped(st: UntypedStorage):
    if st._bytes is None:
        return (UntypedStorage.meta, (st.nbytes(),))
    b = st._bytes if st._bytes.flags.c_contiguous else np.ascontiguousarray(st._bytes)
    return (storage_from_bytes, (b.tobytes(),))


copyreg.pickle(UntypedStorage, _reduce_untyped)


def tensor_over_storage(storage: TypedStorage, offset: int, size, stride):
    """A tensor with torch geometry (element offset and strides) over ``storage``'s bytes."""
    if not isinstance(storage, TypedStorage):
        raise TypeError(f"expected a storage to rebuild a tensor, got {type(storage).__name__}")
    size, stride = tuple(size), tuple(stride)
    if not all(type(v) is int and v >= 0 for v in (offset, *size, *stride)) or len(size) != len(stride):
        raise RuntimeError(f"invalid tensor geometry: size={size}, stride={stride}, offset={offset}")
    dt, st = storage.dtype, storage._untyped_storage
    isz = dt.itemsize
    numel = 1
    for s in size:
        numel *= s
    end = offset + 1 + sum((s - 1) * t for s, t in zip(size, stride)) if numel else 0
    if end * isz > st.nbytes():
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                           f"{offset}, and itemsize {isz} requiring a storage size of {end * isz} are "
                           f"out of bounds for storage of size {st.nbytes()}")
    if st._bytes is None:
        t = wrap_meta(size, dt, stride, offset)
    else:
        buf = st._bytes
        off = offset * isz if numel else 0
        arr = np.ndarray(size, dt.np, buffer=buf, offset=min(off, buf.nbytes),
                         strides=tuple(s * isz for s in stride))
        t = wrap(arr, dt)
    t._storage = st
    return t


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    # torch's signature; ember keeps no backward hooks on tensors and no conj/neg bits in metadata
    t = tensor_over_storage(storage, storage_offset, size, stride)
    t._requires_grad = bool(requires_grad) and (t.dtype.is_floating_point or t.dtype.is_complex)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    """torch's rebuild for dtypes pickled with an untyped storage (complex32): saved under torch's
    name, loaded by ``_serialization._names``'s checked version."""
    return _rebuild_tensor_v2(TypedStorage(storage._untyped_storage, dtype), storage_offset, size,
                              stride, requires_grad)


def _rebuild_tensor(storage, storage_offset, size, stride):
    return tensor_over_storage(storage, storage_offset, size, stride)


def _rebuild_from_type_v2(func, new_type, args, state):
    """Rebuild with ``func(*args)``, make it a ``new_type`` instance and restore ``__dict__`` state."""
    ret = func(*args)
    if isinstance(new_type, type) and issubclass(new_type, TensorBase) and type(ret) is not new_type:
        ret = ret._make_subclass(new_type, ret, ret.requires_grad)
    if isinstance(state, tuple):  # (dict_state, slots_state) as torch's _set_obj_state accepts
        state = state[0]
    if state:
        if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
            raise RuntimeError("tensor state must be a dict with str keys")
        ret.__dict__.update(state)
    return ret


def reduce_tensor(t, plain: bool):
    """``__reduce_ex__`` of a Tensor (``plain``: of class Tensor itself, not a subclass): torch's
    rebuild call over the shared storage."""
    if t._data is None and t._meta is None:
        raise RuntimeError("cannot pickle a tensor without data")
    st = t.untyped_storage()
    args = (TypedStorage(st, t.dtype), t.storage_offset(), tuple(t.shape), t.stride(), t.requires_grad,
            OrderedDict())
    state = dict(t.__dict__)
    if state.get("_is_buffer"):
        for k in _MARKER_ATTRS:
            state.pop(k, None)
    rebuild = _rebuild_tensor_v2
    if t.dtype is D.complex32:  # torch >= 2 writes dtypes without a typed storage class this way
        rebuild, args = _rebuild_tensor_v3, args + (t.dtype,)
    if plain and not state:
        return (rebuild, args)
    return (_rebuild_from_type_v2, (rebuild, type(t), args, state or None))


def setstate_tensor(t, state):
    if state:
        t.__dict__.update(state)


def deepcopy_tensor(t, memo):
    """A copy whose storage is copied once per memo, so views of one tensor stay views."""
    if t._data is None:
        new = t.detach().clone()
    else:
        st = t.untyped_storage()
        new_st = memo.get(id(st))
        if new_st is None:
            new_st = storage_from_array(np.array(st._bytes, copy=True))
            memo[id(st)] = new_st
            memo.setdefault(id(memo), []).append(st)  # copy's keep-alive list: id(st) stays unique
        new = tensor_over_storage(TypedStorage(new_st, t.dtype), t.storage_offset(), tuple(t.shape),
                                  t.stride())
    if type(t) is not type(new):  # new is a plain Tensor
        new = new._make_subclass(type(t), new, t.requires_grad)
    new._requires_grad = t.requires_grad
    memo[id(t)] = new
    if t.grad is not None:
        new.grad = copy.deepcopy(t.grad, memo)
    new.__dict__.update(copy.deepcopy(t.__dict__, memo))
    return new
