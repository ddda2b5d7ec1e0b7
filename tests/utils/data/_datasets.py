"""Datasets for DataLoader worker tests. No torch here: spawned workers re-import this module."""
from __future__ import annotations

import os
import random
import signal
import time

import numpy as np

import ember
from ember.utils.data import Dataset, IterableDataset, get_worker_info


class RandomDataset(Dataset):
    """Each sample draws from NumPy's global generator, Python's random and ember's generator."""

    def __init__(self, n=16):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"i": i, "np": np.random.rand(3), "py": random.random(), "ember": ember.rand(2)}


class RangeDataset(Dataset):
    def __init__(self, n=20, width=1):
        self.n, self.width = n, width

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.full((self.width,), float(i)), i


class MixedDataset(Dataset):
    """numpy arrays, strings, numbers, nested containers."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return {"arr": np.arange(4, dtype=np.float32) + i, "name": f"s{i}", "f": i * 0.5,
                "pair": (i, [i, -i]), "big": np.full((64, 64), i, np.float64)}


class RaiseOn(Dataset):
    def __init__(self, bad=7, n=12):
        self.bad, self.n = bad, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError(f"bad index {i}")
        return i


class KillSelfOn(Dataset):
    """SIGKILLs its own worker process when asked for index ``bad``."""

    def __init__(self, bad=5, n=12):
        self.bad, self.n = bad, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad and get_worker_info() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class SlowDataset(Dataset):
    def __init__(self, delay=0.0, slow_index=None, n=8):
        self.delay, self.slow_index, self.n = delay, slow_index, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.slow_index is None or i == self.slow_index:
            time.sleep(self.delay)
        return i


class InfoDataset(Dataset):
    """Returns what get_worker_info() says plus the pid and a worker_init_fn mark."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "id": info.id, "num_workers": info.num_workers, "seed": info.seed,
                "same_dataset": info.dataset is self, "pid": os.getpid(), "mark": MARK.get("mark", -1)}


MARK: dict = {}


def mark_init(worker_id):
    MARK["mark"] = 100 + worker_id


def failing_init(worker_id):
    raise KeyError("init failed")


class ShardedRange(IterableDataset):
    """range(start, end) split between workers with get_worker_info()."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def __len__(self):
        return self.end - self.start

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


class UnshardedRange(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        return iter(range(self.n))


class BigTensors(Dataset):
    """Samples large enough that batches cross in shared memory."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return ember.full((4, 32, 32), float(i))


class BigRange(Dataset):
    """``n`` samples large enough that batches cross in shared memory; sample i is all i."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.full((4, 32, 32), float(i))
