"""Random methods (layer L2)."""
from __future__ import annotations

__all__ = ["RandomMixin", "FUNCTIONS"]


class RandomMixin:
    __slots__ = ()


FUNCTIONS: dict = {}
