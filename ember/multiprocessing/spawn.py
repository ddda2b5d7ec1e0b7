"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes, each an MPI singleton.

Each child is a fresh interpreter started with ``mpiexec -n 1`` (MPICH cannot join two bare
singletons into one communicator), so ``fn`` and ``args`` must be picklable, as with torch's
default "spawn" start method; every ``start_method`` behaves as "spawn". The children find each
other in ``init_process_group`` (rank 0 opens an MPI port and publishes it through the TCP store at
``MASTER_ADDR:MASTER_PORT``). A child reports how it ended in a status file: the parent raises
``ProcessRaisedException`` with the child's traceback when ``fn`` raised, ``ProcessExitedException``
when it exited non-zero or was killed by a signal, after stopping the other children. A child whose
parent disappears ends itself, so nothing outlives the job.

Example (``fn`` must live in an importable module or the main script)::

    def fn(rank, world_size):
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29512")
        dist.init_process_group("gloo", rank=rank, world_size=world_size)

    ember.multiprocessing.spawn(fn, args=(2,), nprocs=2)
"""
from __future__ import annotations

import multiprocessing.spawn as mp_spawn
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from ..distributed import _mpi

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessException", "ProcessRaisedException",
           "ProcessExitedException"]


class ProcessException(Exception):
    """A child process of ``spawn`` failed: ``error_index`` (its index) and ``error_pid``."""

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """``fn`` raised in a child; the message holds the child's traceback."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg, error_index, error_pid)


class ProcessExitedException(ProcessException):
    """A child exited with a non-zero code or was killed by a signal (``exit_code`` < 0, ``signal_name``)."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _read_status(path: str):
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except (FileNotFoundError, EOFError, pickle.UnpicklingError):
        return None


class ProcessContext:
    """The children of one ``start_processes`` call: ``join()`` them, read ``pids()``."""

    def __init__(self, processes: list, workdir: str):
        self.processes = processes            # the mpiexec of each child (subprocess.Popen)
        self._workdir = workdir
        self._finished = [False] * len(processes)
        self._child_pids = [None] * len(processes)

    def _status(self, i: int):
        return _read_status(os.path.join(self._workdir, f"status{i}"))

    def pids(self) -> list:
        """The pid of each child's Python process (its mpiexec's pid until the child has started)."""
        for i, known in enumerate(self._child_pids):
            if known is None:
                self._child_pids[i] = _read_status(os.path.join(self._workdir, f"pid{i}"))
        return [int(c) if c is not None else p.pid for c, p in zip(self._child_pids, self.processes)]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait for the children: True once all succeeded, False if ``timeout`` passes first.

        When one fails the others are stopped (SIGTERM, SIGKILL after ``grace_period``) and
        ``ProcessRaisedException`` or ``ProcessExitedException`` is raised for the first failure.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not all(self._finished):
            for i, proc in enumerate(self.processes):
                if self._finished[i] or proc.poll() is None:
                    continue
                self._finished[i] = True
                error = self._error(i, proc.returncode)
                if error is not None:
                    self._terminate(grace_period)
                    raise error
            if all(self._finished):
                break
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        shutil.rmtree(self._workdir, ignore_errors=True)
        return True

    def _error(self, i: int, returncode: int):
        status, pid = self._status(i), self.pids()[i]
        if status is not None and status[0] == "raised":
            return ProcessRaisedException(f"\n\n-- Process {i} terminated with the following error:\n{status[1]}",
                                          i, pid)
        if status is not None and status[0] == "exit":
            if status[1] == 0:
                return None
            return ProcessExitedException(f"process {i} terminated with exit code {status[1]}", i, pid, status[1])
        if returncode == 0:
            return None
        # no status: the child was killed; mpiexec reports the signal number as its exit code
        try:
            name = signal.Signals(returncode).name
        except ValueError:
            return ProcessExitedException(f"process {i} terminated with exit code {returncode}", i, pid, returncode)
        return ProcessExitedException(f"process {i} terminated with signal {name}", i, pid, -returncode, name)

    def _terminate(self, grace_period: float | None) -> None:
        children = self.pids()
        for proc in self.processes:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)  # mpiexec passes it on to its child
        end = time.monotonic() + (grace_period if grace_period is not None else 5.0)
        while any(p.poll() is None for p in self.processes) and time.monotonic() < end:
            time.sleep(0.02)
        for proc, pid in zip(self.processes, children):
            for target in (pid, proc.pid):
                try:
                    os.kill(target, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            proc.wait()
        shutil.rmtree(self._workdir, ignore_errors=True)


def start_processes(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn"):
    """Start ``nprocs`` children running ``fn(i, *args)``; join them unless ``join=False``."""
    if start_method not in ("spawn", "fork", "forkserver"):
        raise ValueError(f"Invalid start method: {start_method!r}")
    workdir = tempfile.mkdtemp(prefix="ember_spawn_")
    preparation = mp_spawn.get_preparation_data("ember-spawn-child")
    preparation["authkey"] = bytes(preparation["authkey"])  # picklable only as plain bytes
    processes = []
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHELASTIC_USE_AGENT_STORE",)
           and not k.startswith(("PMI_", "HYDRA_"))}
    for i in range(nprocs):
        payload = os.path.join(workdir, f"payload{i}")
        with open(payload, "wb") as f:
            pickle.dump(preparation, f)
            pickle.dump({"fn": fn, "args": tuple(args), "index": i,
                         "workdir": workdir, "parent": os.getpid()}, f)
        cmd = [_mpi.mpiexec_path(), "-n", "1", sys.executable, "-m", "ember.multiprocessing._spawn_child", payload]
        processes.append(subprocess.Popen(cmd, env=env))
    context = ProcessContext(processes, workdir)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn"):
    """``start_processes`` with torch's spawn defaults: None when ``join``, else the ``ProcessContext``."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
