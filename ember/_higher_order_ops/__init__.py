"""``torch._higher_order_ops``: control flow as functions (``cond``, ``while_loop``), run eagerly.

Example:
    >>> import ember
    >>> ember.cond(ember.tensor(True), lambda x: x + 1, lambda x: x - 1, (ember.ones(1),)).tolist()
    [2.0]
"""
from __future__ import annotations

from .cond import cond
from .while_loop import while_loop

__all__ = ["cond", "while_loop"]
