"""DataLoader with worker processes: seeding, order, sharding, persistence, shared memory, start methods."""
from __future__ import annotations

import gc
import glob
import mmap
import os

import numpy as np
import pytest
import torch

import ember
from ember._storage import root_array
from ember.utils.data import DataLoader
from ember.utils.data._utils.shared_memory import PREFIX, SHM_DIR

from . import _datasets as D

pytestmark = [pytest.mark.timeout(60),
              pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")]


def _leftovers():
    return glob.glob(os.path.join(SHM_DIR, f"{PREFIX}{os.getpid()}x*"))


def _epochs(seed, num_workers=4, epochs=3):
    ember.manual_seed(seed)
    loader = DataLoader(D.RandomDataset(16), batch_size=2, num_workers=num_workers)
    out = []
    for _ in range(epochs):
        for b in loader:
            out.append((b["np"].numpy().copy(), b["py"].numpy().copy(), b["ember"].numpy().copy()))
    return out


def test_workers_draw_distinct_samples_across_workers_and_epochs_and_replay():
    run = _epochs(0)
    for k in range(3):  # numpy, python random, ember
        values = np.concatenate([r[k].reshape(-1) for r in run])
        assert len(values) == len(np.unique(values)), f"duplicate random draws in source {k}"
    again = _epochs(0)
    for a, b in zip(run, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    other = _epochs(1)
    assert not np.array_equal(run[0][0], other[0][0])


def test_batch_order_matches_single_process_and_torch():
    ds = D.RangeDataset(23)
    g0 = ember.Generator().manual_seed(5)
    ref = [y.tolist() for _, y in DataLoader(ds, batch_size=4, shuffle=True, generator=g0)]
    g2 = ember.Generator().manual_seed(5)
    got = [y.tolist() for _, y in DataLoader(ds, batch_size=4, shuffle=True, generator=g2, num_workers=3)]
    assert got == ref
    seq = [y.tolist() for _, y in DataLoader(ds, batch_size=4, num_workers=2, drop_last=True)]
    tseq = [y.tolist() for y in torch.utils.data.DataLoader(list(range(23)), batch_size=4, drop_last=True)]
    assert seq == tseq


def test_worker_info_seed_and_worker_init_fn():
    ember.manual_seed(3)
    loader = DataLoader(D.InfoDataset(), batch_size=None, num_workers=2, worker_init_fn=D.mark_init)
    rows = list(loader)
    assert [r["i"] for r in rows] == list(range(8))
    assert {r["num_workers"] for r in rows} == {2}
    assert all(r["same_dataset"] for r in rows)
    by_id = {r["id"]: r for r in rows}
    assert set(by_id) == {0, 1}
    assert by_id[1]["seed"] == by_id[0]["seed"] + 1
    assert {r["mark"] for r in rows} == {100, 101}
    assert all(r["mark"] == 100 + r["id"] for r in rows)
    assert len({r["pid"] for r in rows}) == 2 and os.getpid() not in {r["pid"] for r in rows}
    # round-robin: worker 0 gets even tasks, worker 1 odd ones
    assert [r["id"] for r in rows] == [0, 1] * 4


def test_base_seed_follows_loader_generator():
    seeds = []
    for _ in range(2):
        g = ember.Generator().manual_seed(11)
        seeds.append([r["seed"] for r in DataLoader(D.InfoDataset(), batch_size=None, num_workers=2,
                                                     generator=g)])
    assert seeds[0] == seeds[1]


def test_iterable_dataset_sharding_and_len():
    ds = D.ShardedRange(3, 10)
    loader = DataLoader(ds, batch_size=2, num_workers=2)
    batches = [b.tolist() for b in loader]
    assert sorted(sum(batches, [])) == list(range(3, 10))
    assert len(loader) == 4
    assert [b for b in DataLoader(ds, batch_size=None, num_workers=0)] == list(range(3, 10))
    # torch yields the same multiset in the same interleaving
    class TorchSharded(torch.utils.data.IterableDataset):
        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            per = -(-7 // info.num_workers)
            lo = 3 + info.id * per
            return iter(range(lo, min(lo + per, 10)))
    tb = [b.tolist() for b in torch.utils.data.DataLoader(TorchSharded(), batch_size=2, num_workers=2)]
    assert batches == tb


def test_iterable_len_warning_when_workers_duplicate():
    loader = DataLoader(D.UnshardedRange(3), batch_size=None, num_workers=2)
    assert len(loader) == 3
    with pytest.warns(UserWarning, match="Length of IterableDataset"):
        got = [int(x) for x in loader]
    assert sorted(got) == [0, 0, 1, 1, 2, 2]


def test_in_order_false_delivers_everything_and_lets_fast_batches_pass():
    ds = D.SlowDataset(delay=1.0, slow_index=0, n=8)
    got = [int(x) for x in DataLoader(ds, batch_size=None, num_workers=2, in_order=False)]
    assert sorted(got) == list(range(8))
    assert got[0] != 0
    got = [int(x) for x in DataLoader(ds, batch_size=None, num_workers=2, in_order=True)]
    assert got == list(range(8))


def test_persistent_workers_survive_epochs_and_reshuffle():
    g = ember.Generator().manual_seed(0)
    loader = DataLoader(D.InfoDataset(), batch_size=2, shuffle=True, generator=g, num_workers=2,
                        persistent_workers=True, prefetch_factor=1)
    e1, e2 = list(loader), list(loader)
    pids1 = set(sum((b["pid"].tolist() for b in e1), []))
    pids2 = set(sum((b["pid"].tolist() for b in e2), []))
    assert pids1 == pids2 and len(pids1) == 2
    o1 = sum((b["i"].tolist() for b in e1), [])
    o2 = sum((b["i"].tolist() for b in e2), [])
    assert sorted(o1) == sorted(o2) == list(range(8)) and o1 != o2
    it = loader._iterator
    workers = list(it._workers)
    del loader, it, e1, e2
    gc.collect()
    for w in workers:
        w.join(10)
        assert not w.is_alive()


def test_persistent_iterable_dataset_restarts_each_epoch():
    loader = DataLoader(D.ShardedRange(0, 6), batch_size=None, num_workers=2, persistent_workers=True)
    assert sorted(int(x) for x in loader) == list(range(6))
    assert sorted(int(x) for x in loader) == list(range(6))


def test_batches_cross_in_shared_memory_and_are_released():
    loader = DataLoader(D.BigTensors(), batch_size=4, num_workers=2)
    batches = list(loader)
    assert [b[:, 0, 0, 0].tolist() for b in batches] == [[0.0, 1, 2, 3], [4.0, 5, 6, 7]]
    assert all(isinstance(root_array(b.numpy()).base, mmap.mmap) for b in batches)
    with open("/proc/self/maps") as f:
        assert f.read().count(PREFIX) >= 2
    del batches
    gc.collect()
    with open("/proc/self/maps") as f:
        assert PREFIX not in f.read()
    assert _leftovers() == []


def test_shared_files_are_reused_once_batches_die_and_never_while_held():
    loader = DataLoader(D.BigRange(48), batch_size=4, num_workers=1)
    names = []
    for k, b in enumerate(loader):  # each batch dies when the next one arrives
        assert b[:, 0, 0, 0].tolist() == [4.0 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]
        names.append(root_array(b.numpy()).base.name)
    assert len(set(names)) < len(names) // 2, names  # files went back to the worker and were reused
    held = list(DataLoader(D.BigRange(48), batch_size=4, num_workers=1))
    assert len({root_array(b.numpy()).base.name for b in held}) == 12
    assert [float(b[i].mean()) for b in held for i in range(4)] == [float(i) for i in range(48)]
    del b, held
    gc.collect()
    assert _leftovers() == []


def test_mixed_types_through_workers_match_single_process():
    a = list(DataLoader(D.MixedDataset(), batch_size=3, num_workers=2))
    b = list(DataLoader(D.MixedDataset(), batch_size=3, num_workers=0))
    for x, y in zip(a, b):
        assert x["name"] == y["name"]
        for k in ("arr", "f", "big"):
            assert x[k].dtype == y[k].dtype and bool((x[k] == y[k]).all())
        assert x["pair"][0].tolist() == y["pair"][0].tolist()
        assert [t.tolist() for t in x["pair"][1]] == [t.tolist() for t in y["pair"][1]]


def test_spawn_context_and_no_batching():
    loader = DataLoader(D.RangeDataset(6), batch_size=None, num_workers=2, multiprocessing_context="spawn")
    assert [int(y) for _, y in loader] == list(range(6))
    assert _leftovers() == []


def test_two_loaders_interleaved():
    a = iter(DataLoader(D.BigTensors(), batch_size=2, num_workers=2))
    b = iter(DataLoader(D.BigTensors(), batch_size=2, num_workers=2))
    got = []
    for x, y in zip(a, b):
        got.append((x[:, 0, 0, 0].tolist(), y[:, 0, 0, 0].tolist()))
    del a  # shutting one loader down must not disturb the other's shared memory
    assert got == [([0.0, 1.0], [0.0, 1.0]), ([2.0, 3.0], [2.0, 3.0]), ([4.0, 5.0], [4.0, 5.0]),
                   ([6.0, 7.0], [6.0, 7.0])]
    assert len(list(b)) == 0
    del b
    gc.collect()
    assert _leftovers() == []
