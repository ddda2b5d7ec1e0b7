"""``torch.ao.nn.quantized.modules``: quantized layers plus Quantize / DeQuantize.

Example:
    >>> import ember
    >>> q = Quantize(0.1, 2, ember.quint8)(ember.tensor([0.5]))
    >>> q.int_repr().tolist(), DeQuantize()(q).tolist()
    ([7], [0.5])
"""
from __future__ import annotations

from ..... import _dtype as D
from ....._creation import tensor
from .....nn.modules.module import Module
from .activation import Dropout, Hardswish, LeakyReLU, ReLU6, Sigmoid
from .conv import Conv1d, Conv2d
from .embedding_ops import Embedding, EmbeddingBag, EmbeddingPackedParams
from .functional_modules import FloatFunctional, FXFloatFunctional, QFunctional
from .linear import Linear, LinearPackedParams
from .normalization import BatchNorm2d, LayerNorm
from .utils import activation_qparams, quiet_quantize_per_tensor

__all__ = ["Quantize", "DeQuantize", "Linear", "LinearPackedParams", "Conv1d", "Conv2d", "ReLU6",
           "Hardswish", "LeakyReLU", "Dropout", "Sigmoid", "LayerNorm", "BatchNorm2d", "FloatFunctional",
           "FXFloatFunctional", "QFunctional", "Embedding", "EmbeddingBag", "EmbeddingPackedParams"]


class Quantize(Module):
    """Quantize float input to ``dtype`` with fixed (scale, zero_point) (what QuantStub becomes)."""

    def __init__(self, scale, zero_point, dtype, factory_kwargs=None):
        super().__init__()
        self.register_buffer("scale", tensor([float(scale)]))
        self.register_buffer("zero_point", tensor([int(zero_point)]))
        self.dtype = dtype

    def forward(self, X):
        return quiet_quantize_per_tensor(X, float(self.scale._data[0]), int(self.zero_point._data[0]),
                                         self.dtype)

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        scale, zp = activation_qparams(mod.activation_post_process)
        return Quantize(scale, zp, mod.activation_post_process.dtype)


class DeQuantize(Module):
    """Dequantize a quantized tensor to float32 (what DeQuantStub becomes)."""

    def forward(self, Xq):
        return Xq.dequantize()

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return DeQuantize()
