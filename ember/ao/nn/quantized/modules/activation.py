"""Quantized activations: ReLU6, Hardswish, LeakyReLU, Sigmoid (output qparams as torch's).

Example:
    >>> import ember
    >>> x = ember.quantize_per_tensor(ember.tensor([-1.0, 7.0]), 0.05, 40, ember.quint8)
    >>> ReLU6()(x).dequantize().tolist()
    [0.0, 6.0]
"""
from __future__ import annotations

import numpy as np

from ....._quantized.kernels import requantize
from ....._quantized.tensor import dequantize_array
from .....nn import functional as F
from .....nn.modules.module import Module
from ....._dispatch import wrap
from .utils import activation_qparams

__all__ = ["ReLU6", "Hardswish", "LeakyReLU", "Sigmoid", "Dropout"]


def _apply(fn, x, scale, zero_point):
    y = fn(wrap(dequantize_array(x)))
    return requantize(y._data, scale, zero_point, x.dtype)


class ReLU6(Module):
    """min(max(x, 0), 6) on a quantized tensor, keeping its qparams."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def _get_name(self):
        return "QuantizedReLU6"

    def forward(self, input):
        return F.relu6(input)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return ReLU6(mod.inplace)


class _WithQParams(Module):
    _FN = None
    _NAME = ""

    def __init__(self, scale, zero_point, device=None, dtype=None):
        super().__init__()
        self.scale = float(np.float32(scale))
        self.zero_point = int(zero_point)

    def _get_name(self):
        return "Quantized" + self._NAME

    def forward(self, input):
        return _apply(type(self)._FN, input, self.scale, self.zero_point)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        scale, zp = activation_qparams(mod.activation_post_process)
        return cls(scale, zp)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(float(scale), int(zero_point))


class Hardswish(_WithQParams):
    """x * relu6(x + 3) / 6, requantized to (scale, zero_point)."""

    _FN = staticmethod(F.hardswish)
    _NAME = "Hardswish"


class Sigmoid(_WithQParams):
    """sigmoid, requantized to (scale, zero_point) (fixed 1/256, 0 under the default qconfigs)."""

    _FN = staticmethod(F.sigmoid)
    _NAME = "Sigmoid"


class LeakyReLU(_WithQParams):
    """leaky_relu(x, negative_slope), requantized to (scale, zero_point)."""

    _NAME = "LeakyReLU"

    def __init__(self, scale, zero_point, negative_slope=1e-2, inplace=False, device=None, dtype=None):
        super().__init__(scale, zero_point)
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return _apply(lambda t: F.leaky_relu(t, self.negative_slope), input, self.scale,
                      self.zero_point)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        scale, zp = activation_qparams(mod.activation_post_process)
        return cls(scale, zp, mod.negative_slope, mod.inplace)


class Dropout(Module):
    """Dropout on quantized tensors: the identity in eval mode (as torch's quantized Dropout)."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        self.p, self.inplace = p, inplace

    def _get_name(self):
        return "QuantizedDropout"

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, input):
        return input

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return cls(mod.p, mod.inplace)

    @classmethod
    def from_reference(cls, mod, scale, zero_point):
        return cls(mod.p, mod.inplace)
