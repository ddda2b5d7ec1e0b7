"""Lazy access to ``scipy.special`` (erf, erfinv, gammaln, digamma...): importing SciPy costs ~0.2 s,
so it is loaded on the first kernel that needs it, never by ``import ember``."""
from __future__ import annotations

import functools


@functools.cache
def special():
    import scipy.special
    return scipy.special
