"""FakeQuantize modules: observe, then fake-quantize in float (quantization-aware training).

``FakeQuantize(observer=MovingAverageMinMaxObserver, quant_min, quant_max, **observer_kwargs)`` keeps
its observer as ``activation_post_process`` and its current qparams in the ``scale`` / ``zero_point``
buffers; the ``fake_quant_enabled`` / ``observer_enabled`` buffers switch each half on and off.

Example:
    >>> import ember
    >>> fq = FakeQuantize()
    >>> fq(ember.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
"""
from __future__ import annotations

import re

import numpy as np

from ... import _dtype as D
from ..._creation import tensor
from ..._quantized.fake_quantize import (fake_quantize_per_channel_affine,
                                         fake_quantize_per_tensor_affine)
from ..._quantized.tensor import (per_channel_affine, per_channel_affine_float_qparams,
                                  per_channel_symmetric, per_tensor_affine, per_tensor_symmetric)
from ...nn.modules.module import Module
from .observer import (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver, _AdoptSavedShapes,
                       _with_args)

__all__ = ["FakeQuantizeBase", "FakeQuantize", "FusedMovingAvgObsFakeQuantize", "default_fake_quant",
           "default_weight_fake_quant", "default_per_channel_weight_fake_quant",
           "default_fused_act_fake_quant", "default_fused_wt_fake_quant",
           "default_fused_per_channel_wt_fake_quant", "disable_fake_quant", "enable_fake_quant",
           "disable_observer", "enable_observer"]

_PER_CHANNEL = (per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams)


class FakeQuantizeBase(Module):
    """The two switches (``fake_quant_enabled``, ``observer_enabled`` uint8 buffers)."""

    with_args = classmethod(_with_args)

    def __init__(self):
        super().__init__()
        self.register_buffer("fake_quant_enabled", tensor([1], dtype=D.uint8))
        self.register_buffer("observer_enabled", tensor([1], dtype=D.uint8))

    def enable_fake_quant(self, enabled: bool = True):
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        self.enable_fake_quant(False)

    def enable_observer(self, enabled: bool = True):
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        self.enable_observer(False)


class FakeQuantize(_AdoptSavedShapes, FakeQuantizeBase):
    """Observe ``X`` with ``activation_post_process``, then fake-quantize it with the qparams found."""

    _adopt_shapes = ("scale", "zero_point")  # per-channel values take the saved shape

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None, quant_max=None,
                 is_dynamic=False, **observer_kwargs):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if quant_min > quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            observer_kwargs["quant_min"], observer_kwargs["quant_max"] = quant_min, quant_max
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        app = self.activation_post_process
        self.quant_min, self.quant_max = app.quant_min, app.quant_max
        self.is_dynamic = app.is_dynamic
        self.register_buffer("scale", tensor([1.0]))
        self.register_buffer("zero_point", tensor([0], dtype=D.int32))
        self.dtype = app.dtype
        self.qscheme = app.qscheme
        self.ch_axis = getattr(app, "ch_axis", -1)
        self.is_per_channel = self.qscheme in _PER_CHANNEL

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def forward(self, X):
        if int(self.observer_enabled._data[0]) == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self.calculate_qparams()
            self.scale = scale.detach().clone()
            self.zero_point = zero_point.detach().to(D.int32)
        if int(self.fake_quant_enabled._data[0]) == 1:
            if self.is_per_channel:
                X = fake_quantize_per_channel_affine(X, self.scale, self.zero_point, self.ch_axis,
                                                     self.quant_min, self.quant_max)
            else:
                X = fake_quantize_per_tensor_affine(X, self.scale, self.zero_point, self.quant_min,
                                                    self.quant_max)
        return X

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled={self.observer_enabled}, "
                f"quant_min={self.quant_min}, quant_max={self.quant_max}, dtype={self.dtype}, "
                f"qscheme={self.qscheme}, ch_axis={self.ch_axis}, scale={self.scale}, "
                f"zero_point={self.zero_point}")


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """torch's fused observer + fake-quant. Its training-time symmetric scale is
    ``max(-min / -quant_min, max / quant_max)`` (the fused kernel's rule: /128 below zero, /127
    above for qint8), while ``calculate_qparams`` (used by convert) keeps the observer's /127.5
    rule, as in torch."""

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                 **observer_kwargs):
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)

    def forward(self, X):
        if int(self.observer_enabled._data[0]) == 1 and \
                self.qscheme in (per_tensor_symmetric, per_channel_symmetric):
            self.activation_post_process(X.detach())
            app = self.activation_post_process
            mn, mx = app.min_val._data.astype(np.float32), app.max_val._data.astype(np.float32)
            neg = -np.minimum(mn, np.float32(0)) / np.float32(-self.quant_min)
            pos = np.maximum(mx, np.float32(0)) / np.float32(self.quant_max)
            scale = np.maximum(np.maximum(neg, pos), app.eps._data.astype(np.float32)[0])
            self.scale = tensor(np.atleast_1d(scale).astype(np.float32))
            self.zero_point = tensor(np.zeros(np.atleast_1d(scale).shape, np.int32))
            if int(self.fake_quant_enabled._data[0]) != 1:
                return X
            if self.is_per_channel:
                return fake_quantize_per_channel_affine(X, self.scale, self.zero_point, self.ch_axis,
                                                        self.quant_min, self.quant_max)
            return fake_quantize_per_tensor_affine(X, self.scale, self.zero_point, self.quant_min,
                                                   self.quant_max)
        return super().forward(X)


default_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=D.quint8,
    qscheme=per_tensor_affine, reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=D.qint8,
    qscheme=per_tensor_symmetric, reduce_range=False)
default_per_channel_weight_fake_quant = FakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127, dtype=D.qint8,
    qscheme=per_channel_symmetric, reduce_range=False, ch_axis=0)
default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, dtype=D.quint8)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=D.qint8,
    qscheme=per_tensor_symmetric)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127, dtype=D.qint8,
    qscheme=per_channel_symmetric)


def _is_fake_quant(mod) -> bool:
    return isinstance(mod, FakeQuantizeBase) or bool(re.search("FakeQuantize", type(mod).__name__))


def disable_fake_quant(mod):
    """For ``model.apply``: turn fake quantization off in every FakeQuantize."""
    if _is_fake_quant(mod):
        mod.disable_fake_quant()


def enable_fake_quant(mod):
    if _is_fake_quant(mod):
        mod.enable_fake_quant()


def disable_observer(mod):
    """For ``model.apply``: freeze every FakeQuantize's qparams."""
    if _is_fake_quant(mod):
        mod.disable_observer()


def enable_observer(mod):
    if _is_fake_quant(mod):
        mod.enable_observer()
