"""Fake quantization primitives (layer L1): quantize then dequantize in float, straight-through grads.

``fake_quantize(x) = (clamp(round(x * (1 / scale)) + zero_point, qmin, qmax) - zero_point) * scale``,
rounding half to even and computing in float32 as torch does; the gradient passes where the rounded
value lands inside ``[qmin, qmax]`` and is zero where it was clamped.

Example:
    >>> import numpy as np
    >>> fake_quantize_per_tensor.kernel(np.float32([0.26, 9.0]), scale=0.5, zero_point=0,
    ...                                  quant_min=0, quant_max=15).tolist()
    [0.5, 7.5]
"""
from __future__ import annotations

import numpy as np

from ._registry import TensorMeta, primitive

__all__ = ["fake_quantize_per_tensor", "fake_quantize_per_tensor_mask", "fake_quantize_per_channel",
           "fake_quantize_per_channel_mask"]


def _compute_dtype(a):
    return a.dtype if a.dtype == np.float64 else np.dtype(np.float32)


def _rounded(a, scale, zero_point):
    """``round(a * (1/scale)) + zero_point`` in a's float dtype (scale/zero_point broadcastable)."""
    dt = _compute_dtype(a)
    inv = (np.float32(1) / np.asarray(scale, np.float32)).astype(dt)  # the float32 inverse, as torch
    return np.rint(a.astype(dt, copy=False) * inv) + np.asarray(zero_point).astype(dt)


def _fake(a, scale, zero_point, quant_min, quant_max):
    q = np.clip(_rounded(a, scale, zero_point), quant_min, quant_max)
    # the result is formed in float32 (also for float64 inputs, as torch's kernel does)
    out = (q - np.asarray(zero_point)).astype(np.float32) * np.asarray(scale, np.float32)
    return out.astype(a.dtype, copy=False)


def _in_range(a, scale, zero_point, quant_min, quant_max):
    r = _rounded(a, scale, zero_point)
    return (r >= quant_min) & (r <= quant_max)


def _channel_shape(a, axis):
    shape = [1] * a.ndim
    shape[axis] = a.shape[axis]
    return shape


def _same(a, *rest, **params):
    return TensorMeta(a.shape, a.dtype)


def _mask_meta(a, *rest, **params):
    from .._dtype import bool as bool_
    return TensorMeta(a.shape, bool_)


# ------------------------------------------------------------------------------ per tensor
@primitive("fake_quantize_per_tensor_affine", kind="other")
def fake_quantize_per_tensor(a, *, scale, zero_point, quant_min, quant_max):
    return _fake(a, scale, zero_point, quant_min, quant_max)


@primitive("_fake_quantize_per_tensor_mask", kind="other")
def fake_quantize_per_tensor_mask(a, *, scale, zero_point, quant_min, quant_max):
    return _in_range(a, scale, zero_point, quant_min, quant_max)


fake_quantize_per_tensor.meta(_same)
fake_quantize_per_tensor_mask.meta(_mask_meta)


@fake_quantize_per_tensor.derivative
def _(grad, a, *, scale, zero_point, quant_min, quant_max):
    mask = a._op(fake_quantize_per_tensor_mask, scale=scale, zero_point=zero_point,
                 quant_min=quant_min, quant_max=quant_max)
    return (grad * mask,)


# ------------------------------------------------------------------------------ per channel
@primitive("fake_quantize_per_channel_affine", kind="other")
def fake_quantize_per_channel(a, scale, zero_point, *, axis, quant_min, quant_max):
    shape = _channel_shape(a, axis)
    return _fake(a, scale.reshape(shape), zero_point.reshape(shape), quant_min, quant_max)


@primitive("_fake_quantize_per_channel_mask", kind="other")
def fake_quantize_per_channel_mask(a, scale, zero_point, *, axis, quant_min, quant_max):
    shape = _channel_shape(a, axis)
    return _in_range(a, scale.reshape(shape), zero_point.reshape(shape), quant_min, quant_max)


fake_quantize_per_channel.meta(_same)
fake_quantize_per_channel_mask.meta(_mask_meta)


@fake_quantize_per_channel.derivative
def _(grad, a, scale, zero_point, *, axis, quant_min, quant_max):
    mask = a._op(fake_quantize_per_channel_mask, scale, zero_point, axis=axis, quant_min=quant_min,
                 quant_max=quant_max)
    return grad * mask, None, None
