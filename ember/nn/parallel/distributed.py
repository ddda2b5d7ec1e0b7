"""DistributedDataParallel: not built yet (process groups exist: ``ember.distributed``; DDP is next)."""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Construction raises NotImplementedError until ember's DDP lands (bucketed all-reduce on MPI)."""

    def __init__(self, module, *args, **kwargs):
        raise NotImplementedError("ember.nn.parallel.DistributedDataParallel is not implemented yet: "
                                  "ember.distributed's process groups and collectives are available, DDP "
                                  "(gradient buckets on them) comes next")
