"""Shape_copy methods (layer L2)."""
from __future__ import annotations

__all__ = ["ShapeCopyMixin", "FUNCTIONS"]


class ShapeCopyMixin:
    __slots__ = ()


FUNCTIONS: dict = {}
