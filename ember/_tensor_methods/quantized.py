"""Quantization methods of a plain (non-quantized) Tensor; ``QTensor`` (ember/_quantized) overrides them.

Example:
    >>> import ember
    >>> x = ember.ones(2)
    >>> x.dequantize() is x, x.is_quantized
    (True, False)
"""
from __future__ import annotations

__all__ = ["QuantizedMixin"]


def _cpu_only(name: str):
    def method(self, *args, **kwargs):
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This could be because "
            f"the operator doesn't exist for this backend, or was omitted during the selective/custom "
            f"build process (if using custom build).")
    method.__name__ = method.__qualname__ = name
    return method


class QuantizedMixin:
    __slots__ = ()

    def dequantize(self):
        """A float tensor is its own dequantization."""
        return self

    int_repr = _cpu_only("int_repr")
    q_scale = _cpu_only("q_scale")
    q_zero_point = _cpu_only("q_zero_point")
    qscheme = _cpu_only("qscheme")
    q_per_channel_scales = _cpu_only("q_per_channel_scales")
    q_per_channel_zero_points = _cpu_only("q_per_channel_zero_points")
    q_per_channel_axis = _cpu_only("q_per_channel_axis")
