"""Process-wide switches torch programs set on their first lines (layer L3): matmul precision,
warn-always, flush-denormal, default tensor type, thread start-up; and the trivial predicates
(``is_signed``, ``is_storage``, ``is_inference``, ``is_neg``, ``get_device``).

They are plain state here: ember's CPU kernels have no TF32 or denormal modes to switch, so the
setters record the value (and validate it as torch does) and the getters report it.

Example:
    >>> set_float32_matmul_precision("high"); get_float32_matmul_precision()
    'high'
"""
from __future__ import annotations

import warnings

from . import _dtype as D
from ._storage import UntypedStorage

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "set_warn_always",
           "is_warn_always_enabled", "set_flush_denormal", "set_default_tensor_type",
           "init_num_threads", "is_signed", "is_storage",
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


def is_signed(input) -> bool:
    return input.dtype.is_signed


def is_storage(obj) -> bool:
    return isinstance(obj, UntypedStorage)


def is_inference(input) -> bool:
    return False


def is_neg(input) -> bool:
    return False


def get_device(input) -> int:
    return -1
