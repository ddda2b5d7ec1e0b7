"""Dynamic quantized LinearReLU: relu of a dynamic int8 linear (float in, float out).

Example:
    >>> import ember
    >>> (LinearReLU(3, 2)(ember.ones(1, 3)) >= 0).all().item()
    True
"""
from __future__ import annotations

from ......._quantized.kernels import q_linear_dynamic
from .....quantized.dynamic.modules.linear import Linear, reduce_range

__all__ = ["LinearReLU"]


class LinearReLU(Linear):
    def _get_name(self):
        return "DynamicQuantizedLinearReLU"

    def forward(self, x):
        w, b = self._packed_params._weight_bias()
        return q_linear_dynamic(x, w, b, reduce_range(), relu=True)
