"""``torch.while_loop`` (layer L3), eager: ``body_fn`` runs while ``cond_fn`` holds.

Example:
    >>> import ember
    >>> i, x = ember.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (ember.tensor(0), ember.ones(1)))
    >>> (i.item(), x.tolist())
    (3, [8.0])
"""
from __future__ import annotations

from .._tensor_base import TensorBase
from .cond import check_operands

__all__ = ["while_loop"]


def while_loop(cond_fn, body_fn, carried_inputs):
    """Repeat ``carried_inputs = body_fn(*carried_inputs)`` while ``cond_fn(*carried_inputs)``
    (a bool or a one-element bool tensor) is true; returns the final carried values as a tuple."""
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    check_operands(carried_inputs, "carried_inputs")
    carried = tuple(carried_inputs)
    while True:
        c = cond_fn(*carried)
        if isinstance(c, TensorBase):
            if c.numel() != 1 or c.dtype.is_floating_point:
                raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but "
                                   f"got {c}")
            c = bool(c.item())
        if not c:
            return carried
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)
