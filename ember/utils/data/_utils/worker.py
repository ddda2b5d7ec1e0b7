"""The DataLoader worker process (layer L5): seeding, ``get_worker_info`` and the fetch loop.

Each worker seeds Python's ``random``, ember's default generator and NumPy's global generator from
``base_seed + worker_id`` (NumPy from a SeedSequence of ``[worker_id, base_seed]``, as torch does), so
random augmentations differ across workers and epochs yet replay under ``manual_seed``.
"""
from __future__ import annotations

import ctypes
import os
import queue
import random
import signal
import sys
from dataclasses import dataclass

import numpy as np

from ....random import manual_seed
from . import shared_memory, signal_handling
from ._common import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper
from .fetch import _DatasetKind

__all__ = ["WorkerInfo", "get_worker_info"]


class WorkerInfo:
    """What a worker knows about itself: ``id``, ``num_workers``, ``seed`` and its ``dataset`` copy."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's WorkerInfo, or None in the main process.

    >>> get_worker_info() is None
    True
    """
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    seed: int | None = None


def _generate_state(base_seed: int, worker_id: int) -> list:
    """NumPy's global seed for a worker: SeedSequence of [worker_id, base_seed lo, base_seed hi, 0]."""
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4).tolist()


def _die_with_parent() -> None:
    # Linux: the kernel sends SIGTERM when the main process dies, even while this worker is blocked
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except Exception:
            pass


def _worker_loop(dataset_kind, dataset, index_queue, result_conn, done_event, auto_collation, collate_fn,
                 drop_last, base_seed, init_fn, worker_id, num_workers, persistent_workers, token,
                 parent_pid):
    own_files = f"{token}_{os.getpid()}"

    def on_term(signum, frame):
        shared_memory.cleanup(own_files)
        os._exit(0)

    try:
        signal_handling._set_worker_signal_handlers()
        signal.signal(signal.SIGTERM, on_term)
        _die_with_parent()
        shared_memory.set_token(token)
        seed = base_seed + worker_id
        random.seed(seed)
        manual_seed(seed)
        np.random.seed(_generate_state(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=where)

        iteration_end = False
        while True:
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent_pid:
                    break
                continue
            if isinstance(r, _ResumeIteration):
                result_conn.send_bytes(shared_memory.dumps((r, None)))
                iteration_end = False
                if fetcher is not None:
                    # a fresh iterator for an IterableDataset, as a new epoch needs
                    fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                                          drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # shutting down, or this worker's stream already ended: send nothing
            idx, index, freed = r
            if freed:
                shared_memory.release(freed)
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=where)
            try:
                payload = shared_memory.dumps((idx, data))
            except Exception:
                payload = shared_memory.dumps((idx, ExceptionWrapper(where=where)))
            del data
            result_conn.send_bytes(payload)
            del payload
    except (KeyboardInterrupt, BrokenPipeError, EOFError, ConnectionError):
        pass  # the main process went away or is shutting us down
    finally:
        if os.getppid() != parent_pid:
            shared_memory.cleanup(own_files)
