"""Process groups: ``init_process_group``, ``new_group``, ranks and sizes, ``destroy_process_group``.

Every backend ember accepts ("gloo", "mpi", or none) runs on one MPI communicator (mpi4py on
MPICH); "nccl" and other GPU backends raise torch's error on a machine without them. The
collectives themselves live in ``_collectives`` and ``_object_collectives`` and are re-exported here
under torch's module path.

Example (a one-process world; real ones come from torchrun, ``spawn`` or ``mpiexec``)::

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    dist.get_rank(), dist.get_world_size(), dist.get_backend()    # (0, 1, 'gloo')
    dist.destroy_process_group()
"""
from __future__ import annotations

import importlib.util
import os
from datetime import timedelta

from . import _mpi
from ._collectives import *  # noqa: F401,F403 - torch.distributed.distributed_c10d's namespace
from ._collectives import __all__ as _collective_names
from ._object_collectives import *  # noqa: F401,F403
from ._object_collectives import __all__ as _object_names
from ._process_group import ProcessGroup
from ._reduce_op import Backend, ReduceOp
from ._world import GroupMember, default_group, group, resolve, state
from .rendezvous import rendezvous, world_communicator

__all__ = ["is_available", "is_initialized", "is_mpi_available", "is_gloo_available", "is_nccl_available",
           "is_ucc_available", "is_xccl_available", "is_backend_available", "is_torchelastic_launched",
           "init_process_group", "destroy_process_group", "new_group", "get_rank", "get_world_size",
           "get_backend", "get_group_rank", "get_global_rank", "get_process_group_ranks", "get_pg_count",
           "get_node_local_rank", "GroupMember", "group", "ProcessGroup", "ReduceOp", "Backend",
           "default_pg_timeout", *_collective_names, *_object_names]

default_pg_timeout = timedelta(minutes=30)
_CPU_BACKENDS = ("gloo", "mpi", "undefined")


def is_available() -> bool:
    """True when mpi4py is installed; checking does not initialise MPI."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    return is_available()


def is_gloo_available() -> bool:
    """ember accepts ``backend="gloo"`` and runs it on MPI."""
    return is_available()


def is_nccl_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_xccl_available() -> bool:
    return False


def is_backend_available(backend: str) -> bool:
    return str(backend).lower() in ("gloo", "mpi") and is_available()


def is_torchelastic_launched() -> bool:
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    return state.default_pg is not None


def _backend_name(backend) -> str:
    if backend is None:
        return "undefined"
    name = str(backend).lower()
    for part in name.split(","):  # "cpu:gloo,cuda:nccl"
        device, _, kind = part.rpartition(":")
        if kind == "nccl" and device in ("", "cuda"):
            if device == "cuda":
                continue  # the cuda half of a device map is unused without GPUs
            raise RuntimeError("Distributed package doesn't have NCCL built in")
        if kind in ("ucc", "xccl"):
            raise RuntimeError(f"Distributed package doesn't have {kind.upper()} built in")
        if kind not in _CPU_BACKENDS:
            raise AssertionError(f"Unknown backend type {backend}; available backends: gloo, mpi (both on MPI)")
    return name


def init_process_group(backend=None, init_method=None, timeout=None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the default process group (see ``rendezvous`` for how processes find each other).

    Args:
        backend: "gloo", "mpi" or None (all run on MPI); init_method: env:// (default), tcp://, file://;
        timeout: how long a collective may wait (default 30 minutes); world_size, rank: as torch;
        store: a key-value store to rendezvous through (instead of init_method).
    """
    if state.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = _backend_name(backend)
    if store is not None:
        if init_method is not None:
            raise AssertionError("Cannot specify both init_method and store.")
        if world_size <= 0:
            raise AssertionError("world_size must be positive if using store")
        if rank < 0:
            raise AssertionError("rank must be non-negative if using store")
    timeout = default_pg_timeout if timeout is None else timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    state.inits += 1
    if store is None:
        store, rank, world_size = rendezvous(init_method, rank, world_size, timeout)
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for world_size {world_size}")
    comm = world_communicator(store, rank, world_size, timeout.total_seconds(), state.inits)
    pg = ProcessGroup(comm, list(range(world_size)), name, timeout.total_seconds())
    state.default_pg, state.store, state.backend, state.groups = pg, store, name, [pg]
    pg.barrier().wait()  # every rank is connected before anyone returns


def destroy_process_group(group=None) -> None:
    """Drop ``group`` (default: every group, leaving ember uninitialised)."""
    if group is None or group is state.default_pg:
        default_group()
        for pg in state.groups:
            _free(pg)
        state.default_pg, state.store, state.backend, state.groups = None, None, None, []
        return
    if group in state.groups:
        state.groups.remove(group)
        _free(group)


def _free(pg: ProcessGroup) -> None:
    if pg._broken is None and not _mpi.load().Is_finalized():
        pg._progress()
        if not pg._pending:
            pg._comm.Free()
            if pg._ring_comm is not None:
                pg._ring_comm.Free()


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (-1 outside it)."""
    pg = resolve(group)
    return -1 if pg == GroupMember.NON_GROUP_MEMBER else pg._global_rank if group is None else pg.rank()


def get_world_size(group=None) -> int:
    """The number of ranks in ``group`` (-1 outside it)."""
    pg = resolve(group)
    return -1 if pg == GroupMember.NON_GROUP_MEMBER else pg.size()


def get_backend(group=None) -> Backend:
    """The backend name the group was created with ("gloo", "mpi", or "undefined" when none was given)."""
    pg = resolve(group)
    if pg == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return Backend(pg._backend)


def get_backend_config(group=None) -> str:
    name = get_backend(group)
    return "cpu:gloo" if name == "undefined" else f"cpu:{name}"


def get_process_group_ranks(group) -> list:
    """The global ranks of ``group``, in group-rank order."""
    return list(resolve(group)._ranks)


def get_global_rank(group, group_rank: int) -> int:
    ranks = resolve(group)._ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    ranks = resolve(group)._ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def get_pg_count() -> int:
    return len(state.groups)


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization: bool = False,
              group_desc=None, device_id=None, sort_ranks: bool = True):
    """A group of the given global ranks; every rank of the world must call it (non-members get
    ``GroupMember.NON_GROUP_MEMBER``)."""
    world = default_group()
    members = list(range(world.size())) if ranks is None else list(ranks)
    if sort_ranks:
        members = sorted(members)
    if len(set(members)) != len(members) or any(not 0 <= r < world.size() for r in members):
        raise ValueError(f"new_group: ranks must be distinct ranks of the world (size {world.size()}), got {ranks}")
    seconds = world._timeout if timeout is None else timeout.total_seconds()
    world.fence("new_group")  # MPI_Comm_split blocks: make sure every rank arrived, within the timeout
    MPI = _mpi.load()
    me = world.rank()
    color = 0 if me in members else MPI.UNDEFINED
    comm = world._comm.Split(color, members.index(me) if me in members else 0)
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, members, state.backend if backend is None else _backend_name(backend), seconds,
                      global_rank=me)
    state.groups.append(pg)
    return pg
