"""Shared-memory transport for DataLoader batches (layer L5).

A worker stacks a batch straight into a file in ``/dev/shm`` that it maps; pickling such a tensor sends
only the file's name, offset, shape and strides. The main process maps the file; the memory lives as
long as the tensors viewing it (the mapping is the NumPy buffer's base, which the tensor's storage owns).
When the main process's mapping dies, the file's name goes back to its worker with the next index
batch, and the worker reuses the file (already mapped, its pages already present) for a later batch of
the same size: a fresh file costs ~1 ms of page zeroing and faults per 1.5 MB batch, more than the
batch's own copy. A worker reuses a file only once every mapping of it it sent was given back and no
array of its own views it. Files carry the loader's token in their name: the main process removes
them all when the loader shuts down (also what a dead or interrupted worker left behind), and a worker
whose parent died removes its own.
"""
from __future__ import annotations

import glob
import io
import itertools
import mmap
import os
import pickle
import sys
import tempfile
from collections import deque

import numpy as np

from .... import _dtype as D
from ...._dispatch import wrap
from ...._storage import root_array
from ...._tensor import Tensor

__all__ = ["empty_shared", "dumps", "loads", "cleanup", "SHARE_THRESHOLD", "track", "untrack", "take_returned",
           "release"]

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


# worker side: the files this worker made and keeps mapped, how many mappings of each the main process
# may still hold, and those given back (reusable); at most MAX_FREE are kept, older ones are removed
_segments: dict = {}
_sent: dict = {}
_free: list = []
MAX_FREE = 4


def empty_shared(shape, np_dtype) -> np.ndarray:
    """An uninitialised array backed by a shared file, a given-back one of the same size when there is
    one (plain memory outside workers)."""
    np_dtype = np.dtype(np_dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * np_dtype.itemsize
    if _token is None or nbytes == 0:
        return np.empty(shape, np_dtype)
    seg = _reusable(nbytes)
    if seg is None:
        seg = _create(nbytes)
    return np.ndarray(shape, np_dtype, buffer=seg)


def _reusable(nbytes):
    for i, name in enumerate(_free):
        seg = _segments[name]
        # references: _segments, this frame, getrefcount's argument; more = a worker array views it
        if len(seg) == nbytes and sys.getrefcount(seg) == 3:
            del _free[i]
            return seg
    return None


def _create(nbytes):
    name = f"{PREFIX}{_token}_{os.getpid()}_{next(_counter)}"
    fd = os.open(os.path.join(SHM_DIR, name), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, nbytes)
        # pre-fault the fresh pages in one call rather than one fault per page while stacking
        seg = _Segment(fd, nbytes, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0))
    finally:
        os.close(fd)
    seg.name = name
    seg.addr = np.frombuffer(seg, np.uint8, 1).__array_interface__["data"][0]
    _segments[name] = seg
    return seg


def release(names) -> None:
    """Worker side: the main process's mappings of ``names`` died (one name per mapping)."""
    for name in names:
        left = _sent.get(name, 0) - 1
        if left > 0:
            _sent[name] = left
            continue
        _sent.pop(name, None)
        if name in _segments:
            _free.append(name)
    while len(_free) > MAX_FREE:
        _drop(_free.pop(0))


def _drop(name) -> None:
    _segments.pop(name, None)  # the mapping closes once no array views it
    try:
        os.unlink(os.path.join(SHM_DIR, name))
    except OSError:
        pass


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
        if seg.name not in self.names:  # the main process maps each file once per message
            self.names.add(seg.name)
            _sent[seg.name] = _sent.get(seg.name, 0) + 1
        offset = a.__array_interface__["data"][0] - seg.addr
        return (_rebuild_shared, (seg.name, len(seg), a.dtype.str, a.shape, a.strides, offset,
                                  obj.dtype.name, obj.requires_grad and obj.is_leaf))


def dumps(obj) -> bytes:
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle.HIGHEST_PROTOCOL)
    pickler.names = set()
    pickler.dump(obj)
    return buf.getvalue()


_maps = None  # name -> mmap while one message is unpickled: views of one file share one map

# main side: owner ("<token>_<worker pid>") -> names of its files whose mapping here died, to give back
_returned: dict = {}


class _Mapped(mmap.mmap):
    """The main process's mapping of a worker's file: its death gives the file back to the worker."""

    def __del__(self):
        returned = _returned  # (None once the interpreter tears this module down)
        names = returned.get(self.owner) if returned else None
        if names is not None:
            names.append(self.name)


def track(owner: str) -> None:
    """Main side: collect given-back files of ``owner`` (a worker: ``<token>_<pid>``)."""
    _returned[owner] = deque()


def untrack(owner: str) -> None:
    _returned.pop(owner, None)


def take_returned(owner: str) -> list:
    """Main side: the names of ``owner``'s files given back since the last call (for its next task)."""
    names = _returned.get(owner)
    out = []
    while names:  # popleft, not a swap: a mapping may die (and append) in another thread meanwhile
        out.append(names.popleft())
    return out


def _rebuild_shared(name, nbytes, np_dtype, shape, strides, offset, dtype_name, requires_grad):
    seg = _maps.get(name) if _maps is not None else None
    if seg is None:
        fd = os.open(os.path.join(SHM_DIR, name), os.O_RDWR)
        try:
            seg = _Mapped(fd, nbytes)
        finally:
            os.close(fd)
        seg.name, seg.owner = name, name[len(PREFIX):].rsplit("_", 1)[0]
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
