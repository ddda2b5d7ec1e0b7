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
from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_am.autocast):
    """``ember.cpu.amp.autocast(args...)`` is ``ember.amp.autocast('cpu', args...)`` (deprecated)."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=D_BF16 if dtype is None else dtype,
                         cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)

