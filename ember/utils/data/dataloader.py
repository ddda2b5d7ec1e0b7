"""DataLoader (layer L5): batches from a dataset, in-process or from worker processes.

Workers get index batches through one queue each and answer through one pipe each; the main process
waits on the pipes and on the workers' process sentinels together, so a dead worker is noticed the
moment it dies. Each worker answers its tasks in the order it got them, so in-order delivery needs no
reorder buffer: the next batch comes from the worker that got the oldest outstanding task.

Example:
    >>> import ember
    >>> from ember.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(ember.arange(5.0), ember.arange(5))
    >>> [y.tolist() for _, y in DataLoader(ds, batch_size=2)]
    [[0, 1], [2, 3], [4]]
"""
from __future__ import annotations

import atexit
import itertools
import math
import multiprocessing as mp
import multiprocessing.connection
import os
import sys
import time
import warnings
from collections import OrderedDict, deque
from typing import Any, Generic, TypeVar

from ... import _dtype as D
from ..._creation import empty
from . import _utils  # noqa: F401  (torch exposes dataloader._utils)
from ._utils import ExceptionWrapper, MP_STATUS_CHECK_INTERVAL, shared_memory
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import _DatasetKind
from ._utils.worker import _IterableDatasetStopIteration, _ResumeIteration, _worker_loop, get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

_T_co = TypeVar("_T_co", covariant=True)


class _InfiniteConstantSampler(Sampler):
    """Yields None forever: the index stream for an IterableDataset."""

    def __iter__(self):
        while True:
            yield None


def _default_context():
    # fork after MPI_Init is unsafe (the child would share MPI's connections): an MPI rank (ember.distributed)
    # starts its workers from a fork server, a fresh interpreter that never initialised MPI
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        return mp.get_context("forkserver")
    # fork is cheap and needs no re-import; the brief of this project (and torch on Linux) uses it
    if "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    return mp.get_context()


