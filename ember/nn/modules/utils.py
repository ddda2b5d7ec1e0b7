"""``torch.nn.modules.utils``: the helpers that turn ``3`` into ``(3, 3)`` for 2-d layers, which
libraries (torchvision.ops...) import from here.

Example:
    >>> _pair(3), _pair((1, 2)), _triple(0), _reverse_repeat_tuple((1, 2), 2)
    ((3, 3), (1, 2), (0, 0, 0), (2, 2, 1, 1))
"""
from __future__ import annotations

import collections.abc
from itertools import repeat

__all__ = ["_ntuple", "_single", "_pair", "_triple", "_quadruple", "_reverse_repeat_tuple"]


def _ntuple(n: int, name: str = "parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """Reverse ``t`` and repeat each element ``n`` times (conv padding to F.pad's order)."""
    return tuple(x for x in reversed(t) for _ in range(n))
