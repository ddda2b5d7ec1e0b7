"""Tensor collectives and point-to-point ops with torch's signatures.

Each returns a ``Work`` with ``async_op=True`` and None otherwise (after waiting, which raises
``DistBackendError`` when the group's timeout passes). ``src``/``dst`` are global ranks;
``group_src``/``group_dst`` name a rank within ``group``. A rank outside ``group`` skips the call.

Example (needs a process group; see ``ember.distributed``)::

    t = ember.ones(4) * (dist.get_rank() + 1)
    dist.all_reduce(t, op=dist.ReduceOp.SUM)        # every rank: 1 + 2 + ... + world_size
"""
from __future__ import annotations

import warnings

from .._tensor import Tensor
from ._process_group import check_reduce_op
from ._reduce_op import ReduceOp
from ._world import group_rank_of, not_member, resolve

__all__ = ["all_reduce", "broadcast", "reduce", "all_gather", "all_gather_single", "all_gather_into_tensor",
           "reduce_scatter", "reduce_scatter_single", "reduce_scatter_tensor", "gather", "scatter",
           "all_to_all", "all_to_all_single", "send", "recv", "isend", "irecv", "P2POp",
           "batch_isend_irecv", "barrier", "monitored_barrier"]


def _check_tensor(t, name: str) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def _check_list(ts, name: str) -> None:
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} instead.")


def _same_dtype(name: str, *tensors) -> None:
    dtypes = {t.dtype for t in tensors}
    if len(dtypes) > 1:
        raise ValueError(f"{name}: tensors must all have the same type, got {sorted(map(str, dtypes))}")


