"""Samplers (layer L5): the index streams a DataLoader draws from.

Example:
    >>> from ember.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False))
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence, Sized
from itertools import islice
from typing import Generic, TypeVar

from ... import _dtype as D
from ..._creation import as_tensor, empty
from ..._tensor_methods.random import multinomial, randint, randperm
from ...random import Generator

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]

T = TypeVar("T", covariant=True)

# draws with replacement are made in blocks of this many indices (torch does the same, so
# a seeded generator yields the same stream)
_BLOCK = 32


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _blocks(total: int, block: int):
    """Block sizes covering ``total``: full blocks, then the (possibly empty) remainder."""
    return [block] * (total // block) + [total % block]


class Sampler(Generic[T]):
    """Base class: subclasses define ``__iter__`` over indices (or batches of them), maybe ``__len__``."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Indices ``0 .. len(data_source) - 1`` in order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __len__(self) -> int:
        return len(self.data_source)

    def __iter__(self):
        yield from range(len(self))


def _generator_or_fresh(generator):
    if generator is not None:
        return generator
    # seed a private generator from the global one, so ember.manual_seed fixes the order
    seed = empty((), dtype=D.int64).random_().item()
    return Generator().manual_seed(int(seed))


class RandomSampler(Sampler[int]):
    """A random permutation, or ``num_samples`` draws with replacement."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if type(replacement) is not bool:
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        count = self.num_samples
        if not isinstance(count, int) or count <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={count}")

    @property
    def num_samples(self) -> int:
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __len__(self) -> int:
        return self.num_samples

    def __iter__(self):
        size = len(self.data_source)
        gen = _generator_or_fresh(self.generator)
        if self.replacement:
            for k in _blocks(self.num_samples, _BLOCK):
                yield from randint(high=size, size=(k,), dtype=D.int64, generator=gen).tolist()
            return
        # whole permutations first, then a truncated one for the leftover count
        for k in _blocks(self.num_samples, size):
            yield from randperm(size, generator=gen).tolist()[:k]


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order, without replacement."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices, self.generator = indices, generator

    def __len__(self) -> int:
        return len(self.indices)

    def __iter__(self):
        order = randperm(len(self.indices), generator=self.generator).tolist()
        return (self.indices[k] for k in order)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``.

    Example:
        >>> s = WeightedRandomSampler([0.0, 1.0, 0.0], 4, replacement=True)
        >>> list(s)
        [1, 1, 1, 1]
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator=None) -> None:
        if not _is_count(num_samples):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if type(replacement) is not bool:
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        probs = as_tensor(weights, dtype=D.float64)
        if probs.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(probs.shape)}")
        self.weights, self.num_samples = probs, num_samples
        self.replacement, self.generator = replacement, generator

    def __len__(self) -> int:
        return self.num_samples

    def __iter__(self):
        picks = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        return iter(picks.tolist())


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of ``batch_size``."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not _is_count(batch_size):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if type(drop_last) is not bool:
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __len__(self) -> int:
        whole, extra = divmod(len(self.sampler), self.batch_size)
        return whole if self.drop_last or not extra else whole + 1

    def __iter__(self):
        source = iter(self.sampler)
        while True:
            chunk = list(islice(source, self.batch_size))
            if not chunk or (self.drop_last and len(chunk) < self.batch_size):
                return
            yield chunk
