"""``torch.cond`` (layer L3), eager: the branch chosen by ``pred`` runs on ``operands``.

Example:
    >>> import ember
    >>> ember.cond(False, lambda x: x * 2, lambda x: x * 3, [ember.ones(2)]).tolist()
    [3.0, 3.0]
"""
from __future__ import annotations

from .._tensor_base import TensorBase

__all__ = ["cond", "check_operands"]


def _leaves_are_tensors(x) -> bool:
    if isinstance(x, TensorBase):
        return True
    if isinstance(x, (list, tuple)):
        return all(_leaves_are_tensors(v) for v in x)
    if isinstance(x, dict):
        return all(_leaves_are_tensors(v) for v in x.values())
    return False


def check_operands(operands, what="operands"):
    if not isinstance(operands, (tuple, list)) or not _leaves_are_tensors(operands):
        raise RuntimeError(f"Expect {what} to be a tuple of possibly nested dict/list/tuple that only "
                           f"consists of tensor leaves, but got {operands}.")


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` (a bool or a one-element tensor) else ``false_fn(*operands)``.

    Args:
        pred: bool, int, float or a single-element Tensor; true_fn, false_fn: callables taking the
            operands and returning tensors of the same structure; operands: tuple/list of tensors.
    """
    if isinstance(pred, TensorBase):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        pred = bool(pred.item())
    elif not isinstance(pred, (bool, int, float)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    check_operands(operands)
    return true_fn(*operands) if pred else false_fn(*operands)
