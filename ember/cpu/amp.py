"""``ember.cpu.amp``: torch's deprecated CPU aliases of ``ember.amp``.

Example:
    >>> import ember, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with ember.cpu.amp.autocast():
    ...         ember.mm(ember.ones(1, 1), ember.ones(1, 1)).dtype
    torch.bfloat16
"""
from __future__ import annotations

import warnings

from .._dtype import bfloat16 as D_BF16
from ..amp import autocast_mode as _am
from ..amp.grad_scaler import _DeprecatedDeviceGradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_am.autocast):
    """``ember.cpu.amp.autocast(args...)`` is ``ember.amp.autocast('cpu', args...)`` (deprecated)."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=D_BF16 if dtype is None else dtype,
                         cache_enabled=cache_enabled)


class GradScaler(_DeprecatedDeviceGradScaler):
    """``ember.amp.GradScaler('cpu', ...)`` under torch's deprecated name (warns)."""

    _device = "cpu"

