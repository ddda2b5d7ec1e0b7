"""Storage: one flat buffer shared by every view of it, and the version counter (layer L0).

On 'cpu' the NumPy array is the source of truth; a storage is the base buffer seen as untyped bytes,
created lazily the first time somebody asks (``untyped_storage()``, serialization, a view op), and then
shared by every view. A meta storage has a size but no bytes.

Example:
    >>> import numpy as np
    >>> s = UntypedStorage.from_array(np.zeros(3, np.float32))
    >>> s.nbytes()
    12
"""
from __future__ import annotations

import numpy as np

from ._device import CPU, META, device as _device

__all__ = ["UntypedStorage", "VersionCounter", "root_array"]


class VersionCounter:
    """One cell shared by a tensor, its views and ``detach()``; every in-place write bumps it."""

    __slots__ = ("value",)

    def __init__(self, value: int = 0):
        self.value = value


def root_array(arr: np.ndarray) -> np.ndarray:
    """The ndarray that owns (or first wraps) the memory ``arr`` views."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


class UntypedStorage:
    """A flat byte buffer. ``owner`` keeps shared memory or an mmap alive while any view lives."""

    __slots__ = ("_bytes", "device", "_nbytes", "_owner", "__weakref__")

    def __init__(self, nbytes: int = 0, *, device=None):
        self.device = _device(device or "cpu")
        self._nbytes = int(nbytes)
        self._bytes = np.zeros(self._nbytes, np.uint8) if self.device.type == "cpu" else None
        self._owner = None

    @classmethod
    def from_array(cls, arr: np.ndarray) -> "UntypedStorage":
        root = root_array(arr)
        self = cls.__new__(cls)
        self.device = CPU
        # a root that is not C-contiguous (e.g. from_numpy(a.T) where a is foreign) is still one buffer
        if root.flags.c_contiguous or root.flags.f_contiguous:
            flat = root.reshape(-1, order="A")
            self._bytes = flat.view(np.uint8) if flat.dtype.itemsize else flat
        else:
            self._bytes = np.lib.stride_tricks.as_strided(
                root, shape=(root.size,), strides=(root.itemsize,)).view(np.uint8)
        self._nbytes = self._bytes.nbytes
        self._owner = root
        return self

    @classmethod
    def meta(cls, nbytes: int) -> "UntypedStorage":
        self = cls.__new__(cls)
        self.device, self._nbytes, self._bytes, self._owner = META, int(nbytes), None, None
        return self

    def nbytes(self) -> int:
        return self._nbytes

    size = nbytes
    __len__ = nbytes

    def __sizeof__(self) -> int:
        # as torch's: the object plus the bytes it holds (sys.getsizeof; torchinfo sums it)
        return object.__sizeof__(self) + self._nbytes

    def data_ptr(self) -> int:
        if self._bytes is None:
            return 0
        return self._bytes.__array_interface__["data"][0]

    def element_size(self) -> int:
        return 1

    def tolist(self) -> list:
        return self._bytes.tolist()

    def __getitem__(self, i):
        return int(self._bytes[i])

    def __repr__(self) -> str:
        return f"UntypedStorage(nbytes={self._nbytes}, device='{self.device}')"

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    def _same(self, other: "UntypedStorage") -> bool:
        return other is self or (self._bytes is not None and other._bytes is not None and
                                 self.data_ptr() == other.data_ptr() and self._nbytes == other._nbytes)
