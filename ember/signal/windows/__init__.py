"""``torch.signal.windows``: window functions (symmetric by default, ``sym=False`` for periodic).

Example:
    >>> import ember
    >>> ember.signal.windows.bartlett(5).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
"""
from __future__ import annotations

from .windows import (bartlett, blackman, cosine, exponential, gaussian, general_cosine,
                      general_hamming, hamming, hann, kaiser, nuttall)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
