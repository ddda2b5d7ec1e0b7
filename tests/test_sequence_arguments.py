"""Any sequence, not only lists and tuples, as tensor data and as an index (issue 17): torch accepts
``range``, ``collections.deque`` and other ``collections.abc.Sequence`` objects."""
import collections

import numpy as np
import pytest
import torch

import ember

deque = collections.deque

DATA = {
    "deque": lambda: deque([1, 2, 3]),
    "deque of floats": lambda: deque([1.5, 2]),
    "range": lambda: range(4),
    "nested deques": lambda: deque([deque([1, 2]), [3, 4]]),
    "list of ranges": lambda: [range(2), range(1, 3)],
    "tuple of deques": lambda: (deque([True]), deque([False])),
}


@pytest.mark.parametrize("name", list(DATA))
def test_tensor_from_sequence(name):
    t, e = torch.tensor(DATA[name]()), ember.tensor(DATA[name]())
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(e.numpy(), t.numpy())


INDICES = {
    "range rows, tensor cols": lambda L: (range(3), L.tensor([0, 1, 2])),
    "range": lambda L: range(1, 3),
    "deque": lambda L: deque([0, 2]),
    "slice, range": lambda L: (slice(None), range(2)),
}


@pytest.mark.parametrize("name", list(INDICES))
def test_index_with_sequence(name):
    t, e = torch.arange(12.0).reshape(3, 4), ember.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(e[INDICES[name](ember)].numpy(), t[INDICES[name](torch)].numpy())
    t[INDICES[name](torch)] = -1.0
    e[INDICES[name](ember)] = -1.0
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_reported_case():
    """``x[range(n), y] = v`` (a one-hot fill) from a real program."""
    y = [2, 0, 1]
    t, e = torch.zeros(3, 4), ember.zeros(3, 4)
    t[range(3), torch.tensor(y)] = 1
    e[range(3), ember.tensor(y)] = 1
    np.testing.assert_array_equal(e.numpy(), t.numpy())
