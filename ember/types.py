"""``torch.types``: the type aliases annotations in libraries name (``_size``, ``_device``...).

Example:
    >>> from ember.types import _size, Number
    >>> _size.__origin__ is not None, isinstance(3, Number.__args__)
    (True, True)
"""
from __future__ import annotations

import os
from typing import IO, Any, Sequence, Union

from ._device import device as _device_cls
from ._dtype import dtype as _dtype
from ._shape import Size
from ._storage import UntypedStorage as Storage
from ._tensor import Tensor

__all__ = ["Number", "Device", "Storage", "FileLike", "IntLikeType", "FloatLikeType", "BoolLikeType",
           "_size", "_device", "_dtype", "_int", "_float", "_bool", "_complex", "_str", "_bytes",
           "_layout", "_qscheme", "_dispatchkey", "_TensorOrTensors", "_TensorOrOptionalTensors"]

_int, _float, _bool, _complex, _str, _bytes = int, float, bool, complex, str, bytes
_device = _device_cls
_layout = Any  # ember has one layout (strided)
_qscheme = Any
_dispatchkey = Union[str, Any]
_size = Union[Size, list[int], tuple[int, ...]]
_symsize = _size
Number = Union[int, float, bool]
_Number = (int, float, bool)
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
Device = Union[_device_cls, str, int, None]
FileLike = Union[str, os.PathLike, IO[bytes]]
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]
