"""Quantized Conv1d / Conv2d: qint8 weights (per tensor or per output channel), quint8 activations.

The state_dict holds ``weight`` (a quantized tensor), ``bias`` (float), ``scale`` and ``zero_point``
as torch's does, so checkpoints exchange with torch under ``weights_only=True``. Zero padding pads
the input with its zero point (the quantized value of 0.0).

Shape:
    input (N, C_in, *spatial) quint8 -> output (N, C_out, *spatial_out) quint8

Example:
    >>> import ember
    >>> m = Conv2d(3, 4, 3, padding=1)
    >>> x = ember.quantize_per_tensor(ember.ones(1, 3, 5, 5), 0.1, 0, ember.quint8)
    >>> m(x).shape, m(x).dtype
    (torch.Size([1, 4, 5, 5]), torch.quint8)
"""
from __future__ import annotations

from ..... import _dtype as D
from ....._creation import tensor, zeros
from ....._quantized.kernels import q_conv
from .....nn.modules.module import Module
from .utils import activation_qparams, quantize_weight, quiet_quantize_per_tensor

__all__ = ["Conv1d", "Conv2d"]


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    _NDIM = 2
    _version = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        n = self._NDIM
        if padding_mode != "zeros":
            raise NotImplementedError(f"quantized convolution supports padding_mode='zeros' only, got "
                                      f"'{padding_mode}'")
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding, self.dilation = _tuple(padding, n), _tuple(dilation, n)
        self.transposed, self.output_padding = False, _tuple(0, n)
        self.groups, self.padding_mode = groups, padding_mode
        w = zeros(out_channels, in_channels // groups, *self.kernel_size)
        self.set_weight_bias(quiet_quantize_per_tensor(w, 1.0, 0, D.qint8),
                             zeros(out_channels) if bias else None)
        self.scale, self.zero_point = 1.0, 0

    def set_weight_bias(self, w, b) -> None:
        self._weight, self._bias = w, b

    def weight(self):
        return self._weight

    def bias(self):
        return self._bias

    def _weight_bias(self):
        return self._weight, self._bias

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}, scale={self.scale}, zero_point={self.zero_point}")
        if self.padding != (0,) * self._NDIM:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._NDIM:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self._bias is None:
            s += ", bias=False"
        return s

    def _conv(self, x, relu=False):
        if x.ndim != self._NDIM + 2:
            raise ValueError(f"Input shape must be `(N, C, {', '.join('HW'[:self._NDIM] if self._NDIM == 2 else 'L')})`!")
        return q_conv(x, self._weight, self._bias, self.stride, self.padding, self.dilation, self.groups,
                      self.scale, self.zero_point, relu=relu)

    def forward(self, input):
        return self._conv(input)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "weight"] = self._weight
        destination[prefix + "bias"] = self._bias
        destination[prefix + "scale"] = tensor(float(self.scale))
        destination[prefix + "zero_point"] = tensor(int(self.zero_point))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for name in ("weight", "bias", "scale", "zero_point"):
            if prefix + name not in state_dict:
                if strict:
                    missing_keys.append(prefix + name)
        if prefix + "weight" in state_dict:
            self.set_weight_bias(state_dict.pop(prefix + "weight"), state_dict.pop(prefix + "bias", None))
        if prefix + "scale" in state_dict:
            self.scale = float(state_dict.pop(prefix + "scale").item())
        if prefix + "zero_point" in state_dict:
            self.zero_point = int(state_dict.pop(prefix + "zero_point").item())
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def _from_conv(cls, conv, weight_post_process, act):
        """A quantized conv from a float conv, its (run) weight observer and its output observer."""
        if weight_post_process is None:
            weight_post_process = conv.qconfig.weight()
            weight_post_process(conv.weight)
        q = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
                conv.dilation, conv.groups, conv.bias is not None, conv.padding_mode)
        q.set_weight_bias(quantize_weight(conv.weight.float(), weight_post_process),
                          conv.bias.detach() if conv.bias is not None else None)
        q.scale, q.zero_point = activation_qparams(act)
        return q

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """From an observed float conv (or fused ConvReLU / QAT conv with ``weight_fake_quant``)."""
        if not hasattr(mod, "qconfig") or mod.qconfig is None:
            raise AssertionError("Input float module must have qconfig defined.")
        if hasattr(mod, "weight_fake_quant"):  # a QAT conv: its fake-quant holds the weight qparams
            if hasattr(mod, "folded_weight_bias"):  # ConvBn: fold the batch norm for good
                conv = mod.to_float()
                conv.qconfig = mod.qconfig
                mod.weight_fake_quant(conv.weight)  # observe the folded weight, as torch does
                return cls._from_conv(conv, mod.weight_fake_quant, mod.activation_post_process)
            return cls._from_conv(mod, mod.weight_fake_quant, mod.activation_post_process)
        conv = mod[0] if hasattr(mod, "_modules") and "0" in mod._modules else mod
        if not hasattr(conv, "qconfig"):
            conv.qconfig = mod.qconfig
        return cls._from_conv(conv, None, mod.activation_post_process)

    @classmethod
    def from_reference(cls, ref_qconv, output_scale, output_zero_point):
        q = cls(ref_qconv.in_channels, ref_qconv.out_channels, ref_qconv.kernel_size, ref_qconv.stride,
                ref_qconv.padding, ref_qconv.dilation, ref_qconv.groups, ref_qconv.bias is not None,
                ref_qconv.padding_mode)
        q.set_weight_bias(ref_qconv.get_quantized_weight(), ref_qconv.bias)
        q.scale, q.zero_point = float(output_scale), int(output_zero_point)
        return q


class Conv1d(_ConvNd):
    """Quantized 1-d convolution."""

    _NDIM = 1

    def _get_name(self):
        return "QuantizedConv1d"


class Conv2d(_ConvNd):
    """Quantized 2-d convolution."""

    _NDIM = 2

    def _get_name(self):
        return "QuantizedConv2d"
