"""Tensor creation (layer L2): ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/
``empty``/``arange``/``linspace``/``logspace``/``eye`` and the ``*_like`` forms.

Example:
    >>> tensor([1, 2]).dtype, tensor([1., 2]).dtype
    (torch.int64, torch.float32)
"""
from __future__ import annotations

import math

import numpy as np

from . import _dtype as D
from ._device import CPU, META, get_default_device
from ._dispatch import dispatch, wrap, wrap_meta
from ._storage import VersionCounter
from ._tensor_base import TensorBase
from ._tensor_methods._args import as_device, as_dtype, size_args
from .autograd.grad_mode import STATE
from .ops import creation as C

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "empty_strided",
           "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like",
           "empty_like", "scalar_tensor"]


def _device(device):
    d = as_device(device) if device is not None else get_default_device()
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    return d


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_dtype(data):
    """torch's dtype inference for nested Python data: bool < int64 < default float < complex."""
    kind = 0
    stack = [data]
    tensor_dtype = None
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, TensorBase):
            tensor_dtype = x.dtype if tensor_dtype is None else D.promote_types(tensor_dtype, x.dtype)
        elif isinstance(x, (bool, np.bool_)):
            kind = max(kind, 0)
        elif isinstance(x, (int, np.integer)):
            kind = max(kind, 1)
        elif isinstance(x, (float, np.floating)):
            kind = max(kind, 2)
        elif isinstance(x, (complex, np.complexfloating)):
            kind = max(kind, 3)
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
    if tensor_dtype is not None:
        return tensor_dtype
    return (D.bool, D.int64, D.get_default_dtype(), D.default_complex())[kind]


def _to_array(data, dtype):
    if isinstance(data, TensorBase):
        return data.detach()._data
    if isinstance(data, (list, tuple)) and any(isinstance(x, TensorBase) for x in _flat(data)):
        data = _untensor(data)
    npdt = dtype.np if dtype not in (D.bfloat16,) else np.float32
    try:
        arr = np.array(data, dtype=npdt)
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow") from None
    except (ValueError, TypeError) as e:
        if "sequence" in str(e) or "inhomogeneous" in str(e):
            raise ValueError(f"expected sequence of length {len(data[0]) if data and hasattr(data[0], '__len__') else 0} "
                             f"at dim 1 (got {_first_bad(data)})") from None
        raise
    return arr.astype(dtype.np) if arr.dtype != dtype.np else arr


def _first_bad(data):
    lens = [len(x) if hasattr(x, "__len__") else 0 for x in data]
    return next((n for n in lens if n != lens[0]), lens[-1])


def _flat(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _untensor(data):
    if isinstance(data, TensorBase):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_untensor(x) for x in data]
    return data


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor copying ``data`` (nested lists, scalars, NumPy arrays or tensors)."""
    dev = _device(device)
    dt = as_dtype(dtype)
    if isinstance(data, np.ndarray):
        if dt is None:
            dt = D.from_numpy_dtype(data.dtype)
        arr = np.array(data, dtype=dt.np, copy=True)
    elif isinstance(data, TensorBase):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).", UserWarning,
                      stacklevel=2)
        dt = dt or data.dtype
        arr = np.array(data.detach()._data, dtype=dt.np, copy=True)
    else:
        if dt is None:
            dt = _infer_dtype(data)
        arr = _to_array(data, dt)
    if dev is META:
        return _finish(wrap_meta(arr.shape, dt), requires_grad)
    return _finish(wrap(arr, dt), requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a tensor or NumPy array when no conversion is needed."""
    dt = as_dtype(dtype)
    if isinstance(data, TensorBase):
        return data if dt is None or dt is data.dtype else data.to(dt)
    if isinstance(data, np.ndarray) and (dt is None or dt.np == data.dtype) and \
            data.dtype in D.FROM_NP and all(s >= 0 for s in data.strides):
        return from_numpy(data)
    return tensor(data, dtype=dt, device=device)


def from_numpy(ndarray: np.ndarray):
    """A tensor sharing ``ndarray``'s memory (writes show through both ways)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with "
                         "negative strides are not currently supported. (You can probably work around "
                         "this by making a copy of your array  with array.copy().) ")
    dt = D.from_numpy_dtype(ndarray.dtype)
    t = wrap(ndarray, dt)
    t._version = VersionCounter()
    return t


def _sized(size, dtype, device):
    return size_args(size), (as_dtype(dtype) or D.get_default_dtype()), _device(device)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return full(size_args(size), 0, dtype=dtype or D.get_default_dtype(), device=device, requires_grad=requires_grad, out=out)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return full(size_args(size), 1, dtype=dtype or D.get_default_dtype(), device=device, requires_grad=requires_grad, out=out)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it when not given)."""
    if isinstance(fill_value, TensorBase):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = D.scalar_dtype(fill_value)
    size, dt, dev = _sized((size,), dtype, device)
    t = dispatch(C.full, size=size, fill_value=fill_value, dtype=dt, device=dev)
    if out is not None:
        return out.resize_(size).copy_(t) if hasattr(out, "resize_") else out.copy_(t)
    return _finish(t, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    size, dt, dev = _sized(size, dtype, device)
    return _finish(dispatch(C.empty, size=size, dtype=dt, device=dev), requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """Uninitialised memory with exactly the given strides."""
    size, dt, dev = _sized((size,), dtype, device)
    stride = tuple(stride)
    if dev is META:
        return _finish(wrap_meta(size, dt, stride), requires_grad)
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    buf = np.empty(n, dt.np)
    arr = np.lib.stride_tricks.as_strided(buf, size, tuple(s * dt.itemsize for s in stride))
    arr = np.ndarray(size, dt.np, buffer=buf, strides=tuple(s * dt.itemsize for s in stride)) \
        if n else np.empty(size, dt.np)
    return _finish(wrap(arr, dt), requires_grad)


def _like(input, dtype, device):
    return tuple(input.shape), (as_dtype(dtype) or input.dtype), (as_device(device) or input.device)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return full(s, 0, dtype=dt, device=dev, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return full(s, 1, dtype=dt, device=dev, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return full(s, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return empty(s, dtype=dt, device=dev, requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return full((), s, dtype=dtype or D.get_default_dtype(), device=device, requires_grad=requires_grad)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 unless a bound is a float."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, TensorBase) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    dt = as_dtype(dtype)
    if dt is None:
        dt = D.int64 if all(isinstance(v, int) for v in vals) else D.get_default_dtype()
    n = max(0, math.ceil((end - start) / step))
    dev = _device(device)
    if dev is META:
        return _finish(wrap_meta((n,), dt), requires_grad)
    arr = (start + np.arange(n, dtype=np.float64 if dt.category >= 2 else np.int64) * step)
    return _finish(wrap(arr.astype(dt.np), dt), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    dt = as_dtype(dtype) or D.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    arr = np.linspace(float(start), float(end), int(steps), dtype=np.float64)
    if dt.category < 2:
        arr = np.trunc(arr)
    return _finish(wrap(arr.astype(dt.np), dt), requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    dt = as_dtype(dtype) or D.get_default_dtype()
    arr = np.power(float(base), np.linspace(float(start), float(end), int(steps)))
    return _finish(wrap(arr.astype(dt.np), dt), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    dt = as_dtype(dtype) or D.get_default_dtype()
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    return _finish(wrap(np.eye(n, n if m is None else m, dtype=dt.np), dt), requires_grad)
