"""Helpers shared by quantized modules: weight quantization from an observer, qparams from observers."""
from __future__ import annotations

import warnings

import numpy as np

from ..... import _dtype as D
from ....._creation import tensor
from ....._quantized.tensor import quantize_per_channel, quantize_per_tensor

__all__ = ["quantize_weight", "activation_qparams", "quiet_quantize_per_tensor", "save_output_qparams"]

_CHANNEL = ("per_channel_affine", "per_channel_symmetric", "per_channel_affine_float_qparams")


def _quiet(fn, *args):
    with warnings.catch_warnings():  # torch warns on user calls only, not on its own conversions
        warnings.simplefilter("ignore")
        return fn(*args)


def quiet_quantize_per_tensor(x, scale, zero_point, dtype):
    return _quiet(quantize_per_tensor, x, scale, zero_point, dtype)


def quantize_weight(weight, observer):
    """Quantize a float ``weight`` with the qparams its (already run) ``observer`` computed."""
    scale, zp = observer.calculate_qparams()  # a FakeQuantize asks its observer, as torch does
    dtype = observer.dtype if observer.dtype in (D.qint8, D.quint8, D.qint32) else D.qint8
    if observer.qscheme.name == "per_channel_affine_float_qparams":
        return _quiet(quantize_per_channel, weight.detach().float(), scale.float(), zp.float(),
                      observer.ch_axis, dtype)
    if observer.qscheme.name in _CHANNEL:
        return _quiet(quantize_per_channel, weight.detach().float(), scale.double(), zp.long(),
                      observer.ch_axis, dtype)
    return quiet_quantize_per_tensor(weight.detach().float(), float(scale._data.reshape(-1)[0]),
                                     int(zp._data.reshape(-1)[0]), dtype)


def activation_qparams(observer) -> tuple:
    """(scale float, zero_point int) of an activation observer (or FakeQuantize)."""
    scale, zp = observer.calculate_qparams()
    return float(np.asarray(scale._data).reshape(-1)[0]), int(np.asarray(zp._data).reshape(-1)[0])


def save_output_qparams(module, destination: dict, prefix: str) -> None:
    """Add the module's output ``scale``/``zero_point`` to a state dict, as 0-d tensors (torch's)."""
    destination[prefix + "scale"] = tensor(float(module.scale))
    destination[prefix + "zero_point"] = tensor(int(module.zero_point))
