"""Reference quantized Linear / Conv: float modules whose weight is quantized then dequantized.

``convert_to_reference_fx`` puts these where the quantized kernels will go: the computation stays in
float, with the weight rounded exactly as the quantized module will store it, so the graph is a
readable, backend-independent description of the quantized model.

Example:
    >>> from ember import nn
    >>> from ember.ao.quantization.observer import default_weight_observer
    >>> ref = Linear.from_float(nn.Linear(3, 2), _weight_qparams(nn.Linear(3, 2).weight,
    ...                                                         default_weight_observer()))
    >>> ref
    QuantizedLinear(Reference)(in_features=3, out_features=2, bias=True)
"""
from __future__ import annotations

from ...... import _dtype as D
from ......_creation import tensor
from ......_quantized.tensor import (dequantize_array, per_channel_affine, per_channel_symmetric,
                                     per_tensor_affine, per_tensor_symmetric)
from ......nn import functional as F
from ......nn.modules.conv import Conv1d as FloatConv1d
from ......nn.modules.conv import Conv2d as FloatConv2d
from ......nn.modules.linear import Linear as FloatLinear
from ......_dispatch import wrap
from ...modules.utils import quantize_weight

__all__ = ["Linear", "Conv1d", "Conv2d", "_weight_qparams"]


def _weight_qparams(weight, observer) -> dict:
    """{'qscheme', 'dtype', 'scale', 'zero_point', 'axis'} of ``weight`` under a weight observer."""
    observer(weight)
    scale, zp = observer.calculate_qparams()
    return {"qscheme": observer.qscheme, "dtype": observer.dtype, "scale": scale, "zero_point": zp,
            "axis": getattr(observer, "ch_axis", 0), "_observer": observer}


class _ReferenceWeight:
    """Mixin: weight qparams kept as buffers, ``get_weight`` (quant-dequant) for the forward."""

    def _init_weight_qparams(self, weight_qparams):
        qs = weight_qparams["qscheme"]
        self.weight_qscheme = per_tensor_affine if qs is per_tensor_symmetric else \
            per_channel_affine if qs is per_channel_symmetric else qs
        self.weight_dtype = weight_qparams["dtype"]
        self.register_buffer("weight_scale", tensor(weight_qparams["scale"]._data, dtype=D.float32))
        self.register_buffer("weight_zero_point",
                             tensor(weight_qparams["zero_point"]._data, dtype=D.int32))
        self.register_buffer("weight_axis", tensor(int(weight_qparams["axis"])))
        # a plain tuple: the observer is how the weight is rounded, not a submodule or state
        self._weight_observer = (weight_qparams["_observer"],)

    def get_quantized_weight(self):
        return quantize_weight(self.weight.detach().float(), self._weight_observer[0])

    def get_weight(self):
        return wrap(dequantize_array(self.get_quantized_weight()))

    def _get_name(self):
        return f"Quantized{type(self).__bases__[-1].__name__}(Reference)"


class Linear(_ReferenceWeight, FloatLinear):
    """Reference quantized Linear: ``linear(x, dequant(quant(weight)), bias)``."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None,
                 weight_qparams=None):
        FloatLinear.__init__(self, in_features, out_features, bias)
        if weight_qparams is not None:
            self._init_weight_qparams(weight_qparams)

    def forward(self, x):
        return F.linear(x, self.get_weight(), self.bias)

    @classmethod
    def from_float(cls, float_linear, weight_qparams):
        ref = cls(float_linear.in_features, float_linear.out_features, float_linear.bias is not None)
        ref.weight = float_linear.weight
        ref.bias = float_linear.bias
        ref._init_weight_qparams(weight_qparams)
        return ref


class _RefConv(_ReferenceWeight):
    def forward(self, x):
        return self._conv_forward(x, self.get_weight(), self.bias)

    @classmethod
    def from_float(cls, float_conv, weight_qparams):
        ref = cls(float_conv.in_channels, float_conv.out_channels, float_conv.kernel_size,
                  float_conv.stride, float_conv.padding, float_conv.dilation, float_conv.groups,
                  float_conv.bias is not None, float_conv.padding_mode)
        ref.weight = float_conv.weight
        ref.bias = float_conv.bias
        ref._init_weight_qparams(weight_qparams)
        return ref


class Conv1d(_RefConv, FloatConv1d):
    """Reference quantized Conv1d."""


class Conv2d(_RefConv, FloatConv2d):
    """Reference quantized Conv2d."""
