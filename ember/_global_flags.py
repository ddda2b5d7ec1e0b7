"""Process-wide switches torch programs set on their first lines (layer L3): matmul precision,
warn-always, flush-denormal, default tensor type, thread start-up.

They are plain state here: ember's CPU kernels have no TF32 or denormal modes to switch, so the
setters record the value (and validate it as torch does) and the getters report it.

Example:
    >>> set_float32_matmul_precision("high"); get_float32_matmul_precision()
    'high'
"""
from __future__ import annotations

import warnings

import numpy as np

from . import _dtype as D

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "set_warn_always",
           "is_warn_always_enabled", "set_flush_denormal", "set_default_tensor_type",
           "init_num_threads", "asarray", "frombuffer", "range", "is_signed", "is_storage",
           "is_inference", "is_neg", "get_device"]

_STATE = {"matmul_precision": "highest", "warn_always": False}


def set_float32_matmul_precision(precision: str) -> None:
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _STATE["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _STATE["matmul_precision"]


def set_warn_always(b: bool) -> None:
    _STATE["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _STATE["warn_always"]


def set_flush_denormal(mode: bool) -> bool:
    """torch returns whether the CPU supports the mode; NumPy exposes no such switch."""
    return False


def set_default_tensor_type(t) -> None:
    """Legacy form of ``set_default_dtype`` (``'torch.DoubleTensor'`` or a dtype)."""
    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    names = {"FloatTensor": D.float32, "DoubleTensor": D.float64, "HalfTensor": D.float16,
             "BFloat16Tensor": D.bfloat16}
    key = name.split(".")[-1]
    if key not in names:
        raise TypeError(f"invalid type: '{name}'")
    D.set_default_dtype(names[key])


def init_num_threads() -> None:
    """Nothing to initialise: ember's threads are NumPy's BLAS threads."""


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor from ``obj`` sharing memory when possible (``copy=None``), always copying with
    ``copy=True``, and refusing to copy with ``copy=False``."""
    from ._creation import as_tensor, tensor
    from ._tensor_base import TensorBase
    from ._tensor_methods._args import as_dtype
    dt = as_dtype(dtype)
    if copy:
        out = tensor(obj.detach() if isinstance(obj, TensorBase) else obj, dtype=dt, device=device)
    else:
        out = as_tensor(obj, dtype=dt, device=device)
        if copy is False and isinstance(obj, (np.ndarray, TensorBase)) and \
                out.data_ptr() != (obj.ctypes.data if isinstance(obj, np.ndarray) else obj.data_ptr()):
            raise ValueError("can't alias tensor from the given object: copy=False was asked")
    if requires_grad:
        out.requires_grad_(True)
    return out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor viewing the memory of a Python buffer (bytes-like, writable or not)."""
    from ._creation import from_numpy
    arr = np.frombuffer(buffer, dtype=dtype.np, count=count, offset=offset)
    t = from_numpy(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Deprecated torch.range: like arange but ``end`` is included (default float dtype)."""
    from ._creation import linspace
    warnings.warn("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
                  "which produces values in [start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int((end - start) // step) + 1
    return linspace(start, start + (n - 1) * step, n, dtype=dtype or D.get_default_dtype(),
                    requires_grad=requires_grad)


def is_signed(input) -> bool:
    return input.dtype.is_signed


def is_storage(obj) -> bool:
    from ._storage import UntypedStorage
    return isinstance(obj, UntypedStorage)


def is_inference(input) -> bool:
    return False


def is_neg(input) -> bool:
    return False


def get_device(input) -> int:
    return -1
