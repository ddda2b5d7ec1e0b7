"""Foreach methods (layer L2)."""
from __future__ import annotations

__all__ = ["ForeachMixin", "FUNCTIONS"]


class ForeachMixin:
    __slots__ = ()


FUNCTIONS: dict = {}
