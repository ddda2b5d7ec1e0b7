"""Out-of-range embedding indices raise torch's exception and message (issue 17): no NumPy message,
and -1 no longer wraps around to the last row."""
import pytest
import torch

import ember

EMB = [[[7]], [[-1]], [[1, 7], [0, 0]], [5]]
BAG = [([7, 1], [0]), ([1, -1], [0]), ([[1, 7]], None), ([0, 1, 5, 2], [0, 2])]


def _raises(fn_t, fn_e):
    with pytest.raises(Exception) as t:
        fn_t()
    with pytest.raises(t.type) as e:
        fn_e()
    assert str(e.value) == str(t.value)


@pytest.mark.parametrize("idx", EMB, ids=str)
def test_embedding_out_of_range(idx):
    w = [[float(i)] * 3 for i in range(5)]
    _raises(lambda: torch.nn.functional.embedding(torch.tensor(idx), torch.tensor(w)),
            lambda: ember.nn.functional.embedding(ember.tensor(idx), ember.tensor(w)))
    _raises(lambda: torch.nn.Embedding(5, 3)(torch.tensor(idx)), lambda: ember.nn.Embedding(5, 3)(ember.tensor(idx)))


@pytest.mark.parametrize("idx,offsets", BAG, ids=str)
def test_embedding_bag_out_of_range(idx, offsets):
    w = [[float(i)] * 3 for i in range(5)]

    def call(lib):
        off = None if offsets is None else lib.tensor(offsets)
        return lambda: lib.nn.functional.embedding_bag(lib.tensor(idx), lib.tensor(w), off)
    _raises(call(torch), call(ember))
