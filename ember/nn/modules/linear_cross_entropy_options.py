"""``torch.nn.LinearCrossEntropyOptions``: chunking options of ``linear_cross_entropy``.

ember accepts and validates them; its ``linear_cross_entropy`` always computes the reference
path (the full logits), whose values and gradients the chunked path equals by definition.

Example:
    >>> import ember
    >>> ember.nn.LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
    64
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LinearCrossEntropyOptions"]

_ACC_POLICIES = ("accurate", "balanced", "compact", "auto")


@dataclass
class LinearCrossEntropyOptions:
    """Configuration of the chunked ``linear_cross_entropy`` (batch chunk size, chunking method,
    accumulation policy and dtype)."""
    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.batch_chunk_size is not None and self.batch_chunk_size <= 0:
            raise ValueError(f"batch_chunk_size must be positive, got {self.batch_chunk_size}")
