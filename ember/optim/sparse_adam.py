"""SparseAdam: ember has no sparse tensors, so building one raises a clear error.

Example:
    >>> import ember
    >>> ember.optim.SparseAdam([ember.zeros(2, requires_grad=True)])
    Traceback (most recent call last):
    ...
    NotImplementedError: SparseAdam needs sparse gradients (nn.Embedding(sparse=True)), which ember does not support; use Adam or AdamW, which give the same result on dense gradients
"""
from __future__ import annotations

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam for sparse gradients: not available (ember has no sparse tensors)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        raise NotImplementedError(
            "SparseAdam needs sparse gradients (nn.Embedding(sparse=True)), which ember does not "
            "support; use Adam or AdamW, which give the same result on dense gradients")
