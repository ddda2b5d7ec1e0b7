"""``PackedSequence`` and ``invert_permutation`` (layer L4), apart from ``nn.utils.rnn`` so the recurrent
layers can use them without importing the ``nn.utils`` package (whose parametrizations import
``nn.modules``). Public at ``ember.nn.utils.rnn``, which is also their ``__module__``.

Example:
    >>> import ember
    >>> invert_permutation(ember.tensor([2, 0, 1]))
    tensor([1, 2, 0])
"""
from __future__ import annotations

from collections import namedtuple

__all__ = ["PackedSequence", "invert_permutation"]

_PackedSequenceBase = namedtuple("PackedSequence",
                                 ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``; build it with the pack functions."""

    __module__ = "ember.nn.utils.rnn"  # its public path (pickles name it)

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence "
                                 "should never be created manually. They should be instantiated by "
                                 "functions like pack_sequence and pack_padded_sequences in "
                                 "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn."
                                 "utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        # the (data, batch_sizes) tuple form
        data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _map_data(self, fn):
        return type(self)(fn(self.data), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self._map_data(lambda d: d.cpu(*args, **kwargs))

    def double(self):
        return self._map_data(lambda d: d.double())

    def float(self):
        return self._map_data(lambda d: d.float())

    def half(self):
        return self._map_data(lambda d: d.half())

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation):
    """The inverse of an index permutation (None stays None)."""
    if permutation is None:
        return None
    return permutation.argsort()


invert_permutation.__module__ = "ember.nn.utils.rnn"
