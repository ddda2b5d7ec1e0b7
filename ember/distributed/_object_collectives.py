"""Collectives of picklable Python objects: sizes travel first, then the pickled bytes.

Example (needs a process group)::

    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, {"rank": dist.get_rank()})   # out[i] == {"rank": i} on every rank
"""
from __future__ import annotations

import io
import pickle

import numpy as np

from .._creation import from_numpy
from ._world import group_rank_of, not_member, resolve

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list",
           "send_object_list", "recv_object_list"]


def _to_bytes(obj) -> np.ndarray:
    buffer = io.BytesIO()
    pickle.Pickler(buffer).dump(obj)
    return np.frombuffer(buffer.getvalue(), dtype=np.uint8).copy()


def _from_bytes(data: np.ndarray):
    return pickle.loads(data.tobytes())


def _sizes(arrays) -> "np.ndarray":
    return np.array([a.size for a in arrays], dtype=np.int64)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None) -> None:
    """Replace ``object_list``'s items on every rank with those of rank ``src``."""
    pg = resolve(group)
    if not_member(pg, "broadcast_object_list"):
        return
    root = group_rank_of(pg, src, group_src, "src")
    mine = [_to_bytes(o) for o in object_list] if pg.rank() == root else []
    sizes = from_numpy(_sizes(mine) if mine else np.zeros(len(object_list), np.int64))
    pg.broadcast([sizes], root).wait()
    total = int(sizes._data.sum())
    payload = from_numpy(np.concatenate(mine) if mine and total else np.zeros(total, np.uint8))
    pg.broadcast([payload], root).wait()
    if pg.rank() != root:
        at = 0
        for i, n in enumerate(sizes._data.tolist()):
            object_list[i] = _from_bytes(payload._data[at:at + n])
            at += n


def all_gather_object(object_list, obj, group=None) -> None:
    """``object_list[i]`` becomes rank i's ``obj`` on every rank."""
    pg = resolve(group)
    if not_member(pg, "all_gather_object"):
        return
    data = _to_bytes(obj)
    sizes = [from_numpy(np.zeros(1, np.int64)) for _ in range(pg.size())]
    pg.allgather(sizes, from_numpy(np.array([data.size], np.int64))).wait()
    outs = [from_numpy(np.zeros(int(s._data[0]), np.uint8)) for s in sizes]
    pg.allgather(outs, from_numpy(data)).wait()
    for i, out in enumerate(outs):
        object_list[i] = _from_bytes(out._data)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None) -> None:
    """Rank ``dst``'s ``object_gather_list[i]`` becomes rank i's ``obj``."""
    pg = resolve(group)
    if not_member(pg, "gather_object"):
        return
    root = group_rank_of(pg, dst, group_dst, "dst")
    if pg.rank() == root and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank with one "
                         "entry per rank.")
    data = _to_bytes(obj)
    sizes = [from_numpy(np.zeros(1, np.int64)) for _ in range(pg.size())]
    pg.allgather(sizes, from_numpy(np.array([data.size], np.int64))).wait()
    outs = [from_numpy(np.zeros(int(s._data[0]), np.uint8)) for s in sizes]
    pg.gather(outs if pg.rank() == root else [], from_numpy(data), root).wait()
    if pg.rank() == root:
        for i, out in enumerate(outs):
            object_gather_list[i] = _from_bytes(out._data)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None) -> None:
    """``scatter_object_output_list[0]`` on rank i becomes ``scatter_object_input_list[i]`` of rank ``src``."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    pg = resolve(group)
    if not_member(pg, "scatter_object_list"):
        return
    root = group_rank_of(pg, src, group_src, "src")
    mine = [_to_bytes(o) for o in scatter_object_input_list] if pg.rank() == root else []
    sizes = from_numpy(_sizes(mine) if mine else np.zeros(pg.size(), np.int64))
    pg.broadcast([sizes], root).wait()
    out = from_numpy(np.zeros(int(sizes._data[pg.rank()]), np.uint8))
    pg.scatter(out, [from_numpy(m) for m in mine], root).wait()
    scatter_object_output_list[0] = _from_bytes(out._data)


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch=False) -> None:
    """Send the objects of ``object_list`` to rank ``dst`` (which calls ``recv_object_list``)."""
    pg = resolve(group)
    if not_member(pg, "send_object_list"):
        return
    peer = group_rank_of(pg, dst, group_dst, "dst")
    mine = [_to_bytes(o) for o in object_list]
    pg.send([from_numpy(_sizes(mine))], peer).wait()
    pg.send([from_numpy(np.concatenate(mine) if mine else np.zeros(0, np.uint8))], peer).wait()


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch=False) -> int:
    """Fill ``object_list`` with the objects rank ``src`` sent; returns the sender's rank."""
    pg = resolve(group)
    if not_member(pg, "recv_object_list"):
        return -1
    peer = group_rank_of(pg, src, group_src, "src") if src is not None or group_src is not None else None
    sizes = from_numpy(np.zeros(len(object_list), np.int64))
    work = pg.recv([sizes], peer)
    work.wait()
    sender = work._source
    payload = from_numpy(np.zeros(int(sizes._data.sum()), np.uint8))
    pg.recv([payload], sender).wait()
    at = 0
    for i, n in enumerate(sizes._data.tolist()):
        object_list[i] = _from_bytes(payload._data[at:at + n])
        at += n
    return pg._ranks[sender]
