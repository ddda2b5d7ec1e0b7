"""``fake_quantize_per_tensor_affine`` / ``fake_quantize_per_channel_affine``: torch's public functions.

Quantize-then-dequantize in float with a straight-through gradient (the primitives live in
``ember/_primitives/quantized.py``).

Example:
    >>> import ember
    >>> x = ember.tensor([0.26, 9.0], requires_grad=True)
    >>> y = ember.fake_quantize_per_tensor_affine(x, 0.5, 0, 0, 15)
    >>> y.sum().backward(); y.tolist(), x.grad.tolist()
    ([0.5, 7.5], [1.0, 0.0])
"""
from __future__ import annotations

from .._dispatch import dispatch
from .._tensor import Tensor
from .._primitives import quantized as Q
from ..overrides import public

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]


def _number(v, kind):
    return kind(v.item()) if isinstance(v, Tensor) else kind(v)


@public
def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min: int, quant_max: int):
    """Fake-quantize ``input`` (any shape) with one ``scale`` and ``zero_point``; same shape out."""
    return dispatch(Q.fake_quantize_per_tensor, input, scale=_number(scale, float),
                    zero_point=_number(zero_point, int), quant_min=int(quant_min),
                    quant_max=int(quant_max))


@public
def fake_quantize_per_channel_affine(input, scale, zero_point, axis: int, quant_min: int,
                                     quant_max: int):
    """Fake-quantize with per-index qparams along ``axis`` (``scale``/``zero_point``: 1-d tensors)."""
    if scale.ndim != 1 or zero_point.ndim != 1 or scale.shape[0] != input.shape[axis]:
        raise RuntimeError(f"fake_quantize_per_channel_affine: dimensions of scale {tuple(scale.shape)} "
                           f"and zero point {tuple(zero_point.shape)} must match the size "
                           f"{input.shape[axis]} of dim {axis}")
    axis = axis + input.ndim if axis < 0 else axis
    return dispatch(Q.fake_quantize_per_channel, input, scale.detach(), zero_point.detach(), axis=axis,
                    quant_min=int(quant_min), quant_max=int(quant_max))