def _finish(work, async_op: bool):
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over ``group`` in place on every rank."""
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "all_reduce"):
        return None
    check_reduce_op("all_reduce", op, tensor.dtype)
    return _finish(pg.allreduce([tensor], op), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy ``tensor`` from rank ``src`` to every rank of ``group``."""
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "broadcast"):
        return None
    return _finish(pg.broadcast([tensor], group_rank_of(pg, src, group_src, "src")), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` over ``group`` into rank ``dst``'s ``tensor``."""
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "reduce"):
        return None
    check_reduce_op("reduce", op, tensor.dtype)
    return _finish(pg.reduce([tensor], group_rank_of(pg, dst, group_dst, "dst"), op), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """``tensor_list[i]`` receives rank i's ``tensor`` (the list has one tensor per rank of the group)."""
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "all_gather"):
        return None
    _same_dtype("all_gather", tensor, *tensor_list)
    if len(tensor_list) != pg.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors, the group has {pg.size()} ranks")
    return _finish(pg.allgather(list(tensor_list), tensor), async_op)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Gather every rank's ``input_tensor`` into ``output_tensor`` (``world_size`` times larger, rank order)."""
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = resolve(group)
    if not_member(pg, "all_gather_single"):
        return None
    _same_dtype("all_gather_single", output_tensor, input_tensor)
    return _finish(pg.allgather_into(output_tensor, input_tensor), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Deprecated name of ``all_gather_single``."""
    warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list[i]`` over the group into rank i's ``output``."""
    _check_tensor(output, "output")
    _check_list(input_list, "input_list")
    pg = resolve(group)
    if not_member(pg, "reduce_scatter"):
        return None
    check_reduce_op("reduce_scatter", op, output.dtype)
    _same_dtype("reduce_scatter", output, *input_list)
    if len(input_list) != pg.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors, the group has {pg.size()} ranks")
    return _finish(pg.reduce_scatter(output, list(input_list), op), async_op)


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` (``world_size`` equal chunks) over the group; rank i gets chunk i in ``output``."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = resolve(group)
    if not_member(pg, "reduce_scatter_single"):
        return None
    check_reduce_op("reduce_scatter_single", op, output.dtype)
    _same_dtype("reduce_scatter_single", output, input)
    return _finish(pg.reduce_scatter_single(output, input, op), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Deprecated name of ``reduce_scatter_single``."""
    warnings.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                  "`torch.distributed.reduce_scatter_single` instead.", FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def _check_root_list(op, arg, role, pg, root, tensor, tensors):
    """gather/scatter: the root passes one tensor per rank of ``tensor``'s dtype; others pass none."""
    if pg.rank() == root:
        _check_list(tensors, arg)
        if len(tensors) != pg.size():
            raise ValueError(f"{op}: {arg} has {len(tensors)} tensors, the group has {pg.size()} ranks")
        _same_dtype(op, tensor, *tensors)
    elif tensors:
        raise ValueError(f"Argument ``{arg}`` must NOT be specified on non-{role} ranks.")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Rank ``dst`` receives every rank's ``tensor`` in ``gather_list`` (None elsewhere)."""
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "gather"):
        return None
    root = group_rank_of(pg, dst, group_dst, "dst")
    _check_root_list("gather", "gather_list", "destination", pg, root, tensor, gather_list)
    return _finish(pg.gather(list(gather_list or []), tensor, root), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank i receives ``scatter_list[i]`` of rank ``src`` in ``tensor``."""
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "scatter"):
        return None
    root = group_rank_of(pg, src, group_src, "src")
    _check_root_list("scatter", "scatter_list", "source", pg, root, tensor, scatter_list)
    return _finish(pg.scatter(tensor, list(scatter_list or []), root), async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank i sends ``input_tensor_list[j]`` to rank j, which receives it in ``output_tensor_list[i]``."""
    _check_list(output_tensor_list, "output_tensor_list")
    _check_list(input_tensor_list, "input_tensor_list")
    pg = resolve(group)
    if not_member(pg, "all_to_all"):
        return None
    _same_dtype("all_to_all", *output_tensor_list, *input_tensor_list)
    return _finish(pg.alltoall(list(output_tensor_list), list(input_tensor_list)), async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """``all_to_all`` on dim 0 of one tensor (equal chunks, or the given split sizes)."""
    _check_tensor(output, "output")
    _check_tensor(input, "input")
    pg = resolve(group)
    if not_member(pg, "all_to_all_single"):
        return None
    _same_dtype("all_to_all_single", output, input)
    return _finish(pg.alltoall_single(output, input, output_split_sizes, input_split_sizes), async_op)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to ``dst`` without waiting; returns the Work."""
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "isend"):
        return None
    peer = group_rank_of(pg, dst, group_dst, "dst")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of "
                         "the current process.")
    return pg.send([tensor], peer, tag)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from ``src`` (None: any rank) without waiting; returns the Work."""
    _check_tensor(tensor, "tensor")
    pg = resolve(group)
    if not_member(pg, "irecv"):
        return None
    peer = None if src is None and group_src is None else group_rank_of(pg, src, group_src, "src")
    return pg.recv([tensor], peer, tag)


def send(tensor, dst=None, group=None, tag=0, group_dst=None) -> None:
    """Send ``tensor`` to rank ``dst`` and wait until the send buffer is free."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None) -> int:
    """Receive into ``tensor`` from ``src`` (None: any rank); returns the sender's global rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work.source_rank()


class P2POp:
    """One point-to-point op for ``batch_isend_irecv``: ``P2POp(dist.isend, tensor, peer)``."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        _check_tensor(tensor, "tensor")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, group_peer

    def __repr__(self) -> str:
        return f"P2POp(op={self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list) -> list:
    """Issue every op of the list; returns their Works (wait on each)."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of ``group`` reaches the barrier."""
    pg = resolve(group)
    if not_member(pg, "barrier"):
        return None
    return _finish(pg.barrier(), async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False) -> None:
    """A barrier that names the ranks that did not reach it within ``timeout`` (rank 0 raises)."""
    import numpy as np
    from datetime import timedelta

    from .._creation import from_numpy
    pg = resolve(group)
    if not_member(pg, "monitored_barrier"):
        return None
    seconds = pg._timeout if timeout is None else timeout.total_seconds()
    token = from_numpy(np.zeros(1, np.uint8))
    if pg.rank() != 0:
        pg.send([token], 0, tag=0x7ead).wait(timedelta(seconds=seconds))
        pg.recv([token], 0, tag=0x7eae).wait(timedelta(seconds=seconds))
        return None
    import time
    deadline = time.monotonic() + seconds
    works = {r: pg.recv([from_numpy(np.zeros(1, np.uint8))], r, tag=0x7ead) for r in range(1, pg.size())}
    missing = []
    for r, work in works.items():
        left = max(deadline - time.monotonic(), 0.0)
        try:
            work.wait(timedelta(seconds=left))
        except RuntimeError:
            missing.append(pg._ranks[r])
            if not wait_all_ranks:
                break
    if missing:
        which = (f"Ranks {', '.join(map(str, missing))} failed" if wait_all_ranks
                 else f"Rank {missing[0]} failed")
        raise RuntimeError(f"{which} to pass monitoredBarrier in {int(seconds * 1000)} ms")
    for r in range(1, pg.size()):
        pg.send([token], r, tag=0x7eae).wait()
    return None
