"""ember.backends.openmp: whether OpenMP drives intra-op threads (NumPy's BLAS does in ember)."""
from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    return False
