"""``torch.jit.annotations``: ``BroadcastingList1/2/3``, annotations for "an int or a list of N ints"
(TorchScript broadcasts a scalar to the list). Only TorchScript reads them: subscripted in eager
Python they give None, as in torch.

Example:
    >>> BroadcastingList2[int] is None
    True
"""
from __future__ import annotations

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3"]


class _BroadcastingList:
    def __init__(self, n: int):
        self.n = n

    def __getitem__(self, item):
        return None

    def __repr__(self) -> str:
        return f"BroadcastingList{self.n}"


BroadcastingList1, BroadcastingList2, BroadcastingList3 = (_BroadcastingList(n) for n in (1, 2, 3))
