"""Datasets, random_split and DataLoader argument handling (in-process), against torch."""
from __future__ import annotations

import collections

import pytest
import torch
import torch.utils.data as tud

import ember
from ember.utils.data import (ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset, StackDataset,
                              Subset, TensorDataset, random_split)

from . import _datasets as D


def test_tensor_dataset():
    ds = TensorDataset(ember.arange(4), ember.arange(8).reshape(4, 2))
    assert len(ds) == 4 and [t.tolist() for t in ds[1]] == [1, [2, 3]]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(ember.arange(4), ember.arange(3))


def test_concat_dataset_matches_torch():
    parts = [list(range(3)), list(range(10, 12)), list(range(20, 24))]
    e, t = ConcatDataset(parts), tud.ConcatDataset(parts)
    assert len(e) == len(t) == 9 and e.cumulative_sizes == t.cumulative_sizes
    assert [e[i] for i in range(-9, 9)] == [t[i] for i in range(-9, 9)]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        e[-10]
    assert len(D.RangeDataset(3) + D.RangeDataset(4)) == 7
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([D.UnshardedRange(2)])
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])


def test_chain_dataset():
    ch = D.UnshardedRange(2) + D.UnshardedRange(3)
    assert isinstance(ch, ChainDataset) and list(ch) == [0, 1, 0, 1, 2] and len(ch) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([[1, 2]]))


def test_subset_and_getitems():
    s = Subset(list(range(10, 20)), [3, 1, 4])
    assert len(s) == 3 and s[0] == 13 and s.__getitems__([0, 2]) == [13, 14]
    assert [b.tolist() for b in DataLoader(s, batch_size=2)] == [[13, 11], [14]]

    class Bad(Subset):
        def __getitem__(self, i):
            return 0
    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        Bad([1], [0])


def test_stack_dataset_matches_torch():
    a, b = list(range(3)), list("xyz")
    assert StackDataset(a, b)[1] == tud.StackDataset(a, b)[1] == (1, "y")
    assert StackDataset(n=a, s=b)[2] == {"n": 2, "s": "z"}
    assert StackDataset(a, b).__getitems__([0, 2]) == tud.StackDataset(a, b).__getitems__([0, 2])
    assert StackDataset(n=a, s=b).__getitems__([1]) == tud.StackDataset(n=a, s=b).__getitems__([1])
    for args, kwargs in [((a, b[:2]), {}), ((), {}), ((a,), {"s": b})]:
        with pytest.raises(ValueError) as te:
            tud.StackDataset(*args, **kwargs)
        with pytest.raises(ValueError) as ee:
            StackDataset(*args, **kwargs)
        assert str(ee.value) == str(te.value)


def test_random_split():
    parts = random_split(range(30), [0.3, 0.3, 0.4], generator=ember.Generator().manual_seed(42))
    tparts = tud.random_split(range(30), [0.3, 0.3, 0.4], generator=torch.Generator().manual_seed(42))
    assert [len(p) for p in parts] == [len(p) for p in tparts] == [9, 9, 12]
    assert sorted(sum((list(p) for p in parts), [])) == list(range(30))
    again = random_split(range(30), [9, 9, 12], generator=ember.Generator().manual_seed(42))
    assert [list(p) for p in again] == [list(p) for p in parts]
    assert [len(p) for p in random_split(range(10), [0.33, 0.33, 0.34])] == \
        [len(p) for p in tud.random_split(range(10), [0.33, 0.33, 0.34])]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(5), [2, 2])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.9, 0.1])


def test_base_dataset():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]
    assert isinstance(IterableDataset.__add__(D.UnshardedRange(1), D.UnshardedRange(1)), ChainDataset)


def test_dataloader_len_and_batching_match_torch():
    for kw in [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
               dict(batch_size=4, shuffle=False)]:
        e = DataLoader(list(range(10)), **kw)
        t = tud.DataLoader(list(range(10)), **kw)
        assert len(e) == len(t)
        got = [x.tolist() if isinstance(x, ember.Tensor) else x for x in e]
        want = [x.tolist() if isinstance(x, torch.Tensor) else x for x in t]
        assert got == want
    assert len(DataLoader(D.UnshardedRange(10), batch_size=3)) == 4
    assert len(DataLoader(D.UnshardedRange(10), batch_size=3, drop_last=True)) == 3
    bs = [[0, 2], [1, 3, 4]]
    assert [b.tolist() for b in DataLoader(list(range(5)), batch_sampler=bs)] == [[0, 2], [1, 3, 4]]


@pytest.mark.parametrize("kwargs", [
    dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
    dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
    dict(batch_size=None, drop_last=True), dict(sampler=[0], shuffle=True),
    dict(multiprocessing_context="fork"), dict(num_workers=1, multiprocessing_context="nope"),
    dict(num_workers=1, multiprocessing_context=3),
])
def test_dataloader_argument_errors_match_torch(kwargs):
    with pytest.raises((ValueError, TypeError)) as te:
        tud.DataLoader(list(range(3)), **kwargs)
    with pytest.raises(te.type) as ee:
        DataLoader(list(range(3)), **kwargs)
    assert str(ee.value) == str(te.value).replace("torch.", "")


def test_iterable_dataset_argument_errors_and_setattr_guard():
    for kw in [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])]:
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected unspecified"):
            DataLoader(D.UnshardedRange(2), **kw)
    dl = DataLoader(list(range(3)))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        dl.batch_size = 2


def test_pin_memory_is_accepted_and_warns_like_torch():
    with pytest.warns(UserWarning, match="no accelerator is found"):
        got = [b.tolist() for b in DataLoader(list(range(4)), batch_size=2, pin_memory=True)]
    assert got == [[0, 1], [2, 3]]


def test_shuffle_follows_manual_seed_and_generator():
    ember.manual_seed(0)
    a = [b.tolist() for b in DataLoader(list(range(10)), batch_size=5, shuffle=True)]
    ember.manual_seed(0)
    assert [b.tolist() for b in DataLoader(list(range(10)), batch_size=5, shuffle=True)] == a
    dl = DataLoader(list(range(10)), batch_size=5, shuffle=True, generator=ember.Generator().manual_seed(1))
    assert list(map(lambda b: b.tolist(), dl)) != list(map(lambda b: b.tolist(), dl))


def test_mixed_namedtuple_batches():
    P = collections.namedtuple("P", "a b")
    out = next(iter(DataLoader([P(1, 2.0), P(3, 4.0)], batch_size=2)))
    assert isinstance(out, P) and out.a.tolist() == [1, 3] and out.b.dtype == ember.float64
