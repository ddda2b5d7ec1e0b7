"""``torch.ao.nn.quantized.functional``: functional forms of the quantized ops.

Example:
    >>> import ember
    >>> x = ember.quantize_per_tensor(ember.ones(1, 1, 4, 4), 0.1, 0, ember.quint8)
    >>> max_pool2d(x, 2).shape
    torch.Size([1, 1, 2, 2])
"""
from __future__ import annotations

from ...._quantized.kernels import q_conv, q_linear
from ....nn import functional as F

__all__ = ["linear", "conv1d", "conv2d", "max_pool2d", "adaptive_avg_pool2d", "avg_pool2d", "relu6",
           "hardtanh", "leaky_relu", "interpolate"]


def linear(input, weight, bias=None, scale=None, zero_point=None):
    """Quantized linear: quint8 input, qint8 weight, float bias -> quint8 at (scale, zero_point)."""
    return q_linear(input, weight, bias, 1.0 if scale is None else scale,
                    0 if zero_point is None else zero_point)


def _conv(input, weight, bias, stride, padding, dilation, groups, padding_mode, scale, zero_point, n):
    if padding_mode != "zeros":
        raise NotImplementedError("Only zero-padding is supported!")
    t = (lambda v: tuple(v) if isinstance(v, (list, tuple)) else (v,) * n)
    return q_conv(input, weight, bias, t(stride), t(padding), t(dilation), groups, scale, zero_point)


def conv1d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1, padding_mode="zeros",
           scale=1.0, zero_point=0, dtype=None):
    return _conv(input, weight, bias, stride, padding, dilation, groups, padding_mode, scale,
                 zero_point, 1)


def conv2d(input, weight, bias, stride=1, padding=0, dilation=1, groups=1, padding_mode="zeros",
           scale=1.0, zero_point=0, dtype=None):
    return _conv(input, weight, bias, stride, padding, dilation, groups, padding_mode, scale,
                 zero_point, 2)


max_pool2d = F.max_pool2d
adaptive_avg_pool2d = F.adaptive_avg_pool2d
avg_pool2d = F.avg_pool2d
relu6 = F.relu6
hardtanh = F.hardtanh
leaky_relu = F.leaky_relu
interpolate = F.interpolate
