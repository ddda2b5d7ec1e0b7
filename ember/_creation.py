"""Tensor creation (layer L2): ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/
``empty``/``arange``/``linspace``/``logspace``/``eye`` and the ``*_like`` forms.

Example:
    >>> tensor([1, 2]).dtype, tensor([1., 2]).dtype
    (torch.int64, torch.float32)
"""
from __future__ import annotations

import math

from collections.abc import Sequence

import numpy as np

from . import _dtype as D
from ._dtype_complex32 import cast as _chalf_cast, refuse as _chalf_refuse
from ._dtype_scalar import checked_scalar, fill_scalar
from ._errors import type_name
from ._device import CPU, META, get_default_device
from ._dispatch import dispatch, wrap, wrap_meta
from ._storage import VersionCounter
from ._tensor_base import TensorBase
from ._tensor_methods._args import as_device, as_dtype, size_args
from .autograd.grad_mode import no_grad
from .overrides import ANY_MODE, mode_call
from ._primitives import creation as C

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "empty_strided",
           "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like",
           "empty_like", "scalar_tensor"]


def _by_mode(fn, args, **kw):
    """An entered TorchFunctionMode's result for the factory ``fn(*args, **kw)`` (keywords at their
    defaults left out), or NotImplemented when none is entered in this thread."""
    return mode_call(fn, tuple(args), {k: v for k, v in kw.items() if v is not None and v is not False})


def _device(device):
    d = as_device(device) if device is not None else get_default_device()
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    return d


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _leaf_dtype(x):
    t = type(x)
    if t is float:
        return D.get_default_dtype()
    if t is int:
        return D.int64
    if t is bool:
        return D.bool
    if t is complex:
        return D.default_complex()
    if isinstance(x, TensorBase):
        return x.dtype
    if isinstance(x, (np.ndarray, np.generic)):
        return D.from_numpy_dtype(x.dtype)
    for py, d in ((bool, D.bool), (int, D.int64), (float, None), (complex, None)):
        if isinstance(x, py):  # subclasses of Python scalars
            return d or _leaf_dtype(py(x))
    if isinstance(x, Sequence) and not isinstance(x, (str, bytes)):
        raise _OtherSequence  # a deque, range...: tensor() retries with plain lists
    if t is str or t is bytes:
        raise TypeError(f"new(): invalid data type '{t.__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type_name(x)}")


class _OtherSequence(Exception):
    """Raised by dtype inference on a sequence that is not a list or tuple."""


def _as_lists(data):
    """Every sequence in ``data`` (deque, range, any ``collections.abc.Sequence``) as a list; torch
    accepts any sequence where ember's fast paths expect lists and tuples."""
    if isinstance(data, (str, bytes, np.ndarray, TensorBase)) or not isinstance(data, Sequence):
        return data
    return [_as_lists(x) for x in data]


_PY_SCALARS = {float, int, bool, complex}


def _infer_dtype(data):
    """torch's inference for nested data: promote_types over every element's own dtype (Python bool,
    int, float, complex -> bool, int64, default float, default complex; NumPy scalars, arrays and
    tensors keep theirs); an empty sequence gives the default dtype."""
    if not isinstance(data, (list, tuple)):
        return _leaf_dtype(data)
    out = None
    stack = [data]
    while stack:
        seq = stack.pop()
        types = set(map(type, seq))
        if types <= _PY_SCALARS:  # the common case: one level of Python numbers (a type says the dtype)
            leaves = [t() for t in types]
        else:
            leaves = []
            for x in seq:
                if isinstance(x, (list, tuple)):
                    stack.append(x)
                else:
                    leaves.append(x)
        for x in leaves:
            try:
                d = _leaf_dtype(x)
            except TypeError:
                first = data
                while type(first) in (list, tuple) and first:
                    first = first[0]
                if type(first) is str:  # torch reads a first string as one more dimension
                    raise ValueError("too many dimensions 'str'") from None
                raise
            out = d if out is None else D.promote_types(out, d)
    return D.get_default_dtype() if out is None else out


