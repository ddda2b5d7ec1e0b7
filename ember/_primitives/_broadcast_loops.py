"""Numba loops for a binary ufunc whose operands broadcast in a simple way (layer L1).

NumPy pays ~0.8 us to set up its iterator whenever operands differ in shape (a (3, 32, 32) image
minus a (3, 1, 1) mean costs twice the same-shape subtraction); these loops skip it for the pattern
image and batch code is made of. With ``big`` the operand of the result's shape and ``small`` the
other (its shape padded with leading 1s), both C-contiguous: ``small``'s shape is 1s, then some of
the result's dims, then 1s (a per-channel mean (C, 1, 1) or (1, C, 1, 1), a bias (F,)). ``big`` is
seen as ``(outer, mid, inner)`` and element ``(o, m, i)`` meets ``small[m]``.

Imported lazily by dispatch's fast path (Numba is a runtime dependency, but ``import ember`` must not
pay for it) for the ufuncs in ``EXACT``: IEEE add, subtract, multiply and (true) divide, whose single
rounding Numba's scalar code reproduces bit for bit (no fast-math). Each loop is generated from the
ufunc's name (``np.<name>(x, y)`` per element) and cached on disk by Numba (``cache=True``).

Example:
    >>> import numpy as np
    >>> a, b = np.ones((2, 300), np.float32), np.array([[1.0], [2.0]], np.float32)
    >>> out = np.empty_like(a)
    >>> loop_for("subtract")(a, b, out)
    True
    >>> bool((out == a - b).all())
    True
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["EXACT", "loop_for"]

EXACT = tuple(u.__name__ for u in (np.add, np.subtract, np.multiply, np.divide))



@njit(cache=True, nogil=True)
def _blocks(big, small):  # pragma: no cover - compiled
    """(outer, mid, inner) seeing ``big`` (a shape) as blocks that meet one element of ``small`` (a
    shape of as many or fewer dims): small is 1s, big's dims lo..hi-1, then 1s; outer = 0: no match."""
    n, pad = len(big), len(big) - len(small)
    if pad < 0:
        return 0, 0, 0
    lo = 0
    while lo < n and (lo < pad or small[lo - pad] == 1):
        lo += 1
    if lo == n:  # one value for everything: a single block
        lo = 0
    hi = n
    while hi > lo and (hi - 1 < pad or small[hi - 1 - pad] == 1):
        hi -= 1
    outer = mid = inner = 1
    for i in range(n):
        s = small[i - pad] if i >= pad else 1
        if lo <= i < hi:
            if s != big[i]:
                return 0, 0, 0
            mid *= big[i]
        elif i < lo:
            outer *= big[i]
        else:
            inner *= big[i]
    return outer, mid, inner


# per (outer, mid) block of inner elements one value of the small operand (a channel's mean), or when
# inner == 1 a row of it that repeats (a bias); x/y are a/b flat
_SOURCE = '''
def loop_{name}(a, b, out):
    """out = np.{name}(a, b) where ``out`` has the shape of the bigger operand and the other one
    broadcasts as the module doc says; False (nothing written) otherwise or if an input is not
    C-contiguous."""
    if not (a.flags.c_contiguous and b.flags.c_contiguous):
        return False
    first = a.size < b.size  # the small operand is the first one
    if first:
        outer, mid, inner = _blocks(b.shape, a.shape)
    else:
        outer, mid, inner = _blocks(a.shape, b.shape)
    if outer == 0:
        return False
    x = a.ravel()
    y = b.ravel()
    o = out.ravel()
    m = np.uint64(mid)
    k = np.uint64(inner)
    for p in range(np.uint64(outer)):  # unsigned indices: no wraparound checks, so loops vectorise
        if inner == 1:
            base = p * m
            if first:
                for j in range(m):
                    o[base + j] = np.{name}(x[j], y[base + j])
            else:
                for j in range(m):
                    o[base + j] = np.{name}(x[base + j], y[j])
        else:
            for q in range(m):
                base = (p * m + q) * k
                if first:
                    v = x[q]
                    for j in range(k):
                        o[base + j] = np.{name}(v, y[base + j])
                else:
                    v = y[q]
                    for j in range(k):
                        o[base + j] = np.{name}(x[base + j], v)
    return True
'''
_LOOPS: dict = {}


def loop_for(name: str):
    """The compiled loop of ufunc ``np.<name>`` (one of ``EXACT``)."""
    loop = _LOOPS.get(name)
    if loop is None:
        assert name in EXACT, name
        # compiled under this file's name and module, so Numba's disk cache finds it again
        ns = {"np": np, "_blocks": _blocks, "__name__": __name__}
        exec(compile(_SOURCE.format(name=name), __file__, "exec"), ns)  # noqa: S102 (our own template)
        loop = _LOOPS[name] = njit(cache=True, nogil=True, error_model="numpy")(ns[f"loop_{name}"])
    return loop
