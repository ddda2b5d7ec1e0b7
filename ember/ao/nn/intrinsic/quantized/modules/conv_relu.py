"""Quantized ConvReLU1d / ConvReLU2d: quantized conv with the ReLU applied before requantization.

Example:
    >>> ConvReLU2d(3, 4, 3)
    QuantizedConvReLU2d(3, 4, kernel_size=(3, 3), stride=(1, 1), scale=1.0, zero_point=0)
"""
from __future__ import annotations

from ....quantized.modules.conv import Conv1d, Conv2d

__all__ = ["ConvReLU1d", "ConvReLU2d"]


class ConvReLU1d(Conv1d):
    def _get_name(self):
        return "QuantizedConvReLU1d"

    def forward(self, input):
        return self._conv(input, relu=True)

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        return super().from_reference(ref_qconv[0], output_scale, output_zero_point)


class ConvReLU2d(Conv2d):
    def _get_name(self):
        return "QuantizedConvReLU2d"

    def forward(self, input):
        return self._conv(input, relu=True)

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        return super().from_reference(ref_qconv[0], output_scale, output_zero_point)
