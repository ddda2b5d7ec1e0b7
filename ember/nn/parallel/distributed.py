"""DistributedDataParallel: raises ``ember.distributed``'s error until a backend exists."""
from __future__ import annotations

from ...distributed import MESSAGE, DistributedNotAvailableError
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Construction raises: ember has no process groups yet (see ``ember.distributed``)."""

    def __init__(self, module, *args, **kwargs):
        raise DistributedNotAvailableError(MESSAGE)
