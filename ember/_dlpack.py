"""DLPack exchange (layer L2): zero-copy tensors to and from NumPy, PyTorch, JAX, CuPy (on CPU).

Built on NumPy's own DLPack support, so the dtypes are NumPy's: bool, integers, floats and complex
(not bfloat16, which NumPy's DLPack cannot describe).

Example:
    >>> import numpy as np, ember
    >>> a = np.arange(3.)
    >>> t = ember.from_dlpack(a)
    >>> t[0] = 7.
    >>> a[0]
    np.float64(7.0)
"""
from __future__ import annotations

import enum

import numpy as np

from . import _dtype as D
from ._dispatch import wrap
from ._tensor_base import TensorBase

__all__ = ["DLDeviceType", "to_dlpack", "dlpack_device", "from_dlpack"]


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLExtDev = 12
    kDLOneAPI = 14


def _exportable(t) -> np.ndarray:
    if t.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if t._data is None:
        raise BufferError("Cannot export a meta tensor through DLPack: it has no data")
    if t.dtype is D.bfloat16:
        raise BufferError("ember cannot export bfloat16 tensors through DLPack (NumPy's DLPack has no "
                          "bfloat16); use t.view(ember.int16) and view the result back")
    return t._data


def to_dlpack(t, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a DLPack capsule sharing ``t``'s memory."""
    arr = _exportable(t)
    kwargs = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        if tuple(dl_device) != (DLDeviceType.kDLCPU, 0):
            raise BufferError(f"ember tensors live on the CPU; cannot export to device {dl_device}")
        kwargs["dl_device"] = (1, 0)
    if copy is not None:
        kwargs["copy"] = copy
    # a CPU producer has no stream: torch's default -1 and None both mean "no synchronisation"
    return arr.__dlpack__(stream=None, **kwargs)


def dlpack_device(t) -> tuple:
    """``Tensor.__dlpack_device__``: ``(DLDeviceType.kDLCPU, 0)``."""
    return (DLDeviceType.kDLCPU, 0)


class _Capsule:
    # np.from_dlpack wants a producer object; an old-style capsule gets wrapped in one
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def from_dlpack(ext_tensor):
    """A tensor sharing memory with ``ext_tensor`` (any object with ``__dlpack__``, or a capsule).

    Example:
        >>> import numpy as np, ember
        >>> ember.from_dlpack(np.ones(2, np.float32))
        tensor([1., 1.])
    """
    if isinstance(ext_tensor, TensorBase):
        return ext_tensor.detach()
    if hasattr(ext_tensor, "__dlpack__"):
        dev = ext_tensor.__dlpack_device__() if hasattr(ext_tensor, "__dlpack_device__") else (1, 0)
        if int(dev[0]) != DLDeviceType.kDLCPU:
            raise RuntimeError(f"ember can only import CPU tensors through DLPack, got device type "
                               f"{int(dev[0])}")
        arr = np.from_dlpack(ext_tensor)
    elif type(ext_tensor).__name__ == "PyCapsule":
        arr = np.from_dlpack(_Capsule(ext_tensor))
    else:
        raise TypeError(f"from_dlpack expects an object with __dlpack__ or a DLPack capsule, got "
                        f"{type(ext_tensor).__name__}")
    dt = D.FROM_NP.get(arr.dtype)
    if dt is None:
        raise TypeError(f"can't convert DLPack tensor of type {arr.dtype}: ember supports "
                        + ", ".join(d.name for d in D.ALL_DTYPES))
    return wrap(arr, dt)