def _ragged_error(data, dtype):
    """torch's error for nested sequences that do not form a rectangle."""
    shape = []
    x = data
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        if not x:
            break
        x = x[0]

    def walk(x, d):
        if d == len(shape):
            if isinstance(x, (list, tuple)):
                if dtype.category < 2:
                    return TypeError(f"'{type(x).__name__}' object cannot be interpreted as an "
                                     f"integer")
                return TypeError(f"must be real number, not {type(x).__name__}")
            return None
        if not isinstance(x, (list, tuple)):
            return TypeError("not a sequence")
        if len(x) != shape[d]:
            return ValueError(f"expected sequence of length {shape[d]} at dim {d} (got {len(x)})")
        for y in x:
            err = walk(y, d + 1)
            if err is not None:
                return err
        return None
    return walk(data, 0)


def _to_array(data, dtype):
    if isinstance(data, TensorBase):
        return data.detach()._data
    if isinstance(data, (list, tuple)) and _holds_tensors(data):
        data = _untensor(data)
    npdt = dtype.np if dtype not in (D.bfloat16, D.complex32) else \
        np.float32 if dtype is D.bfloat16 else np.complex128
    try:
        arr = np.array(data, dtype=npdt)
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow") from None
    except (ValueError, TypeError):
        err = _ragged_error(data, dtype) if isinstance(data, (list, tuple)) else None
        if err is not None:
            raise err from None
        raise
    if dtype is D.complex32:
        return _chalf_cast(arr, dtype.np)
    return arr.astype(dtype.np) if arr.dtype != dtype.np else arr


def _holds_tensors(seq) -> bool:
    """Whether a (nested) list or tuple holds a tensor anywhere: one C-level type pass per level
    (a list of Python numbers, the common case, costs ~20 ns per element, not a generator's ~100)."""
    types = set(map(type, seq))
    if types <= _PY_SCALARS:
        return False
    return any(isinstance(x, TensorBase) or (type(x) in (list, tuple) and _holds_tensors(x)) for x in seq)


def _untensor(data):
    if isinstance(data, TensorBase):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_untensor(x) for x in data]
    return data


_NEGATIVE_STRIDES = ("At least one stride in the given numpy array is negative, and tensors with "
                     "negative strides are not currently supported. (You can probably work around "
                     "this by making a copy of your array  with array.copy().) ")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor copying ``data`` (nested lists, scalars, NumPy arrays or tensors).

    Example:
        >>> tensor([[1, 2], [3, 4]]).shape
        torch.Size([2, 2])
    """
    if ANY_MODE[0]:  # a TorchFunctionMode sees the factory (no cost otherwise)
        r = _by_mode(tensor, (data,), dtype=dtype, device=device, requires_grad=requires_grad,
                     pin_memory=pin_memory)
        if r is not NotImplemented:
            return r
    dev = _device(device)
    dt = as_dtype(dtype)
    if isinstance(data, np.ndarray):
        if any(s < 0 for s in data.strides):
            raise ValueError(_NEGATIVE_STRIDES)
        if dt is None:
            dt = D.from_numpy_dtype(data.dtype)
        arr = np.array(data, dtype=dt.np, copy=True) if D.complex32 not in (dt, D.FROM_NP.get(data.dtype)) \
            else _chalf_cast(data, dt.np)
    elif isinstance(data, TensorBase):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).", UserWarning,
                      stacklevel=2)
        dt = dt or data.dtype
        if data._data is None:
            return _finish(wrap_meta(tuple(data.shape), dt), requires_grad)
        arr = np.array(data.detach()._data, dtype=dt.np, copy=True) if D.complex32 not in (dt, data.dtype) \
            else _chalf_cast(data.detach()._data, dt.np)
    else:
        if not isinstance(data, (list, tuple)) and isinstance(data, Sequence):
            data = _as_lists(data)
        try:
            if dt is None:
                dt = _infer_dtype(data)
        except _OtherSequence:
            data = _as_lists(data)
            dt = _infer_dtype(data)
        arr = _to_array(data, dt)
    if dev is META:
        return _finish(wrap_meta(arr.shape, dt), requires_grad)
    return _finish(wrap(arr, dt), requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a tensor or NumPy array when no conversion is needed."""
    if ANY_MODE[0]:  # a TorchFunctionMode sees the factory (no cost otherwise)
        r = _by_mode(as_tensor, (data,), dtype=dtype, device=device)
        if r is not NotImplemented:
            return r
    dt = as_dtype(dtype)
    if isinstance(data, TensorBase):
        out = data if dt is None or dt is data.dtype else data.to(dt)
        return out if device is None else out.to(device)
    if isinstance(data, np.ndarray) and data.dtype in D.FROM_NP and \
            (dt is None or dt.np == data.dtype) and _device(device) is CPU:
        return from_numpy(data)
    return tensor(data, dtype=dt, device=device)


