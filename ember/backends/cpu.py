"""ember.backends.cpu: CPU capability report."""
from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The SIMD level NumPy was built for, in torch's vocabulary ("DEFAULT" when unknown)."""
    return "DEFAULT"