class DataLoader(Generic[_T_co]):
    """Iterate over ``dataset`` in batches, optionally loading them in ``num_workers`` processes.

    Args:
        dataset: map-style (``__getitem__``/``__len__``) or iterable dataset.
        batch_size: samples per batch; None turns automatic batching off.
        shuffle: reshuffle every epoch (map-style only).
        sampler, batch_sampler: custom index streams (mutually exclusive with shuffle/batch_size).
        num_workers: worker processes; 0 loads in the main process.
        collate_fn: merges a list of samples into a batch (default_collate / default_convert).
        generator: draws the shuffle order and the workers' base seed.
        prefetch_factor: batches each worker loads ahead (default 2 with workers).
        persistent_workers: keep workers alive between epochs.
        in_order: deliver batches in sampler order (False: as soon as any worker finishes one).
    """

    __initialized = False

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                             "to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler "
                                 f"option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive "
                             "with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx) -> None:
        if ctx is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(ctx, str):
                valid = mp.get_all_start_methods()
                if ctx not in valid:
                    raise ValueError("multiprocessing_context option should specify a valid start method "
                                     f"in {valid!r}, but got multiprocessing_context={ctx!r}")
                ctx = mp.get_context(ctx)
            if not isinstance(ctx, mp.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a "
                                f"string specifying the start method, but got multiprocessing_context={ctx}")
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is "
                             "initialized")
        super().__setattr__(attr, val)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn when more workers are asked for than there are CPUs."""
        if not self.num_workers:
            return
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if cpus is None or self.num_workers > cpus:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. Our "
                          f"suggested max number of worker in current system is {cpus}, which is smaller "
                          "than what this DataLoader is going to create. Please be aware that excessive "
                          "worker creation might get DataLoader running slow or even freeze, lower the "
                          "worker number to avoid potential slowness/freeze if necessary.", stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device "
                          "pinned memory won't be used.", stacklevel=3)
        self._pin_memory = False
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = int(empty((), dtype=D.int64).random_(generator=loader.generator).item())
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self) -> Any:
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None \
                and self._num_yielded > self._IterableDataset_len_called:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be "
                   f"{self._IterableDataset_len_called}(when accessing len(dataloader)), but "
                   f"{self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring "
                        "the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for "
                        "examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._dataset_fetcher = _DatasetKind.create_fetcher(self._dataset_kind, self._dataset,
                                                            self._auto_collation, self._collate_fn,
                                                            self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        return self._dataset_fetcher.fetch(index)  # may raise StopIteration


_iter_ids = itertools.count()
# every pool that has not shut down, held strongly: an iterator that dies in a reference cycle must not
# take its Process objects (whose finalizers close their sentinels) down before it shuts the workers down
_pools: dict = {}


@atexit.register
def _shutdown_all() -> None:
    # registered after multiprocessing's own exit hook, so it runs first: workers still answer
    for pool in list(_pools.values()):
        pool.shutdown()


class _WorkerPool:
    """The worker processes of one iterator, their index queues and result pipes."""

    def __init__(self, token: str):
        self.token = token
        self.owner_pid = os.getpid()
        self.workers, self.index_queues, self.readers = [], [], []
        self.owners = []  # shared-file owner keys of the workers (files given back go to them)
        self.done_event = None
        self.closed = False
        _pools[token] = self

    def shutdown(self) -> None:
        if self.closed or os.getpid() != self.owner_pid:
            return  # also when a forked worker's garbage collector finds a copy of this pool
        self.closed = True
        try:
            if self.done_event is not None:
                self.done_event.set()
            for q in self.index_queues:
                try:
                    q.put(None)
                except (OSError, ValueError):
                    pass
            # drain answers so no worker stays blocked writing to its pipe, then give up on stragglers
            deadline = time.monotonic() + MP_STATUS_CHECK_INTERVAL
            readers = [r for r in self.readers if not r.closed]
            alive = [p for p in self.workers if p.pid is not None and p.exitcode is None]
            while alive and time.monotonic() < deadline:
                ready = mp.connection.wait(readers + [p.sentinel for p in alive],
                                           timeout=max(0.0, deadline - time.monotonic()))
                for r in ready:
                    if r in readers:
                        try:
                            r.recv_bytes()
                        except (EOFError, OSError):
                            readers.remove(r)
                alive = [p for p in alive if p.exitcode is None]
            for p in alive:
                p.terminate()
            for p in self.workers:
                if p.pid is not None:
                    p.join(MP_STATUS_CHECK_INTERVAL)
                    if p.exitcode is None:
                        p.kill()
                        p.join()
            for q in self.index_queues:
                q.close()
            for r in self.readers:
                r.close()
        finally:
            for owner in self.owners:
                shared_memory.untrack(owner)
            shared_memory.cleanup(self.token)
            _pools.pop(self.token, None)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        ctx = loader.multiprocessing_context or _default_context()
        self._token = f"{os.getpid()}x{next(_iter_ids)}"
        self._pool = pool = _WorkerPool(self._token)
        self._done_event = pool.done_event = ctx.Event()
        self._index_queues, self._readers, self._workers = pool.index_queues, pool.readers, pool.workers
        try:
            for i in range(self._num_workers):
                iq = ctx.Queue()
                iq.cancel_join_thread()  # never block the main process's exit on unread indices
                reader, writer = ctx.Pipe(duplex=False)
                w = ctx.Process(target=_worker_loop, daemon=True, args=(
                    self._dataset_kind, self._dataset, iq, writer, self._done_event, self._auto_collation,
                    self._collate_fn, self._drop_last, self._base_seed, loader.worker_init_fn, i,
                    self._num_workers, self._persistent_workers, self._token, os.getpid()))
                self._index_queues.append(iq)
                self._readers.append(reader)
                self._workers.append(w)
                w.start()
                writer.close()  # the worker holds the only write end: its death reads as EOF
        except BaseException:
            self._shutdown_workers()
            raise
        self._worker_pids = tuple(w.pid for w in self._workers)
        pool.owners[:] = self._owners = [f"{self._token}_{pid}" for pid in self._worker_pids]
        for owner in self._owners:
            shared_memory.track(owner)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._pending: OrderedDict = OrderedDict()  # send_idx -> worker id, in dispatch order
        self._worker_tasks = [deque() for _ in range(self._num_workers)]  # each worker answers FIFO
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for q in self._index_queues:
                q.put(_ResumeIteration())
            for w in range(self._num_workers):
                idx, _ = self._recv(self._wait([w]))
                if not isinstance(idx, _ResumeIteration):
                    raise AssertionError("Expected a _ResumeIteration acknowledgement from the worker")
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        if len(self._pending) >= max_tasks:
            return
        active = sum(self._workers_status)
        for _ in range(self._num_workers):
            w = next(self._worker_cycle)
            if self._workers_status[w] and (self._in_order or
                                            len(self._worker_tasks[w]) < max(1, max_tasks // active)):
                break
        else:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        # with the task go the worker's shared files whose batches died here, for it to reuse
        self._index_queues[w].put((self._send_idx, index, shared_memory.take_returned(self._owners[w])))
        self._worker_tasks[w].append(self._send_idx)
        self._pending[self._send_idx] = w
        self._send_idx += 1

    def _wait(self, candidates) -> int:
        """The id of a worker in ``candidates`` whose answer is ready; raises when one died or on timeout."""
        readers = {self._readers[w]: w for w in candidates}
        sentinels = {self._workers[w].sentinel: w for w in range(self._num_workers) if self._workers_status[w]}
        while True:
            ready = mp.connection.wait(list(readers) + list(sentinels), timeout=self._timeout or None)
            if not ready:
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            for obj in ready:
                if obj in readers:
                    return readers[obj]
            dead = [sentinels[s] for s in ready if s in sentinels]
            if dead:
                # a worker that died after writing its last answer still has it in the pipe: take it
                for w in candidates:
                    if self._readers[w].poll(0):
                        return w
                self._worker_died(dead)

    def _worker_died(self, dead) -> None:
        pids = ", ".join(str(self._workers[w].pid) for w in dead)
        codes = [self._workers[w].exitcode for w in dead]
        self._shutdown_workers()
        signals = [f"signal {-c}" for c in codes if c is not None and c < 0]
        how = f" ({', '.join(signals)})" if signals else ""
        raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly{how}")

    def _recv(self, w):
        try:
            payload = self._readers[w].recv_bytes()
        except (EOFError, OSError):
            self._workers[w].join(MP_STATUS_CHECK_INTERVAL)
            self._worker_died([w])
        return shared_memory.loads(payload)

    def _next_data(self):
        while True:
            if not self._pending:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if self._in_order:
                w = next(iter(self._pending.values()))
                w = self._wait([w])
            else:
                w = self._wait([i for i in range(self._num_workers) if self._worker_tasks[i]])
            idx, data = self._recv(w)
            expected = self._worker_tasks[w].popleft()
            if idx != expected:
                raise AssertionError(f"worker {w} answered task {idx}, expected {expected}")
            del self._pending[idx]
            if isinstance(data, _IterableDatasetStopIteration):
                self._mark_worker_as_unavailable(w)
                self._try_put_index()
                continue
            self._try_put_index()
            if isinstance(data, ExceptionWrapper):
                data.reraise()
            return data

    def _mark_worker_as_unavailable(self, w) -> None:
        # its stream ended: later tasks it was given are void (the worker sends nothing for them)
        self._workers_status[w] = False
        for idx in self._worker_tasks[w]:
            self._pending.pop(idx, None)
        self._worker_tasks[w].clear()

    def _shutdown_workers(self) -> None:
        pool = self.__dict__.get("_pool")
        if pool is not None:
            pool.shutdown()

    def __del__(self):
        self._shutdown_workers()