def from_numpy(ndarray: np.ndarray):
    """A tensor sharing ``ndarray``'s memory (writes show through both ways)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(_NEGATIVE_STRIDES)
    dt = D.from_numpy_dtype(ndarray.dtype)
    t = wrap(ndarray, dt)
    t._vc = VersionCounter()
    return t


def _into(t, out, requires_grad=False):
    """Write a freshly made tensor into ``out=`` (resized when its shape differs), or return it."""
    if out is None:
        return _finish(t, requires_grad)
    if tuple(out.shape) != tuple(t.shape):
        out._resize_for_out(tuple(t.shape))
    with no_grad():
        out.copy_(t)
    return out


def _create(arr_fn, shape, dt, dev, out, requires_grad):
    """A tensor from ``arr_fn()`` on cpu, or of ``shape`` on meta (where no data is made)."""
    t = wrap_meta(shape, dt) if dev is META else wrap(arr_fn(), dt)
    return _into(t, out, requires_grad)


def _size_of(size, kw, name):
    if "size" in kw:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = (kw.pop("size"),)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    return size_args(size, name)


def _sized(size, dtype, device):
    return size, (as_dtype(dtype) or D.get_default_dtype()), _device(device)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kw):
    """A tensor of zeros: ``zeros(2, 3)``, ``zeros((2, 3))``, ``zeros(size=(2, 3))``."""
    if ANY_MODE[0]:  # a TorchFunctionMode sees the factory (no cost otherwise)
        r = _by_mode(zeros, size, out=out, dtype=dtype, layout=layout, device=device,
                     requires_grad=requires_grad, pin_memory=pin_memory, memory_format=memory_format, **kw)
        if r is not NotImplemented:
            return r
    size = _size_of(size, kw, "zeros")
    try:
        return _filled(size, 0, dtype, device, out, requires_grad)
    except RuntimeError as e:
        if min(size, default=0) < 0 and _device(device) is CPU:  # torch's cpu zeros words it its own way
            raise RuntimeError("zeros: Dimension size must be non-negative.") from None
        raise e


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None, **kw):
    """A tensor of ones: ``ones(2, 3)``, ``ones((2, 3))``."""
    if ANY_MODE[0]:  # a TorchFunctionMode sees the factory (no cost otherwise)
        r = _by_mode(ones, size, out=out, dtype=dtype, layout=layout, device=device,
                     requires_grad=requires_grad, pin_memory=pin_memory, memory_format=memory_format, **kw)
        if r is not NotImplemented:
            return r
    return _filled(_size_of(size, kw, "ones"), 1, dtype, device, out, requires_grad)


def _filled(size: tuple, value, dtype, device, out, requires_grad):
    """``full`` for a normalised size and a Python number (through torch's checked conversion)."""
    dt = as_dtype(dtype) or D.get_default_dtype()
    value = fill_scalar(value, dt)
    return _into(dispatch(C.full, size=size, fill_value=value, dtype=dt, device=_device(device)), out,
                 requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from it when not given)."""
    if ANY_MODE[0]:  # a TorchFunctionMode sees the factory (no cost otherwise)
        r = _by_mode(full, (size, fill_value), out=out, dtype=dtype, layout=layout, device=device,
                     requires_grad=requires_grad, pin_memory=pin_memory)
        if r is not NotImplemented:
            return r
    if isinstance(fill_value, TensorBase):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = D.scalar_dtype(fill_value)
    size, dt, dev = _sized(size_args((size,), "full"), as_dtype(dtype), device)
    fill_value = fill_scalar(fill_value, dt)  # torch's checked conversion (uint8 wraps -1 to 255)
    t = dispatch(C.full, size=size, fill_value=fill_value, dtype=dt, device=dev)
    return _into(t, out, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None, **kw):
    """Uninitialised memory of ``size``."""
    if ANY_MODE[0]:  # a TorchFunctionMode sees the factory (no cost otherwise)
        r = _by_mode(empty, size, out=out, dtype=dtype, layout=layout, device=device,
                     requires_grad=requires_grad, pin_memory=pin_memory, memory_format=memory_format, **kw)
        if r is not NotImplemented:
            return r
    size, dt, dev = _sized(_size_of(size, kw, "empty"), dtype, device)
    return _into(dispatch(C.empty, size=size, dtype=dt, device=dev), out, requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """Uninitialised memory with exactly the given strides."""
    size, dt, dev = _sized(size_args((size,), "empty_strided"), dtype, device)
    stride = tuple(stride)
    if dev is META:
        return _finish(wrap_meta(size, dt, stride), requires_grad)
    n = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    if not n:
        return _finish(wrap(np.empty(size, dt.np), dt), requires_grad)
    buf = np.empty(n, dt.np)
    arr = np.ndarray(size, dt.np, buffer=buf, strides=tuple(s * dt.itemsize for s in stride))
    return _finish(wrap(arr, dt), requires_grad)


def _like(input, dtype, device):
    return tuple(input.shape), (as_dtype(dtype) or input.dtype), (as_device(device) or input.device)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return _filled(s, 0, dt, dev, None, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return _filled(s, 1, dt, dev, None, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return full(s, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    s, dt, dev = _like(input, dtype, device)
    return empty(s, dtype=dt, device=dev, requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-dim tensor holding ``s`` (default dtype unless ``dtype`` is given)."""
    return full((), s, dtype=as_dtype(dtype) or D.get_default_dtype(), device=device,
                requires_grad=requires_grad)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 unless a bound is a float.

    Example:
        >>> arange(1, 2, 0.25)
        tensor([1.0000, 1.2500, 1.5000, 1.7500])
    """
    if ANY_MODE[0]:  # a TorchFunctionMode sees the factory (no cost otherwise)
        r = _by_mode(arange, (start,) if end is None else (start, end, step), out=out, dtype=dtype,
                     layout=layout, device=device, requires_grad=requires_grad, pin_memory=pin_memory)
        if r is not NotImplemented:
            return r
    if end is None:
        start, end = 0, start
    if dtype is D.complex32:
        raise _chalf_refuse("arange")
    vals = [v.item() if isinstance(v, TensorBase) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dt = as_dtype(dtype)
    if dt is None:
        dt = D.int64 if isinstance(start, int) and isinstance(end, int) and isinstance(step, int) \
            else D.get_default_dtype()
    n = max(0, math.ceil((end - start) / step))
    if dt.category < 2 and dt is not D.bool:
        # torch: int64 truncates start, end and step before counting; the other integer dtypes
        # count in double, then step from the truncated start by the truncated step
        if dt is D.int64:
            start, end = int(start), int(end)
        start, step = int(start), int(step)
        if step == 0 and dt is D.int64:  # a fractional step truncated to 0 (other integer dtypes
            raise ValueError("step must be nonzero")  # repeat the start, as torch does)
        if dt is D.int64:
            n = max(0, math.ceil((end - start) / step))
    return _create(lambda: _arange_array(start, step, n, dt), (n,), dt, _device(device), out, requires_grad)


def _arange_array(start, step, n, dt):
    """torch's values: ``start + i * step`` in double (or int64), rounded once to the dtype. A step of
    1 multiplies nothing, and a start of 0 adds nothing unless ``i * step`` may be -0.0 (which
    adding 0 makes +0.0, as torch's sum does)."""
    a = np.arange(n, dtype=np.float64 if dt.category >= 2 else np.int64)
    if step != 1:
        a = a * step
    if start != 0 or step < 0:
        a = start + a
    return a.astype(dt.np, copy=False)


def _to_int_dtype(values, dt):
    """float64 ``values`` truncated into integer dtype ``dt`` as torch's CPU casts do (x86): a value
    beyond int64 (or int32 for the narrower types) becomes that type's minimum, narrower types keep
    the low bits (``logspace(0, 3, 2, dtype=torch.uint8)[1] == 232``)."""
    v = np.trunc(np.asarray(values, dtype=np.float64))
    wide = np.int64 if dt.np in (np.int64, np.uint64) else np.int32
    info = np.iinfo(wide)
    bad = ~np.isfinite(v) | (v < info.min) | (v >= -float(info.min))
    with np.errstate(invalid="ignore"):
        out = np.where(bad, info.min, v).astype(wide)
    return out.astype(dt.np)


def _int_endpoint(value, dt):
    """``start``/``end`` of an integer linspace/logspace: truncated, then wrapped into ``dt``
    (``linspace(-2, 4, 7, dtype=torch.uint8)`` starts at 254). torch's range check: a float must
    lie in the dtype's range; an int too, except that uint8 also takes -255..-1."""
    return int(np.array(int(checked_scalar(value, dt)), dtype=np.int64).astype(dt.np))


def _linspace_array(start, end, steps, dt):
    if dt.np in (np.float32, np.float64) and steps > 1 and not isinstance(start + end, complex):
        ty = dt.np.type
        return C.fma_steps(ty(start), ty(end), steps, ty, np.float64 if ty is np.float32 else np.longdouble)
    if steps and dt.category < 2 and dt is not D.bool and not isinstance(start + end, complex):
        # integers: torch truncates start and end into the dtype, then runs the float64 kernel
        # (fused multiply-adds from both ends) and truncates; checked on thousands of random calls
        lo, hi = _int_endpoint(start, dt), _int_endpoint(end, dt)
        if steps == 1:
            return np.array([lo], dtype=dt.np)
        return _to_int_dtype(C.fma_steps(np.float64(lo), np.float64(hi), steps, np.float64,
                                        np.longdouble), dt)
    arr = np.linspace(float(start), float(end), int(steps), dtype=np.float64)
    if dt.category < 2:
        arr = np.trunc(arr)
    return arr.astype(dt.np)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    dt = as_dtype(dtype) or D.get_default_dtype()
    if dt is D.complex32:
        raise _chalf_refuse("linspace")
    start, end = (v.item() if isinstance(v, TensorBase) else v for v in (start, end))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _create(lambda: _linspace_array(start, end, steps, dt), (int(steps),), dt,
                   _device(device), out, requires_grad)


def _logspace_int(start, end, steps, base, dt):
    """torch's integer logspace: exponents from start/end truncated into ``dt`` (plain float64
    arithmetic, no fused multiply-add; a single step keeps the untruncated start), then
    ``base ** exponent`` truncated (``logspace(0, 1.2, 2, dtype=torch.int64) == [1, 10]``)."""
    if steps == 1:  # torch fills with base ** start, range-checked as a float
        return np.array([_int_endpoint(float(base) ** float(start), dt)], dtype=dt.np)
    lo, hi = float(_int_endpoint(start, dt)), float(_int_endpoint(end, dt))
    step = (hi - lo) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    expo = np.where(i < steps // 2, lo + step * i, hi - step * (steps - 1 - i))
    with np.errstate(over="ignore"):
        return _to_int_dtype(np.power(float(base), expo), dt)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    dt = as_dtype(dtype) or D.get_default_dtype()
    start, end = (v.item() if isinstance(v, TensorBase) else v for v in (start, end))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")

    def make():
        if steps > 0 and dt.category < 2 and dt is not D.bool and not isinstance(start + end, complex):
            return _logspace_int(start, end, int(steps), base, dt)
        arr = np.power(float(base), np.linspace(float(start), float(end), int(steps)))
        return (np.trunc(arr) if dt.category < 2 else arr).astype(dt.np)
    return _create(make, (int(steps),), dt, _device(device), out, requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
        pin_memory=False):
    """A 2-D tensor with ones on the diagonal: ``eye(n)`` or ``eye(n, m)``."""
    dt = as_dtype(dtype) or D.get_default_dtype()
    if dt is D.complex32:
        raise _chalf_refuse("eye")
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    m = n if m is None else m
    return _create(lambda: np.eye(n, m, dtype=dt.np), (n, m), dt, _device(device), out,
                   requires_grad)


for _f in (tensor, as_tensor, zeros, ones, empty, full, arange):
    _f._shows_modes = True  # (overrides.expose_functions leaves them unwrapped)
del _f
