"""Legacy typed constructors (``ember.FloatTensor(2, 3)``, ``ember.LongTensor([1, 2])``) and the
deterministic-algorithms flags, with torch's behaviour.

A legacy type is a class whose ``isinstance`` asks the tensor's dtype, as torch's ``tensortype`` does.

Example:
    >>> import ember
    >>> ember.FloatTensor(2, 3).shape, ember.LongTensor([1, 2]).dtype
    (torch.Size([2, 3]), torch.int64)
    >>> isinstance(ember.ones(2), ember.FloatTensor)
    True
"""
from __future__ import annotations

from . import _dtype as D
from ._creation import empty, tensor
from ._shape import Size
from ._tensor import Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode"]


class tensortype(type):
    """The metaclass of the legacy constructors: ``isinstance(t, FloatTensor)`` checks the dtype."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, device=None):
        dt = cls.dtype
        if device is not None and str(device) not in ("cpu", "meta"):
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                               f"{device} was passed")
        if not args:
            return empty(0, dtype=dt, device=device)
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype is not dt:
                raise TypeError(f"expected {dt} (got {args[0].dtype})")
            return args[0]
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            return empty(*args, dtype=dt, device=device)
        if len(args) == 1 and isinstance(args[0], Size):
            return empty(args[0], dtype=dt, device=device)
        if len(args) == 1:
            data = args[0]
            if isinstance(data, (str, bytes)):
                raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
            return tensor(data, dtype=dt, device=device)
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)})")

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _legacy(name, dt):
    return tensortype(name, (), {"dtype": dt, "is_sparse": False, "is_cuda": False,
                                 "__module__": "ember", "__doc__": f"Legacy constructor of {dt} tensors."})


FloatTensor = _legacy("FloatTensor", D.float32)
DoubleTensor = _legacy("DoubleTensor", D.float64)
HalfTensor = _legacy("HalfTensor", D.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", D.bfloat16)
LongTensor = _legacy("LongTensor", D.int64)
IntTensor = _legacy("IntTensor", D.int32)
ShortTensor = _legacy("ShortTensor", D.int16)
CharTensor = _legacy("CharTensor", D.int8)
ByteTensor = _legacy("ByteTensor", D.uint8)
BoolTensor = _legacy("BoolTensor", D.bool)


# ------------------------------------------------------------------------------ determinism
class _Det:
    enabled = False
    warn_only = False


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record the flag; every ember CPU kernel is already deterministic."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    _Det.enabled, _Det.warn_only = mode, bool(warn_only) and mode


def are_deterministic_algorithms_enabled() -> bool:
    return _Det.enabled


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _Det.warn_only


def set_deterministic_debug_mode(debug_mode) -> None:
    """0/"default", 1/"warn", 2/"error", as torch."""
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, int) or debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    return 0 if not _Det.enabled else (1 if _Det.warn_only else 2)
