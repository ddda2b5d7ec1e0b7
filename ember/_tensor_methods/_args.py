"""Argument normalisation shared by the method families: torch's accepted forms -> canonical params."""
from __future__ import annotations

from .. import _dtype as D
from .._device import device as Device
from .._shape import normalize_dim, normalize_dims
from .._tensor_base import TensorBase

__all__ = ["size_args", "dim_arg", "dims_arg", "normalize_dim", "TensorBase",
           "as_dtype", "as_device"]


def size_args(args, name: str = "size") -> tuple:
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``, ``f(ember.Size(...))`` -> (2, 3)."""
    if len(args) == 1 and not isinstance(args[0], int):
        a = args[0]
        if isinstance(a, TensorBase):
            return tuple(int(x) for x in a.tolist()) if a.dim() else (int(a.item()),)
        args = tuple(a)
    for s in args:
        if type(s) is not int:
            break
    else:
        return args if type(args) is tuple else tuple(args)  # the common case: plain ints
    out = []
    for s in args:
        if isinstance(s, TensorBase):
            s = s.item()
        if not isinstance(s, int) or isinstance(s, bool):
            try:
                s = s.__index__()
            except AttributeError:
                raise TypeError(f"{name}(): argument 'size' must be tuple of ints, but found element "
                                f"of type {type(s).__name__}") from None
        out.append(s)
    return tuple(out)


def dim_arg(dim, ndim: int) -> int:
    if not isinstance(dim, int):
        if hasattr(dim, "__index__"):
            dim = dim.__index__()
        else:
            raise TypeError(f"dim must be an int, not {type(dim).__name__}")
    return normalize_dim(dim, ndim)


def dims_arg(dim, ndim: int):
    """None -> None (all dims); int or sequence -> sorted tuple of non-negative dims."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)) and len(dim) == 0:
        return None
    return tuple(sorted(normalize_dims(dim, ndim)))


def as_dtype(d):
    if d is None or isinstance(d, D.dtype):
        return d
    if d in (float,):
        return D.float64
    if d is int:
        return D.int64
    if d is bool:
        return D.bool
    if d is complex:
        return D.complex128
    if isinstance(d, str):
        name = d.replace("torch.", "")
        try:
            return D._dtype_by_name(name)
        except KeyError:
            pass
    try:
        import numpy as np
        return D.FROM_NP[np.dtype(d)]
    except Exception:
        raise TypeError(f"invalid dtype: {d!r}") from None


def as_device(d):
    return None if d is None else Device(d)
