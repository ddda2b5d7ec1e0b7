"""``ember.cuda.amp``: torch's CUDA aliases as its CPU-only build has them: they warn and disable.

Example:
    >>> import ember, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.cuda.amp.GradScaler().is_enabled()
    False
"""
from __future__ import annotations

import warnings

from ..amp import autocast_mode as _am
from ..amp.autocast_mode import custom_bwd as _custom_bwd, custom_fwd as _custom_fwd
from ..amp.grad_scaler import _DeprecatedDeviceGradScaler

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_am.autocast):
    """``ember.amp.autocast('cuda', ...)``: warns that CUDA is unavailable and does nothing."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_DeprecatedDeviceGradScaler):
    """``ember.amp.GradScaler('cuda', ...)``: warns that CUDA is unavailable and passes through."""

    _device = "cuda"


def custom_fwd(fwd=None, *, cast_inputs=None):
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    return _custom_bwd(bwd, device_type="cuda")
