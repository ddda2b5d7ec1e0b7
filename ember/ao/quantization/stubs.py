"""QuantStub / DeQuantStub / QuantWrapper: where eager-mode quantization starts and ends.

Before ``convert`` the stubs are identities (QuantStub carries an observer after ``prepare``);
``convert`` swaps them for ``nn.quantized.Quantize`` / ``DeQuantize``.

Example:
    >>> import ember
    >>> QuantStub()(ember.ones(2)).tolist()
    [1.0, 1.0]
"""
from __future__ import annotations

from ...nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper"]


class _Marker(Module):
    """An identity module carrying an optional ``qconfig`` (what ``convert`` replaces)."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantStub(_Marker):
    """Marks where float activations become quantized (identity until ``convert``)."""


class DeQuantStub(_Marker):
    """Marks where quantized activations become float again (identity until ``convert``)."""


class QuantWrapper(Module):
    """``quant -> module -> dequant`` around a float module."""

    def __init__(self, module):
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)
        self.train(module.training)

    def forward(self, X):
        return self.dequant(self.module(self.quant(X)))
