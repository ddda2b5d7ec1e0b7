"""Quantized LayerNorm and BatchNorm2d: normalise the dequantized input, requantize the output.

Example:
    >>> import ember
    >>> m = LayerNorm(4, ember.ones(4), ember.zeros(4), 0.05, 128)
    >>> m(ember.quantize_per_tensor(ember.arange(4.0), 0.1, 0, ember.quint8)).dtype
    torch.quint8
"""
from __future__ import annotations

from ....._quantized.kernels import requantize
from .....nn import functional as F
from .....nn.modules.batchnorm import BatchNorm2d as FloatBatchNorm2d
from .....nn.modules.normalization import LayerNorm as FloatLayerNorm
from .utils import activation_qparams, save_output_qparams

__all__ = ["LayerNorm", "BatchNorm2d"]


def _load_qparams(module, state_dict, prefix):
    if prefix + "scale" in state_dict:
        module.scale = float(state_dict.pop(prefix + "scale").item())
    if prefix + "zero_point" in state_dict:
        module.zero_point = int(state_dict.pop(prefix + "zero_point").item())


class _OutputQParams:
    """Saves and loads the output ``scale``/``zero_point`` with the module's state."""

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        save_output_qparams(self, destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, *args):
        _load_qparams(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, *args)


class LayerNorm(_OutputQParams, FloatLayerNorm):
    """LayerNorm on quantized input with float affine parameters and output (scale, zero_point)."""

    def __init__(self, normalized_shape, weight, bias, scale, zero_point, eps=1e-5,
                 elementwise_affine=True, device=None, dtype=None):
        super().__init__(normalized_shape, eps=eps, elementwise_affine=elementwise_affine)
        if elementwise_affine:
            self.weight.data.copy_(weight.detach())
            self.bias.data.copy_(bias.detach())
        self.scale, self.zero_point = float(scale), int(zero_point)

    def _get_name(self):
        return "QuantizedLayerNorm"

    def forward(self, input):
        y = F.layer_norm(input.dequantize(), self.normalized_shape, self.weight, self.bias, self.eps)
        return requantize(y.detach()._data, self.scale, self.zero_point, input.dtype)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        scale, zp = activation_qparams(mod.activation_post_process)
        return cls(mod.normalized_shape, mod.weight, mod.bias, scale, zp, mod.eps,
                   mod.elementwise_affine)


class BatchNorm2d(_OutputQParams, FloatBatchNorm2d):
    """Inference BatchNorm2d on quantized input (running statistics), output (scale, zero_point)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, device=None, dtype=None):
        super().__init__(num_features, eps=eps, momentum=momentum)
        self.scale, self.zero_point = 1.0, 0

    def _get_name(self):
        return "QuantizedBatchNorm2d"

    def forward(self, input):
        if input.ndim != 4:
            raise ValueError("Input shape must be `(N, C, H, W)`!")
        y = F.batch_norm(input.dequantize(), self.running_mean, self.running_var, self.weight,
                         self.bias, False, 0.0, self.eps)
        return requantize(y.detach()._data, self.scale, self.zero_point, input.dtype)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        q = cls(mod.num_features, mod.eps, mod.momentum)
        for name in ("weight", "bias"):
            getattr(q, name).data.copy_(getattr(mod, name).detach())
        q.running_mean.copy_(mod.running_mean)
        q.running_var.copy_(mod.running_var)
        q.scale, q.zero_point = activation_qparams(mod.activation_post_process)
        return q
