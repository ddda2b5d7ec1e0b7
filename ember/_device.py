"""Devices: ``device('cpu')``, ``device('meta')``, ``device('cuda', 0)`` (layer L0).

Example:
    >>> device('cuda:1')
    device(type='cuda', index=1)
"""
from __future__ import annotations

import threading

__all__ = ["device", "get_default_device", "set_default_device"]

_KNOWN = ("cpu", "meta", "cuda")


class device:
    """Where a tensor lives. Usable as a context manager that sets the default device."""

    __slots__ = ("type", "index", "_prev")
    _cache: dict = {}

    def __new__(cls, type=None, index: int | None = None):
        if isinstance(type, device):
            return type
        if isinstance(type, int) and index is None:  # torch.device(0) means cuda:0
            type, index = "cuda", type
        key = (type, index)
        hit = cls._cache.get(key)
        if hit is not None:
            return hit
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type!r})")
        name, idx = type, index
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            name, _, num = type.partition(":")
            if not num.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            idx = int(num)
        if name not in _KNOWN:
            raise RuntimeError(
                f"Expected one of cpu, cuda, meta device type at start of device string: {type}")
        if idx is not None and idx < 0:
            raise RuntimeError(f"Device index must not be negative")
        self = object.__new__(cls)
        self.type, self.index, self._prev = name, idx, None
        cls._cache[key] = self
        return self

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        _default.stack.append(get_default_device())
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(_default.stack.pop())


class _Default(threading.local):
    def __init__(self):
        self.device = None  # None means cpu without the override machinery
        self.stack = []


_default = _Default()
CPU = device("cpu")
META = device("meta")


def get_default_device() -> device:
    return _default.device or CPU


def set_default_device(d) -> None:
    _default.device = None if d is None else device(d)


def check_available(d: device) -> None:
    """Raise as torch's CPU-only build does when memory is requested on CUDA."""
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
