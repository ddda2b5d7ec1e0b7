"""Small Tensor methods and functions that belong to no op family (layer L2): ``result_type``,
size/sign predicates, ``trace``/``inner``, in-place view changes (``t_``, ``transpose_``...),
``resize_``/``resize_as_``/``set_``.

Storage rule (ARCHITECTURE.md: a buffer's identity never changes under a live view): ``resize_`` to a
size that fits the current storage re-views that storage; growing it allocates a new buffer for this
tensor only (views taken earlier keep the old memory), and ``set_`` makes this tensor a view of the
source's storage.

Example:
    >>> import ember
    >>> ember.result_type(ember.tensor([1, 2]), 1.5)
    torch.float32
"""
from __future__ import annotations

import mmap

import numpy as np

from .. import _dtype as D
from .._dispatch import _key, wrap
from ._args import TensorBase, size_args

__all__ = ["MiscMixin", "FUNCTIONS"]


def result_type(tensor, other):
    """The dtype ``tensor op other`` would have under torch's promotion rules."""
    return D.result_type_of((_key(tensor), _key(other)))


def typename(obj) -> str:
    if isinstance(obj, TensorBase):
        return obj.type()
    module = type(obj).__module__
    return type(obj).__qualname__ if module == "builtins" else f"{module}.{type(obj).__qualname__}"


def is_same_size(input, other) -> bool:
    return tuple(input.shape) == tuple(other.shape)


def is_nonzero(input) -> bool:
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous"
                           if input.numel() else "Boolean value of Tensor with no values is ambiguous")
    return bool(input.item() != 0)


