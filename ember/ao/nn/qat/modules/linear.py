"""QAT Linear / Conv: float modules whose weight passes through ``weight_fake_quant`` each forward.

``from_float(mod)`` takes a float module with ``qconfig`` set; the quantized module's ``from_float``
later reads the trained weight's qparams from ``weight_fake_quant``.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.ao.quantization import get_default_qat_qconfig
    >>> m = nn.Linear(3, 2); m.qconfig = get_default_qat_qconfig("x86")
    >>> Linear.from_float(m)(ember.ones(1, 3)).shape
    torch.Size([1, 2])
"""
from __future__ import annotations

from .....nn import functional as F
from .....nn.modules.conv import Conv1d as FloatConv1d
from .....nn.modules.conv import Conv2d as FloatConv2d
from .....nn.modules.linear import Linear as FloatLinear
from .....nn.modules.container import Sequential

__all__ = ["Linear", "Conv1d", "Conv2d"]


def _float_of(mod):
    return mod[0] if isinstance(mod, Sequential) else mod


class Linear(FloatLinear):
    """Linear with a fake-quantized weight for quantization-aware training."""

    _FLOAT_MODULE = FloatLinear

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None, dtype=None):
        super().__init__(in_features, out_features, bias)
        if qconfig is None:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return F.linear(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if getattr(mod, "qconfig", None) is None:
            raise AssertionError("Input float module must have qconfig defined")
        lin = _float_of(mod)
        qat = cls(lin.in_features, lin.out_features, lin.bias is not None, qconfig=mod.qconfig)
        qat.weight = lin.weight
        qat.bias = lin.bias
        return qat

    def to_float(self):
        lin = FloatLinear(self.in_features, self.out_features, self.bias is not None)
        lin.weight.data.copy_(self.weight.detach())
        if self.bias is not None:
            lin.bias.data.copy_(self.bias.detach())
        return lin


class _ConvMixin:
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", qconfig=None, device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode)  # the float conv's __init__ (next in the MRO)
        if qconfig is None:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    def forward(self, input):
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if getattr(mod, "qconfig", None) is None:
            raise AssertionError("Input float module must have qconfig defined")
        conv = _float_of(mod)
        qat = cls(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride,
                  padding=conv.padding, dilation=conv.dilation, groups=conv.groups,
                  bias=conv.bias is not None, padding_mode=conv.padding_mode, qconfig=mod.qconfig)
        qat.weight = conv.weight
        qat.bias = conv.bias
        return qat


class Conv1d(_ConvMixin, FloatConv1d):
    """Conv1d with a fake-quantized weight."""


class Conv2d(_ConvMixin, FloatConv2d):
    """Conv2d with a fake-quantized weight."""
