"""Indexing methods (layer L2)."""
from __future__ import annotations

__all__ = ["IndexingMixin", "FUNCTIONS"]


class IndexingMixin:
    __slots__ = ()


FUNCTIONS: dict = {}
