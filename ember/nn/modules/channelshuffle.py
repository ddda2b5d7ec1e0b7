"""``ChannelShuffle`` (layer L4).

Example:
    >>> import ember
    >>> ChannelShuffle(2)(ember.arange(4.).view(1, 4, 1, 1)).flatten()
    tensor([0., 2., 1., 3.])
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Split the C channels of ``(N, C, *)`` into ``groups`` and interleave them. Shape: as input."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
