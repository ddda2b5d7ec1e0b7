"""ember.backends.mkldnn: oneDNN switches (settable; ember computes with NumPy)."""
from __future__ import annotations

__all__ = ["is_available", "enabled", "deterministic"]

enabled = True
deterministic = False


def is_available() -> bool:
    return False
