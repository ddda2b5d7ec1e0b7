"""Quantized LinearReLU: quantized Linear with the ReLU applied before requantization.

Example:
    >>> m = LinearReLU(4, 2)
    >>> m
    QuantizedLinearReLU(in_features=4, out_features=2, scale=1.0, zero_point=0, qscheme=torch.per_tensor_affine)
"""
from __future__ import annotations

from ......_quantized.kernels import q_linear
from ....quantized.modules.linear import Linear

__all__ = ["LinearReLU"]


class LinearReLU(Linear):
    """relu(linear(x)) on quint8 input, quint8 output."""

    def _get_name(self):
        return "QuantizedLinearReLU"

    def forward(self, x):
        w, b = self._packed_params._weight_bias()
        return q_linear(x, w, b, self.scale, self.zero_point, relu=True)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        return super().from_float(mod, use_precomputed_fake_quant)

    @classmethod
    def from_reference(cls, ref_linear_relu, output_scale, output_zero_point):
        return super().from_reference(ref_linear_relu[0], output_scale, output_zero_point)
