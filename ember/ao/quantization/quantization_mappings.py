"""Which float module becomes which quantized module (static, dynamic, QAT), as torch's tables.

Example:
    >>> from ember import nn
    >>> get_default_dynamic_quant_module_mappings()[nn.Linear].__name__
    'Linear'
"""
from __future__ import annotations

from ... import nn
from ..nn import intrinsic as nni
from ..nn import quantized as nnq
from ..nn.intrinsic import quantized as nniq
from ..nn.quantized import dynamic as nnqd
from ..nn import qat as nnqat
from ..nn.intrinsic import qat as nniqat
from .stubs import DeQuantStub, QuantStub

__all__ = ["DEFAULT_STATIC_QUANT_MODULE_MAPPINGS", "DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS",
           "DEFAULT_QAT_MODULE_MAPPINGS", "get_default_static_quant_module_mappings",
           "get_default_dynamic_quant_module_mappings", "get_default_qat_module_mappings",
           "get_default_qconfig_propagation_list", "no_observer_set",
           "get_default_static_quant_reference_module_mappings"]

DEFAULT_STATIC_QUANT_MODULE_MAPPINGS = {
    QuantStub: nnq.Quantize,
    DeQuantStub: nnq.DeQuantize,
    nn.BatchNorm2d: nnq.BatchNorm2d,
    nn.Embedding: nnq.Embedding,
    nn.EmbeddingBag: nnq.EmbeddingBag,
    nn.Conv1d: nnq.Conv1d,
    nn.Conv2d: nnq.Conv2d,
    nn.Hardswish: nnq.Hardswish,
    nn.LayerNorm: nnq.LayerNorm,
    nn.LeakyReLU: nnq.LeakyReLU,
    nn.Linear: nnq.Linear,
    nn.ReLU6: nnq.ReLU6,
    nnq.FloatFunctional: nnq.QFunctional,
    nni.ConvReLU1d: nniq.ConvReLU1d,
    nni.ConvReLU2d: nniq.ConvReLU2d,
    nni.LinearReLU: nniq.LinearReLU,
    nnqat.Linear: nnq.Linear,
    nnqat.Conv2d: nnq.Conv2d,
    nniqat.ConvBn2d: nnq.Conv2d,
    nniqat.ConvBnReLU2d: nniq.ConvReLU2d,
    nniqat.ConvReLU2d: nniq.ConvReLU2d,
    nniqat.LinearReLU: nniq.LinearReLU,
}

DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS = {
    nn.GRU: nnqd.GRU,
    nn.Linear: nnqd.Linear,
    nn.LSTM: nnqd.LSTM,
    nni.LinearReLU: nniq.dynamic.LinearReLU,
    nn.Embedding: nnq.Embedding,
    nn.EmbeddingBag: nnq.EmbeddingBag,
}

DEFAULT_QAT_MODULE_MAPPINGS = {
    nn.Conv2d: nnqat.Conv2d,
    nn.Linear: nnqat.Linear,
    nni.ConvBn2d: nniqat.ConvBn2d,
    nni.ConvBnReLU2d: nniqat.ConvBnReLU2d,
    nni.ConvReLU2d: nniqat.ConvReLU2d,
    nni.LinearReLU: nniqat.LinearReLU,
}

_INCLUDE_QCONFIG_PROPAGATE_LIST = {nn.Sequential}


def get_default_static_quant_module_mappings() -> dict:
    return dict(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS)


def get_default_static_quant_reference_module_mappings() -> dict:
    from ..nn.quantized import reference as nnqr
    return {nn.Linear: nnqr.Linear, nn.Conv1d: nnqr.Conv1d, nn.Conv2d: nnqr.Conv2d,
            QuantStub: nnq.Quantize, DeQuantStub: nnq.DeQuantize}


def get_default_dynamic_quant_module_mappings() -> dict:
    return dict(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS)


def get_default_qat_module_mappings() -> dict:
    return dict(DEFAULT_QAT_MODULE_MAPPINGS)


def get_default_qconfig_propagation_list() -> set:
    """Module types that receive a qconfig (and therefore observers) in eager mode."""
    return (set(DEFAULT_STATIC_QUANT_MODULE_MAPPINGS) | set(DEFAULT_QAT_MODULE_MAPPINGS)
            | set(DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS) | _INCLUDE_QCONFIG_PROPAGATE_LIST)


def no_observer_set() -> set:
    """Modules that need no output observer (their quantized form computes its own qparams)."""
    return set()
