"""``ember.distributed``: importable and truthful until the MPI backend lands.

``is_available()`` and ``is_initialized()`` are False; anything that needs a process group raises
a RuntimeError naming what is missing.

Example:
    >>> import ember
    >>> ember.distributed.is_available(), ember.distributed.is_initialized()
    (False, False)
"""
from __future__ import annotations

__all__ = ["is_available", "is_initialized", "is_mpi_available", "is_nccl_available",
           "is_gloo_available", "is_torchelastic_launched", "init_process_group",
           "destroy_process_group", "get_rank", "get_world_size", "barrier", "all_reduce",
           "all_gather", "broadcast", "reduce", "gather", "scatter", "new_group", "ReduceOp",
           "Backend", "DistributedNotAvailableError", "get_backend", "all_gather_object",
           "broadcast_object_list", "reduce_scatter", "all_to_all", "send", "recv", "GroupMember"]

MESSAGE = ("ember.distributed is not available: ember has no distributed backend yet (an MPI "
           "backend through mpi4py is planned). Run on a single process, or use torch for "
           "multi-process training.")


class DistributedNotAvailableError(RuntimeError):
    """Raised by every call that needs a process group."""


def _unavailable(*args, **kwargs):
    raise DistributedNotAvailableError(MESSAGE)


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_gloo_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return False


init_process_group = destroy_process_group = get_rank = get_world_size = barrier = _unavailable
all_reduce = all_gather = broadcast = reduce = gather = scatter = new_group = _unavailable
get_backend = all_gather_object = broadcast_object_list = reduce_scatter = all_to_all = _unavailable
send = recv = _unavailable


class ReduceOp:
    SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR, AVG = "sum", "product", "min", "max", "band", "bor", \
        "bxor", "avg"


class Backend(str):
    GLOO, NCCL, MPI, UCC = "gloo", "nccl", "mpi", "ucc"


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100
