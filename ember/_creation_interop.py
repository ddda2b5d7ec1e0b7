"""``ember.asarray``, ``ember.frombuffer`` and the deprecated ``ember.range`` (layer L3): tensors from
Python objects, NumPy arrays and buffers, built on ``_creation``.

Example:
    >>> import numpy as np
    >>> a = np.arange(3.)
    >>> t = asarray(a)
    >>> t[0] = 7.; float(a[0])
    7.0
"""
from __future__ import annotations

import warnings

import numpy as np

from . import _dtype as D
from ._creation import as_tensor, from_numpy, linspace, tensor
from ._tensor_base import TensorBase
from ._tensor_methods._args import as_dtype

__all__ = ["asarray", "frombuffer", "range"]


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor from ``obj`` sharing memory when possible (``copy=None``), always copying with
    ``copy=True``, and refusing to copy with ``copy=False``."""
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
    arr = np.frombuffer(buffer, dtype=dtype.np, count=count, offset=offset)
    t = from_numpy(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """Deprecated torch.range: like arange but ``end`` is included (default float dtype)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
                  "which produces values in [start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int((end - start) // step) + 1
    return linspace(start, start + (n - 1) * step, n, dtype=dtype or D.get_default_dtype(),
                    requires_grad=requires_grad)
