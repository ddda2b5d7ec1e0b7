"""Shared-memory transport for DataLoader batches (layer L5).

A worker stacks a batch straight into a file in ``/dev/shm`` that it maps; pickling such a tensor sends
only the file's name, offset, shape and strides. The main process maps the file and unlinks it at once,
so the memory lives exactly as long as the tensors viewing it (the mapping is the NumPy buffer's base,
which the tensor's storage owns). Files carry the loader's token in their name: the main process removes
whatever a dead or interrupted worker left behind, and a worker whose parent died removes its own.
"""
from __future__ import annotations

import glob
import io
import itertools
import mmap
import os
import pickle
import tempfile

import numpy as np

from .... import _dtype as D
from ...._dispatch import wrap
from ...._storage import root_array
from ...._tensor import Tensor

__all__ = ["empty_shared", "dumps", "loads", "cleanup", "SHARE_THRESHOLD"]

PREFIX = "ember_dl_"
SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
# below this a tensor is cheaper to pickle than to map (a map costs a handful of syscalls per side)
SHARE_THRESHOLD = 32 * 1024

_counter = itertools.count()
_token = None  # set in a worker: names this loader's files so the main process can sweep them


class _Segment(mmap.mmap):
    """A mapped shared file that remembers its name and base address."""


def set_token(token: str) -> None:
    global _token
    _token = token


def empty_shared(shape, np_dtype) -> np.ndarray:
    """An uninitialised array backed by a fresh shared file (plain memory outside workers)."""
    np_dtype = np.dtype(np_dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * np_dtype.itemsize
    if _token is None or nbytes == 0:
        return np.empty(shape, np_dtype)
    name = f"{PREFIX}{_token}_{os.getpid()}_{next(_counter)}"
    fd = os.open(os.path.join(SHM_DIR, name), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, nbytes)
        # pre-fault the fresh pages in one call rather than one fault per page while stacking
        seg = _Segment(fd, nbytes, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0))
    finally:
        os.close(fd)
    arr = np.ndarray(shape, np_dtype, buffer=seg)
    seg.name, seg.addr = name, arr.__array_interface__["data"][0]
    return arr


def _share(t: Tensor):
    """(segment, array) for a tensor living in a shared file, copying it into one if it is large."""
    a = t._data
    seg = root_array(a).base
    if isinstance(seg, _Segment):
        return seg, a
    if a.nbytes < SHARE_THRESHOLD or _token is None:
        return None, a
    out = empty_shared(a.shape, a.dtype)
    np.copyto(out, a)
    return out.base, out


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if type(obj) is not Tensor or obj._data is None:
            return NotImplemented
        seg, a = _share(obj)
        if seg is None:
            return NotImplemented
        offset = a.__array_interface__["data"][0] - seg.addr
        return (_rebuild_shared, (seg.name, len(seg), a.dtype.str, a.shape, a.strides, offset,
                                  obj.dtype.name, obj.requires_grad and obj.is_leaf))


def dumps(obj) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


_maps = None  # name -> mmap while one message is unpickled: views of one file share one map


def _rebuild_shared(name, nbytes, np_dtype, shape, strides, offset, dtype_name, requires_grad):
    seg = _maps.get(name) if _maps is not None else None
    if seg is None:
        path = os.path.join(SHM_DIR, name)
        fd = os.open(path, os.O_RDWR)
        try:
            seg = mmap.mmap(fd, nbytes)
        finally:
            os.close(fd)
            os.unlink(path)
        if _maps is not None:
            _maps[name] = seg
    arr = np.ndarray(shape, np.dtype(np_dtype), buffer=seg, offset=offset, strides=strides)
    t = wrap(arr, D._dtype_by_name(dtype_name))
    if requires_grad:
        t.requires_grad_(True)
    return t


def loads(data: bytes):
    global _maps
    _maps = {}
    try:
        return pickle.loads(data)
    finally:
        _maps = None


def cleanup(token: str) -> None:
    """Remove every shared file this loader's workers made that nobody mapped yet."""
    for path in glob.glob(os.path.join(SHM_DIR, f"{PREFIX}{token}_*")):
        try:
            os.unlink(path)
        except OSError:
            pass
