"""``torch.signal``: signal-processing helpers; ``windows`` holds the window functions.

Example:
    >>> import ember
    >>> ember.signal.windows.hann(3).tolist()
    [0.0, 1.0, 0.0]
"""
from __future__ import annotations

from . import windows

__all__ = ["windows"]
