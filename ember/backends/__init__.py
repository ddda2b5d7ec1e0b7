"""ember.backends: torch's backend switches as plain settable attributes (CPU build: no cuDNN/MPS).

Example:
    >>> import ember
    >>> ember.backends.cudnn.benchmark = True
    >>> ember.backends.cudnn.benchmark, ember.backends.mps.is_available()
    (True, False)
    >>> ember.backends.cudnn.benchmark = False
"""
from __future__ import annotations

from . import cpu, cuda, cudnn, mkldnn, mps, openmp, quantized  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp", "quantized"]
