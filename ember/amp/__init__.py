"""``ember.amp``: automatic mixed precision (autocast regions and the gradient scaler).

Example:
    >>> import ember
    >>> with ember.amp.autocast("cpu"):
    ...     ember.mm(ember.ones(2, 2), ember.ones(2, 2)).dtype
    torch.bfloat16
"""
from .autocast_mode import (autocast, custom_bwd, custom_fwd, is_autocast_available)
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "GradScaler"]
