"""DDP communication hooks: ``default_hooks.allreduce_hook``, ``fp16_compress_hook``, ``bf16_compress_hook``.

Register one with ``ddp.register_comm_hook(state, hook)``; ``state`` is the process group (None: the
default group) and ``hook(state, bucket) -> Future`` reduces one ``GradBucket``.
"""
from . import default_hooks

__all__ = ["default_hooks"]
