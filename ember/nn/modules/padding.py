"""Padding modules: Zero/Constant/Reflection/Replication/Circular ``Pad1d/2d/3d`` (layer L4).

Example:
    >>> import ember
    >>> m = ZeroPad2d((1, 0, 0, 1))
    >>> m
    ZeroPad2d((1, 0, 0, 1))
    >>> m(ember.ones(1, 2, 2)).shape
    torch.Size([1, 3, 3])
"""
from __future__ import annotations

import numbers

from .. import functional as F
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d"]


def _ntuple(padding, n: int) -> tuple:
    """An int repeated ``2 * n`` times, or the given sequence as a tuple."""
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * (2 * n)
    return tuple(padding)


class _PadNd(Module):
    """Shared ``forward``/``extra_repr``: subclasses set ``padding`` and ``mode``."""

    __constants__ = ["padding"]
    _n = 1
    mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, self._n)

    def _check_input_dim(self, input) -> None:
        n = self._n
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        if self.mode == "circular":
            self._check_input_dim(input)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim of ``(N, C, W)``/``(C, W)`` with ``value``; padding int or (left, right)."""
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value``; padding int or (left, right, top, bottom)."""
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value``; padding int or a 6-tuple (last dim first)."""
    _n = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Zero-pad the last dim. Shape: ``(*, W) -> (*, W + left + right)``."""
    _n = 1


class ZeroPad2d(_ZeroPadNd):
    """Zero-pad the last 2 dims. Shape: ``(*, H, W) -> (*, H + top + bottom, W + left + right)``."""
    _n = 2


class ZeroPad3d(_ZeroPadNd):
    """Zero-pad the last 3 dims."""
    _n = 3


class ReflectionPad1d(_PadNd):
    """Pad the last dim with its reflection (edge not repeated)."""
    _n, mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pad the last 2 dims with their reflection."""
    _n, mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pad the last 3 dims with their reflection."""
    _n, mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad the last dim by repeating its edge values."""
    _n, mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pad the last 2 dims by repeating their edge values."""
    _n, mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pad the last 3 dims by repeating their edge values."""
    _n, mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Pad the last dim periodically (wrapping around)."""
    _n, mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Pad the last 2 dims periodically."""
    _n, mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Pad the last 3 dims periodically."""
    _n, mode = 3, "circular"
