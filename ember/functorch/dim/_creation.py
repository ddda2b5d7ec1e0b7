"""``dims()`` and ``dimlists()``: new first-class dimensions named after the variables they are
assigned to (read from the caller's bytecode: an ``UNPACK_SEQUENCE n`` or a single store after
the call).

Example:
    >>> from ember.functorch.dim import dims
    >>> batch, channel = dims(sizes=[None, 3])
    >>> batch, channel.size, batch.is_bound
    (batch, 3, False)
"""
from __future__ import annotations

import dis
import functools
import sys

from ._first_class import Dim, DimList

__all__ = ["dims", "dimlists"]

_STORES = {"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"}


@functools.lru_cache(maxsize=256)
def _instructions(code) -> tuple:
    return tuple(dis.get_instructions(code))


def _assigned_names(frame) -> list | None:
    """The variable names the result of the call at ``frame.f_lasti`` is stored to, or None."""
    code, lasti = frame.f_code, frame.f_lasti
    insts = _instructions(code)
    for k, inst in enumerate(insts):
        if inst.offset > lasti:
            break
    else:
        return None
    if inst.opname in _STORES:
        return [inst.argval]
    if inst.opname == "UNPACK_SEQUENCE":
        names = []
        for nxt in insts[k + 1:k + 1 + inst.argval]:
            names.append(nxt.argval if nxt.opname in _STORES else None)
        return names
    return None


def _make(cls, n, sizes, frame, what):
    if sizes is not None:
        sizes = list(sizes)
        if n is None:
            n = len(sizes)
        elif n != len(sizes):
            raise ValueError(f"expected {n} sizes but found {len(sizes)}")
    names = _assigned_names(frame)
    if n is None:
        if names is None:
            raise SyntaxError(f"{what}() must be assigned to a sequence of variable names or have "
                              f"argument n specified")
        n = len(names)
    if n < 0:
        raise ValueError(f"{what}(): n must be >= 0, got {n}")
    if names is None or len(names) != n:
        names = [None] * n
    out = []
    for k in range(n):
        name = names[k] or f"d{k}"
        size = sizes[k] if sizes is not None else None
        if cls is Dim:
            out.append(Dim(name, size))
        else:
            dl = DimList(name=name)
            if size is not None:
                dl.bind_len(size)
            out.append(dl)
    return out[0] if n == 1 else tuple(out)


def dims(n: int | None = None, sizes: list | None = None):
    """``n`` new first-class dimensions (a single ``Dim`` when n is 1).

    Args:
        n: how many; may be left out when the call is unpacked into names (``i, j = dims()``).
        sizes: a size (or None: bound on first use) per dim.

    Example:
        >>> from ember.functorch.dim import dims
        >>> i, j = dims()
        >>> i, j.is_bound
        (i, False)
    """
    return _make(Dim, n, sizes, sys._getframe(1), "dims")


def dimlists(n: int | None = None, sizes: list | None = None):
    """``n`` new dimension lists (their lengths bound on first use, or given by ``sizes``).

    Example:
        >>> from ember.functorch.dim import dimlists
        >>> batch = dimlists(1)
        >>> batch.is_bound
        False
    """
    return _make(DimList, n, sizes, sys._getframe(1), "dimlists")