def trace(input):
    """Sum of the main diagonal of a 2-D tensor."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    out = input.diagonal().sum()
    return out if input.dtype.category >= 2 else out.to(D.int64)


def inner(input, other, *, out=None):
    """Inner product over the last dims (scalars multiply)."""
    if input.dim() == 0 or (isinstance(other, TensorBase) and other.dim() == 0):
        res = input * other
    else:
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                               f"shapes {list(input.shape)} and {list(other.shape)}")
        res = (input.reshape(tuple(input.shape[:-1]) + (1,) * (other.dim() - 1) + (input.shape[-1],))
               * other)
        res = res.sum(-1, dtype=res.dtype)  # integers keep their dtype, as torch
    return out.copy_(res) if out is not None else res


def _become(self, view):
    """Make ``self`` take ``view``'s geometry in place (torch's in-place view ops)."""
    self._data, self._meta = view._data, view._meta
    if view._grad_fn is not None:
        self._grad_fn, self._output_nr = view._grad_fn, view._output_nr
    return self


class _SharedMap(mmap.mmap):
    """Anonymous shared memory (MAP_SHARED): forked processes see the same pages (Hogwild-style
    training with ``Module.share_memory()``)."""


def _is_shared(t) -> bool:
    d = t._data
    if d is None:
        return False
    while isinstance(d, np.ndarray):
        d = d.base
    return isinstance(d, _SharedMap)


def _share_memory_(self):
    """Move this tensor's data into shared memory (a no-op when it is already there).

    The tensor's own buffer is replaced; views taken before keep the old memory.
    """
    if self._data is None or _is_shared(self):
        return self
    arr = self._data
    seg = _SharedMap(-1, max(arr.nbytes, 1), flags=mmap.MAP_SHARED)
    shared = np.ndarray(arr.shape, arr.dtype, buffer=seg)
    shared[...] = arr
    self._data, self._base, self._storage = shared, None, None
    return self


def _is_set_to(self, tensor) -> bool:
    """True when both tensors view the same memory with the same size, strides and offset."""
    return (self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()
            and self.dtype == tensor.dtype and tuple(self.shape) == tuple(tensor.shape)
            and self.stride() == tensor.stride() and self.storage_offset() == tensor.storage_offset())


def _is_coalesced(self) -> bool:
    raise RuntimeError("is_coalesced expected sparse coordinate tensor layout but got Strided")


class MiscMixin:
    __slots__ = ()
    result_type = result_type
    is_nonzero = is_nonzero
    is_same_size = is_same_size
    # torch's device and layout predicates, as on a CPU (or meta) strided tensor; together with
    # TensorBase's they make the set of ``is_*`` names torch's
    is_xpu = is_ipu = is_maia = is_mps = is_mtia = is_vulkan = is_xla = is_sparse_csr = False
    is_set_to = _is_set_to
    is_coalesced = _is_coalesced

    def is_distributed(self) -> bool:
        return False

    def is_pinned(self, device=None) -> bool:
        """Page-locked memory needs an accelerator: always False here."""
        return False

    trace = trace
    inner = inner

    share_memory_ = _share_memory_
    is_shared = _is_shared

    def new(self, *args, **kwargs):
        """Legacy constructor: ``t.new(2, 3)`` (uninitialised, this dtype) or ``t.new(data)``."""
        if len(args) == 1 and not isinstance(args[0], int):
            return self.new_tensor(args[0], **kwargs)
        return self.new_empty(*args, **kwargs)

    def const_data_ptr(self) -> int:
        return self.data_ptr()

    def __reversed__(self):
        return self.flip(0) if self.dim() else self

    def is_neg(self) -> bool:
        return False

    def pin_memory(self, device=None):
        """Pinning needs an accelerator, which ember does not have (torch's error on a CPU build)."""
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def is_inference(self) -> bool:
        return False

    def t_(self):
        return _become(self, self.t())

    def transpose_(self, dim0, dim1):
        return _become(self, self.transpose(dim0, dim1))

    swapaxes_ = swapdims_ = transpose_

    def squeeze_(self, dim=None):
        return _become(self, self.squeeze(dim))

    def unsqueeze_(self, dim):
        return _become(self, self.unsqueeze(dim))

    def as_strided_(self, size, stride, storage_offset=None):
        return _become(self, self.as_strided(size, stride, storage_offset))

    def resize_(self, *sizes, memory_format=None):
        """Give this tensor ``sizes`` (contiguous); keeps the storage when it is large enough."""
        size = size_args(sizes, "resize_")
        if any(s < 0 for s in size):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: "
                               f"{list(size)}")
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        n = int(np.prod(size, dtype=np.int64))
        if self._data is None:
            from .._shape import contiguous_strides
            self._meta = (size, contiguous_strides(size), self._meta[2])
            return self
        start = self.storage_offset()
        storage = self.untyped_storage()
        itemsize = self._dtype.itemsize
        if (start + n) * itemsize <= storage.nbytes():
            flat = self.as_strided((storage.nbytes() // itemsize - start,), (1,), start)
            self._data = flat._data[:n].reshape(size)
        else:  # grow: a new buffer holding the old elements first
            fresh = np.zeros(n, self._data.dtype)
            old = self.reshape(-1)._data if self.is_contiguous() else self._data.reshape(-1)
            fresh[:min(n, old.size)] = old[:n]
            self._data = fresh.reshape(size)
            self._base = self._storage = None
        return self

    def resize_as_(self, other, memory_format=None):
        return self.resize_(other.shape)

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """Make this tensor view ``source`` (a tensor); no arguments makes it empty."""
        if source is None:
            self._data, self._base, self._storage = np.empty(0, self._dtype.np), None, None
            return self
        if not isinstance(source, TensorBase):
            raise TypeError("set_(): only tensors are accepted as the source in ember")
        view = source if size is None else source.as_strided(size, stride or
                                                              _contig(size), storage_offset)
        self._data, self._meta, self._dtype = view._data, view._meta, view._dtype
        self._base = source._base if source._base is not None else source
        self._vc = source._version_cell()
        return self


def _contig(size):
    from .._shape import contiguous_strides
    return contiguous_strides(size)


FUNCTIONS = dict(result_type=result_type, typename=typename, is_same_size=is_same_size,
                 is_nonzero=is_nonzero, trace=trace, inner=inner)

del wrap
