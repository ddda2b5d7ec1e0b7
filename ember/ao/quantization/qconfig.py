"""QConfig: which observer (or fake-quant) factory watches activations and which watches weights.

Example:
    >>> qc = get_default_qconfig("x86")
    >>> type(qc.activation()).__name__, type(qc.weight()).__name__
    ('HistogramObserver', 'PerChannelMinMaxObserver')
"""
from __future__ import annotations

from collections import namedtuple

from ... import _dtype as D
from ...nn.modules.module import Module
from .observer import HistogramObserver
from .fake_quantize import (FakeQuantize, FusedMovingAvgObsFakeQuantize, default_fake_quant,
                            default_per_channel_weight_fake_quant, default_weight_fake_quant)
from .observer import (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver,
                       NoopObserver, PlaceholderObserver, default_debug_observer,
                       default_dynamic_quant_observer, default_float_qparams_observer,
                       default_observer,
                       default_per_channel_weight_observer, default_placeholder_observer,
                       default_weight_observer)
from ..._quantized.tensor import per_channel_symmetric, per_tensor_symmetric

__all__ = ["QConfig", "QConfigDynamic", "default_qconfig", "default_debug_qconfig",
           "default_per_channel_qconfig", "default_dynamic_qconfig", "per_channel_dynamic_qconfig",
           "float16_dynamic_qconfig", "float16_static_qconfig", "float_qparams_weight_only_qconfig",
           "default_qat_qconfig", "default_weight_only_qconfig", "default_activation_only_qconfig",
           "get_default_qconfig", "get_default_qat_qconfig", "qconfig_equals"]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """``QConfig(activation=ObserverFactory, weight=ObserverFactory)``; factories, never instances."""

    __slots__ = ()

    def __new__(cls, activation, weight):
        if isinstance(activation, Module) or isinstance(weight, Module):
            raise ValueError("QConfig received observer instance, please pass observer class instead. "
                             "Use MyObserver.with_args(x=1) to override arguments to constructor if "
                             "needed")
        return super().__new__(cls, activation, weight)


class QConfigDynamic(namedtuple("QConfigDynamic", ["activation", "weight"])):
    """Deprecated: use ``QConfig``."""

    __slots__ = ()

    def __new__(cls, activation=None, weight=None):
        import warnings
        warnings.warn("QConfigDynamic is going to be deprecated in PyTorch 1.12, please use QConfig "
                      "instead")
        if activation is None:
            activation = PlaceholderObserver
        if weight is None:
            weight = PlaceholderObserver
        return super().__new__(cls, activation, weight)


default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_debug_qconfig = QConfig(weight=default_weight_observer, activation=default_debug_observer)
default_per_channel_qconfig = QConfig(activation=default_observer,
                                      weight=default_per_channel_weight_observer)
default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                  weight=default_weight_observer)
per_channel_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                      weight=default_per_channel_weight_observer)
float16_dynamic_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=D.float16,
                                                                           is_dynamic=True),
                                  weight=PlaceholderObserver.with_args(dtype=D.float16))
float16_static_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=D.float16),
                                 weight=PlaceholderObserver.with_args(dtype=D.float16))
float_qparams_weight_only_qconfig = QConfig(activation=default_placeholder_observer,
                                            weight=default_float_qparams_observer)
default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)
default_weight_only_qconfig = QConfig(activation=NoopObserver, weight=default_weight_fake_quant)
default_activation_only_qconfig = QConfig(activation=default_fake_quant, weight=NoopObserver)

_BACKENDS = ("fbgemm", "x86", "qnnpack", "onednn")


def get_default_qconfig(backend: str = "x86", version: int = 0) -> QConfig:
    """The post-training qconfig torch recommends for ``backend`` (x86/fbgemm reduce the range)."""
    if backend not in _BACKENDS:
        raise AssertionError(f"backend: {backend} not supported. backend must be one of {list(_BACKENDS)}")
    if version != 0:
        raise AssertionError(f"Version number: {version} in get_default_qconfig is not supported. "
                             "Version number must be 0")
    if backend in ("fbgemm", "x86"):
        return QConfig(activation=HistogramObserver.with_args(reduce_range=True),
                       weight=default_per_channel_weight_observer)
    if backend == "qnnpack":
        return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                       weight=default_weight_observer)
    return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                   weight=default_per_channel_weight_observer)


def get_default_qat_qconfig(backend: str = "x86", version: int = 1) -> QConfig:
    """The quantization-aware-training qconfig for ``backend`` (fake-quant factories)."""
    if backend not in _BACKENDS:
        raise AssertionError(f"backend: {backend} not supported. backend must be one of {list(_BACKENDS)}")
    if version == 0:
        if backend in ("fbgemm", "x86"):
            return QConfig(activation=FakeQuantize.with_args(observer=MovingAverageMinMaxObserver,
                                                             quant_min=0, quant_max=255,
                                                             reduce_range=True),
                           weight=default_per_channel_weight_fake_quant)
        return QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)
    reduce = backend in ("fbgemm", "x86")
    act = FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0,
                                                  quant_max=255, reduce_range=reduce)
    if backend == "qnnpack":
        weight = FusedMovingAvgObsFakeQuantize.with_args(
            observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=D.qint8,
            qscheme=per_tensor_symmetric)
    else:
        weight = FusedMovingAvgObsFakeQuantize.with_args(
            observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
            dtype=D.qint8, qscheme=per_channel_symmetric)
    return QConfig(activation=act, weight=weight)


def _partial_key(f):
    p = getattr(f, "p", f)
    return (getattr(p, "func", p), tuple(sorted(getattr(p, "keywords", {}).items(), key=str)))


def qconfig_equals(q1, q2) -> bool:
    """Whether two qconfigs build the same observers (factories compared by class and arguments)."""
    if q1 is None or q2 is None:
        return q1 == q2
    return all(_partial_key(a) == _partial_key(b) for a, b in zip(q1, q2))
