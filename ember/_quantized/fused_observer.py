"""``torch.fused_moving_avg_obs_fake_quant`` (layer L3): one step of a moving-average min/max
observer followed by fake quantization, the op behind ``FusedMovingAvgObsFakeQuantize``.

When ``observer_on``: the running min/max (per channel along dim 0 when ``per_row_fake_quant``)
become the current min/max on the first step (while they are +-inf) and move by
``averaging_const * (current - running)`` afterwards. When ``fake_quant_on``: ``scale`` and
``zero_point`` are recomputed in place from the running range (widened to include 0; scale =
range / (qmax - qmin), 0.1 for an empty range; zero point rounded half to even from the nearer end,
clamped; ``symmetric_quant`` first makes the range symmetric on the integer grid) and the result is
``input`` fake-quantized with them; otherwise ``input`` itself is returned.

Example:
    >>> import ember
    >>> rmin, rmax = ember.tensor(float('inf')), ember.tensor(float('-inf'))
    >>> s, z = ember.tensor([1.0]), ember.tensor([0], dtype=ember.int32)
    >>> y = ember.fused_moving_avg_obs_fake_quant(ember.tensor([0., 2.55]), ember.tensor([1]),
    ...     ember.tensor([1]), rmin, rmax, s, z, 0.01, 0, 255, -1)
    >>> round(s.item(), 4), z.item()
    (0.01, 0)
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._creation import tensor
from ..autograd.grad_mode import no_grad
from .fake_quantize import fake_quantize_per_channel_affine, fake_quantize_per_tensor_affine

__all__ = ["fused_moving_avg_obs_fake_quant"]

_EPS = float(np.finfo(np.float32).eps)


def _qparams(lo, hi, qmin, qmax, symmetric):
    """(scale, zero_point) arrays for running min/max arrays ``lo``/``hi``."""
    lo = np.minimum(lo, 0.0)
    hi = np.maximum(hi, 0.0)
    if symmetric:
        # a range symmetric about 0 on the integer grid: [-(half + 1), half] steps of one scale
        half = (qmax - qmin) // 2
        both = (lo < 0) & (hi > 0)
        step = np.maximum(np.abs(lo / -(half + 1)), np.abs(hi / half))
        lo = np.where(both, step * -(half + 1), lo)
        hi = np.where(both, step * half, hi)
    with np.errstate(all="ignore"):
        scale = (hi - lo) / (qmax - qmin)
        bad = (scale.astype(np.float32) == 0) | ~np.isfinite(1.0 / scale.astype(np.float32))
        scale = np.where(bad, 0.1, scale)
        scale = np.maximum(scale, _EPS)
        from_min, from_max = qmin - lo / scale, qmax - hi / scale
        err_min = np.abs(qmin) + np.abs(lo / scale)
        err_max = np.abs(qmax) + np.abs(hi / scale)
    zp = np.where(err_min < err_max, from_min, from_max)
    zp = np.clip(np.rint(zp), qmin, qmax).astype(np.int64)
    return scale.astype(np.float32), zp


def fused_moving_avg_obs_fake_quant(input, observer_on, fake_quant_on, running_min, running_max,
                                    scale, zero_point, averaging_const, quant_min, quant_max,
                                    ch_axis, per_row_fake_quant=False, symmetric_quant=False):
    """Observe ``input`` into ``running_min/max`` (updated in place), refresh ``scale`` and
    ``zero_point`` in place, and fake-quantize; see the module docstring."""
    per_channel = bool(per_row_fake_quant)
    if per_channel and ch_axis != 0:
        raise RuntimeError("Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is only "
                           "supported on axis == 0")
    with no_grad():
        if bool(observer_on.reshape(-1)[0].item()):
            x = input.detach()
            if per_channel:
                flat = x.reshape(x.shape[0], -1)
                cur_lo, cur_hi = flat.amin(1), flat.amax(1)
            else:
                cur_lo, cur_hi = x.amin(), x.amax()
            rl, rh = running_min.numpy().astype(np.float64), running_max.numpy().astype(np.float64)
            cl, ch = cur_lo.numpy().astype(np.float64), cur_hi.numpy().astype(np.float64)
            if rl.shape != cl.shape:  # an empty or differently sized buffer starts over
                rl, rh = np.full(cl.shape, np.inf), np.full(ch.shape, -np.inf)
            c = float(averaging_const)
            with np.errstate(invalid="ignore"):
                new_lo = np.where(np.isinf(rl), cl, rl + c * (cl - rl))
                new_hi = np.where(np.isinf(rh), ch, rh + c * (ch - rh))
            _assign(running_min, new_lo)
            _assign(running_max, new_hi)
        if not bool(fake_quant_on.reshape(-1)[0].item()):
            return input
        s, z = _qparams(np.atleast_1d(running_min.numpy().astype(np.float64)),
                        np.atleast_1d(running_max.numpy().astype(np.float64)),
                        int(quant_min), int(quant_max), bool(symmetric_quant))
        _assign(scale, s)
        _assign(zero_point, z)
    if per_channel:
        return fake_quantize_per_channel_affine(input, scale, zero_point, ch_axis, quant_min,
                                                quant_max)
    return fake_quantize_per_tensor_affine(input, scale.reshape(-1)[0], zero_point.reshape(-1)[0],
                                           quant_min, quant_max)


def _assign(buf, values):
    v = tensor(np.asarray(values), dtype=buf.dtype)
    if tuple(buf.shape) != tuple(v.shape):
        if buf.numel() == v.numel():
            v = v.reshape(tuple(buf.shape))
        else:
            buf.resize_(tuple(v.shape))
    buf.copy_(v)
