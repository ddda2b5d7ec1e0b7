"""Tensor ops the optimizers share: ``lerp_``, ``addcmul_``, ``addcdiv_`` and the ``_foreach_*`` table.

Each calls the Tensor method of the same name when the pointwise family provides it, otherwise the
same formula torch's CPU kernel evaluates, written with ``add_``/``mul``/``div`` (so results agree
with torch to rounding either way).
"""
from __future__ import annotations

from .._tensor import Tensor
from .._tensor_methods.foreach import FUNCTIONS as _FOREACH

__all__ = ["lerp_", "addcmul_", "addcdiv_", "F"]


class _Foreach:
    """``F._foreach_add_(...)`` is ``ember._foreach_add_`` (looked up at call time)."""

    def __getattr__(self, name: str):
        if not name.startswith("_foreach_"):
            raise AttributeError(name)
        try:
            return _FOREACH[name]
        except KeyError:
            raise NotImplementedError(f"ember.{name} is not implemented") from None


F = _Foreach()

_HAS_LERP = hasattr(Tensor, "lerp_")
_HAS_ADDCMUL = hasattr(Tensor, "addcmul_")
_HAS_ADDCDIV = hasattr(Tensor, "addcdiv_")


def lerp_(x: Tensor, end: Tensor, weight: float) -> Tensor:
    """``x += weight * (end - x)`` in place."""
    if _HAS_LERP:
        return x.lerp_(end, weight)
    # torch's kernel: x + w * (end - x) for w < 0.5, end - (end - x) * (1 - w) otherwise
    if weight < 0.5:
        return x.add_(end - x, alpha=weight)
    return x.copy_(end - (end - x) * (1 - weight))


def addcmul_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1) -> Tensor:
    """``x += value * t1 * t2`` in place."""
    if _HAS_ADDCMUL:
        return x.addcmul_(t1, t2, value=value)
    return x.add_(t1 * t2, alpha=value)


def addcdiv_(x: Tensor, t1: Tensor, t2: Tensor, value: float = 1) -> Tensor:
    """``x += value * t1 / t2`` in place."""
    if _HAS_ADDCDIV:
        return x.addcdiv_(t1, t2, value=value)
    return x.add_(t1 / t2, alpha=value)
