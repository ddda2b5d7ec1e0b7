"""``torch._custom_ops``: torch's older custom-op module; libraries still call its ``get_ctx`` and
``impl_abstract`` from fake rules. Both are ``ember.library``'s.

Example:
    >>> get_ctx() is not None
    True
"""
from __future__ import annotations

from .library import get_ctx, impl_abstract

__all__ = ["get_ctx", "impl_abstract"]
