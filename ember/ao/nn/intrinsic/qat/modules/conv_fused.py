"""QAT fused modules: ConvBn2d, ConvBnReLU2d, ConvReLU2d, LinearReLU.

``ConvBn2d`` trains with the batch norm's current statistics while the weight is fake-quantized
already folded with the running ones: ``y = bn(conv(x, fq(w * g)) / g + b)`` with
``g = bn.weight / sqrt(running_var + eps)``, so the weight the int8 model will use is the one trained
against. Converting folds the batch norm into the conv for good.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.ao.quantization import get_default_qat_qconfig
    >>> from ember.ao.nn.intrinsic import ConvBnReLU2d as Fused
    >>> f = Fused(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU()); f.qconfig = get_default_qat_qconfig()
    >>> ConvBnReLU2d.from_float(f)(ember.randn(2, 1, 5, 5)).shape
    torch.Size([2, 2, 3, 3])
"""
from __future__ import annotations

from ......_creation import zeros
from ......nn import functional as F
from ......nn.modules.batchnorm import BatchNorm2d
from ......nn.modules.conv import Conv2d as FloatConv2d
from ......nn.utils.fusion import fuse_conv_bn_weights
from .....nn.qat.modules.linear import Conv2d as QATConv2d
from .....nn.qat.modules.linear import Linear as QATLinear

__all__ = ["ConvBn2d", "ConvBnReLU2d", "ConvReLU2d", "LinearReLU"]


class ConvBn2d(QATConv2d):
    """Conv2d + BatchNorm2d trained together with a fake-quantized, BN-folded weight."""

    _WITH_RELU = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=None, padding_mode="zeros", eps=1e-05, momentum=0.1,
                 freeze_bn=False, qconfig=None):
        FloatConv2d.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                             groups, False, padding_mode)
        if qconfig is None:
            raise AssertionError("qconfig must be provided for QAT module")
        self.qconfig = qconfig
        self.bn = BatchNorm2d(out_channels, eps=eps, momentum=momentum)
        self.weight_fake_quant = qconfig.weight()
        self.freeze_bn = freeze_bn if self.training else True
        if bias:
            from ......nn.parameter import Parameter
            self.bias = Parameter(zeros(out_channels))

    def freeze_bn_stats(self):
        self.freeze_bn = True
        self.bn.training = False
        return self

    def update_bn_stats(self):
        self.freeze_bn = False
        self.bn.training = True
        return self

    def _forward(self, input):
        running_std = (self.bn.running_var + self.bn.eps).sqrt()
        scale_factor = self.bn.weight / running_std
        scaled_weight = self.weight_fake_quant(self.weight * scale_factor.reshape(-1, 1, 1, 1))
        conv = self._conv_forward(input, scaled_weight, zeros(self.out_channels))
        conv = conv / scale_factor.reshape(1, -1, 1, 1)
        if self.bias is not None:
            conv = conv + self.bias.reshape(1, -1, 1, 1)
        return self.bn(conv)

    def forward(self, input):
        out = self._forward(input)
        return F.relu(out) if self._WITH_RELU else out

    def train(self, mode: bool = True):
        self.training = mode
        if not self.freeze_bn:
            for m in self.children():
                m.train(mode)
        return self

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if getattr(mod, "qconfig", None) is None:
            raise AssertionError("Input float module must have qconfig defined")
        conv, bn = mod[0], mod[1]
        qat = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
                  conv.dilation, conv.groups, conv.bias is not None, conv.padding_mode, bn.eps,
                  bn.momentum, False, mod.qconfig)
        qat.weight = conv.weight
        qat.bias = conv.bias
        qat.bn.weight, qat.bn.bias = bn.weight, bn.bias
        qat.bn.running_mean = bn.running_mean
        qat.bn.running_var = bn.running_var
        qat.bn.num_batches_tracked = bn.num_batches_tracked
        return qat

    def folded_weight_bias(self):
        """(weight, bias) with the batch norm's running statistics folded in (what convert uses)."""
        return fuse_conv_bn_weights(self.weight, self.bias, self.bn.running_mean, self.bn.running_var,
                                    self.bn.eps, self.bn.weight, self.bn.bias)

    def to_float(self):
        conv = FloatConv2d(self.in_channels, self.out_channels, self.kernel_size, self.stride,
                           self.padding, self.dilation, self.groups, True, self.padding_mode)
        w, b = self.folded_weight_bias()
        conv.weight.data.copy_(w.detach())
        conv.bias.data.copy_(b.detach())
        return conv


class ConvBnReLU2d(ConvBn2d):
    """ConvBn2d followed by ReLU."""

    _WITH_RELU = True


class ConvReLU2d(QATConv2d):
    """QAT Conv2d followed by ReLU."""

    def forward(self, input):
        return F.relu(super().forward(input))


class LinearReLU(QATLinear):
    """QAT Linear followed by ReLU."""

    def forward(self, input):
        return F.relu(super().forward(input))
