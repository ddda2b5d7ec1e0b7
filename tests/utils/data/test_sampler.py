"""Samplers and DistributedSampler, against torch where streams are deterministic."""
from __future__ import annotations

import collections

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import ember
from ember.utils.data import (BatchSampler, DistributedSampler, RandomSampler, SequentialSampler,
                              SubsetRandomSampler, WeightedRandomSampler)


def test_sequential_and_batch_sampler_match_torch():
    for n, bs, dl in [(10, 3, False), (10, 3, True), (9, 3, True), (1, 4, False)]:
        e = BatchSampler(SequentialSampler(range(n)), bs, dl)
        t = tud.BatchSampler(tud.SequentialSampler(range(n)), bs, dl)
        assert list(e) == list(t) and len(e) == len(t)


def test_random_sampler_permutes_and_replays_with_generator():
    g = ember.Generator().manual_seed(0)
    s = RandomSampler(range(20), generator=g)
    a = list(s)
    assert sorted(a) == list(range(20)) and len(s) == 20
    b = list(RandomSampler(range(20), generator=ember.Generator().manual_seed(0)))
    assert a == b and a != list(range(20))
    ember.manual_seed(3)
    c = list(RandomSampler(range(20)))
    ember.manual_seed(3)
    assert list(RandomSampler(range(20))) == c


def test_random_sampler_num_samples_and_replacement():
    s = RandomSampler(range(5), num_samples=12)
    got = list(s)
    assert len(got) == 12 and sorted(got[:10]) == sorted(list(range(5)) * 2)
    r = list(RandomSampler(range(3), replacement=True, num_samples=70))
    assert len(r) == 70 and set(r) == {0, 1, 2}


@pytest.mark.parametrize("kwargs, exc, msg", [
    (dict(replacement=1), TypeError, "replacement should be a boolean value, but got replacement=1"),
    (dict(num_samples=0), ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
])
def test_random_sampler_errors_match_torch(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        tud.RandomSampler(range(3), **kwargs)
    with pytest.raises(exc, match=msg):
        RandomSampler(range(3), **kwargs)


def test_subset_random_sampler():
    s = SubsetRandomSampler([10, 20, 30, 40], generator=ember.Generator().manual_seed(1))
    assert sorted(s) == [10, 20, 30, 40] and len(s) == 4


def test_weighted_random_sampler():
    assert list(WeightedRandomSampler([0, 0, 1.0], 5)) == [2] * 5
    got = list(WeightedRandomSampler([0.9, 0.4, 0.05, 0.2, 0.3, 0.1], 6, replacement=False))
    assert sorted(got) == list(range(6))
    counts = collections.Counter(WeightedRandomSampler([1.0, 3.0], 4000,
                                                       generator=ember.Generator().manual_seed(0)))
    assert 0.7 < counts[1] / 4000 < 0.8
    for args, exc in [(([1.0], 0), ValueError), (([1.0], 2, 1), ValueError), (([[1.0]], 1), ValueError)]:
        with pytest.raises(exc) as te:
            tud.WeightedRandomSampler(*args)
        with pytest.raises(exc) as ee:
            WeightedRandomSampler(*args)
        assert str(ee.value) == str(te.value)


def test_batch_sampler_errors_match_torch():
    for args in [(range(3), 0, False), (range(3), True, False), (range(3), 2, 1)]:
        with pytest.raises(ValueError) as te:
            tud.BatchSampler(*args)
        with pytest.raises(ValueError) as ee:
            BatchSampler(*args)
        assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("n, replicas, drop_last", [(10, 3, False), (10, 3, True), (2, 4, False), (12, 4, True)])
def test_distributed_sampler_without_shuffle_matches_torch(n, replicas, drop_last):
    for rank in range(replicas):
        e = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        t = tud.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(e) == list(t) and len(e) == len(t)


def test_distributed_sampler_shuffle_partitions_and_reseeds_per_epoch():
    def epoch(e, seed=0):
        parts = []
        for rank in range(3):
            s = DistributedSampler(range(12), num_replicas=3, rank=rank, seed=seed)
            s.set_epoch(e)
            parts.append(list(s))
        return parts
    p0 = epoch(0)
    assert sorted(sum(p0, [])) == list(range(12))
    assert epoch(0) == p0 and epoch(1) != p0 and epoch(0, seed=1) != p0


def test_distributed_sampler_needs_replicas_and_rank_without_process_group():
    import ember.distributed  # noqa: F401 - available, as torch's: only the process group is missing
    for sampler in (DistributedSampler, torch.utils.data.DistributedSampler):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            sampler(range(4))
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(4), num_replicas=3, rank=3)


def test_distributed_sampler_in_a_dataloader():
    from ember.utils.data import DataLoader
    s = DistributedSampler(range(10), num_replicas=2, rank=1, shuffle=False)
    assert [b.tolist() for b in DataLoader(range(10), batch_size=2, sampler=s)] == [[1, 3], [5, 7], [9]]
    assert np.array_equal(np.array(list(s)), np.arange(1, 10, 2))
    assert torch is not None
