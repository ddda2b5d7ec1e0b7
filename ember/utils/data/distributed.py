"""DistributedSampler (layer L5): each replica loads its own slice of the dataset.

Usable without a process group when ``num_replicas`` and ``rank`` are both given.

Example:
    >>> s = DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False)
    >>> list(s)
    [1, 4, 7, 0]
"""
from __future__ import annotations

import math
import sys
from collections.abc import Iterator

from ..._tensor_methods.random import randperm
from ...random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _from_process_group(what: str) -> int:
    # ember.distributed sits above this layer: use it only if the program already imported it
    dist = sys.modules.get("ember.distributed")
    if dist is None or not getattr(dist, "is_available", lambda: False)():
        raise RuntimeError("Requires distributed package to be available")
    return dist.get_world_size() if what == "world_size" else dist.get_rank()


class DistributedSampler(Sampler):
    """Indices for replica ``rank`` of ``num_replicas``: padded (or trimmed) to divide evenly,
    shuffled per epoch from ``seed + epoch`` (call ``set_epoch`` every epoch)."""

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None:
            num_replicas = _from_process_group("world_size")
        if rank is None:
            rank = _from_process_group("rank")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator:
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size "
                                 f"({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not match "
                                 f"num_samples ({self.num_samples})")
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch, which reseeds the shuffle so every epoch has its own order."""
        self.epoch = epoch
