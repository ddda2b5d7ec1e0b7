"""Rendezvous: from ``init_method`` (``env://``, ``tcp://``, ``file://``) to a store, a rank and a world size,
then to one MPI communicator holding the whole world.

How the communicator is built depends on how the processes were started:

* one ``mpiexec`` started them all (torchrun, ``mpiexec -n N``): ``COMM_WORLD``, reordered by rank;
* several ``mpiexec`` jobs (``spawn`` starts each child with ``mpiexec -n 1``; torchrun on several
  nodes): the job holding rank 0 opens an MPI port and publishes its name in the store; each other
  job connects, the communicators are merged one job at a time, then ordered by rank. Every job first
  announces itself in the store, so a missing one fails within the timeout instead of blocking in
  ``MPI_Comm_accept``.

Example:
    >>> parse_init_method("tcp://10.0.0.1:23456?rank=1&world_size=2")
    ('tcp', '10.0.0.1', 23456, {'rank': '1', 'world_size': '2'})
"""
from __future__ import annotations

import os
import time
import urllib.parse

from . import _mpi
from ._errors import DistBackendError
from ._store import FileStore, TCPStore

__all__ = ["parse_init_method", "rendezvous", "world_communicator"]


def parse_init_method(url: str):
    """(scheme, host or path, port or None, query dict)."""
    parts = urllib.parse.urlparse(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    if parts.scheme == "file":
        return "file", parts.path, None, query
    return parts.scheme, parts.hostname, parts.port, query


def _env(name: str) -> str:
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment "
                         f"variable {name} expected, but not set")
    return value


def rendezvous(init_method, rank: int, world_size: int, timeout):
    """(store or None, rank, world_size) for ``init_process_group``'s arguments."""
    MPI = _mpi.load()
    world = MPI.COMM_WORLD
    if init_method is None:
        under_mpiexec = world.Get_size() > 1 and "RANK" not in os.environ and "MASTER_ADDR" not in os.environ
        if under_mpiexec:  # plain `mpiexec -n N python train.py`: MPI knows the world, no store needed
            return None, world.Get_rank() if rank < 0 else rank, world.Get_size() if world_size < 0 else world_size
        init_method = "env://"
    scheme, host, port, query = parse_init_method(init_method)
    if "rank" in query:
        rank = int(query["rank"])
    if "world_size" in query:
        world_size = int(query["world_size"])
    if scheme == "env":
        rank = int(_env("RANK")) if rank < 0 else rank
        world_size = int(_env("WORLD_SIZE")) if world_size < 0 else world_size
        host, port = _env("MASTER_ADDR"), int(_env("MASTER_PORT"))
        scheme = "tcp"
    if rank < 0 or world_size < 1:
        raise ValueError(f"rank ({rank}) and world_size ({world_size}) must be given for {init_method}")
    if scheme == "tcp":
        agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"
        store = TCPStore(host, port, world_size, is_master=(rank == 0 and not agent), timeout=timeout)
    elif scheme == "file":
        store = FileStore(host, world_size)
    else:
        raise ValueError(f"Unsupported init_method {init_method!r}: use env://, tcp:// or file://")
    return store, rank, world_size


def _wait(test, deadline: float, what: str, rank: int) -> None:
    pause = 0.001
    while not test():
        if time.monotonic() > deadline:
            raise DistBackendError(f"init_process_group on rank {rank}: timed out waiting for {what}")
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _fence(comm, timeout: float, rank: int) -> None:
    """A barrier polled against the timeout before a blocking call every rank must join."""
    request = comm.Ibarrier()
    _wait(request.Test, time.monotonic() + timeout, "every process of the MPI launch to call "
          "init_process_group", rank)


def world_communicator(store, rank: int, world_size: int, timeout: float, generation: int):
    """An MPI communicator of ``world_size`` processes where this process has rank ``rank``."""
    MPI = _mpi.load()
    local = MPI.COMM_WORLD
    if local.Get_size() == world_size:
        _fence(local, timeout, rank)
        return local.Split(0, rank)
    if world_size % local.Get_size() or store is None:
        raise ValueError(f"init_process_group: world_size={world_size} does not match the MPI launch "
                         f"({local.Get_size()} processes started by one mpiexec) and no store was given to join "
                         "several launches")
    deadline = time.monotonic() + timeout
    prefix = f"ember_mpi/{generation}"
    jobs = world_size // local.Get_size()
    leads = local.allreduce(rank, op=MPI.MIN) == 0  # this launch holds global rank 0: it accepts
    is_root = local.Get_rank() == 0
    port = ""
    if leads and is_root:
        port = MPI.Open_port()
        store.set(f"{prefix}/port", port)
        _wait(lambda: int(store.add(f"{prefix}/arrived", 0)) == jobs - 1, deadline,
              f"{jobs - 1} other launches to join (arrived: {store.add(f'{prefix}/arrived', 0)})", rank)
    comm = local
    if not leads:
        if is_root:
            _wait(lambda: store.check([f"{prefix}/port"]), deadline, "rank 0 to publish its MPI port", rank)
            port = store.get(f"{prefix}/port").decode()
            store.add(f"{prefix}/arrived", 1)
        comm = local.Connect(port, MPI.INFO_NULL, 0).Merge(high=True)
    while comm.Get_size() < world_size:
        comm = comm.Accept(port if comm.Get_rank() == 0 else "", MPI.INFO_NULL, 0).Merge(high=False)
    world = comm.Split(0, rank)
    if leads and is_root:
        MPI.Close_port(port)
    return world
