"""``save`` / ``load`` in PyTorch's own checkpoint format, safe by default, never half-written (L3).

The file is torch's zip archive: ``<name>/data.pkl`` (pickle protocol 2 of the object, each storage a
persistent id ``('storage', torch.FloatStorage, key, location, numel)``), one stored (uncompressed,
64-byte aligned) record ``<name>/data/<key>`` of raw little-endian bytes per storage, and the
``byteorder`` / ``version`` records. Real PyTorch reads ember's files (ember names are written as
``torch.X``) and ember reads PyTorch's, including the legacy non-zip format.

Speed: each storage is written once, straight from its NumPy buffer; its CRC-32 (which zip readers
and ``load(check_crc=True)`` verify) is computed in a worker thread ahead of the writes, and a save
to a path fsyncs once, at the end. ``load`` reads each record straight into the storage's buffer
and, like ``torch.load``, checks structure and sizes but not CRC-32s unless asked.

``load`` uses a restricted unpickler by default (``weights_only=True``): only tensors, storages,
dtypes, OrderedDict and plain containers/numbers/strings, plus classes approved with
``add_safe_globals``. ``weights_only=False`` runs arbitrary pickled code: use it only for files you
trust.

Example:
    >>> import io, ember
    >>> x = ember.arange(6.).view(2, 3)
    >>> buf = io.BytesIO()
    >>> ember.save({"x": x, "row": x[1]}, buf)
    >>> _ = buf.seek(0)
    >>> d = ember.load(buf)
    >>> d["row"].storage_offset(), d["row"].untyped_storage() is d["x"].untyped_storage()
    (3, True)
"""
from __future__ import annotations

import io
import os
import pickle
import random as _random
import struct
import sys

import numpy as np

from ._serialization._load import (
    MAGIC_NUMBER,
    PROTOCOL_VERSION,
    LoadEndianness,
    get_default_load_endianness,
    load,
    set_default_load_endianness,
)
from ._serialization._names import (
    STORAGE_TYPES,
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
    to_torch_name,
)
from ._serialization._zipwrite import ZipWriter, crc_async
from ._storage import UntypedStorage
from ._tensor_pickle import TypedStorage
from ._dtype import complex32 as _complex32
from ._serialization._names import UntypedStorage as _UntypedStorageType

__all__ = [
    "DEFAULT_PROTOCOL",
    "LoadEndianness",
    "add_safe_globals",
    "clear_safe_globals",
    "get_crc32_options",
    "get_default_load_endianness",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
    "set_crc32_options",
    "set_default_load_endianness",
]

DEFAULT_PROTOCOL = 2
_ALIGN = 64
_compute_crc32 = True


# ------------------------------------------------------------------------------------------ save
class _Pickler(pickle.Pickler):
    """Pickles storages as persistent ids (their bytes go to separate records) and dtypes by name."""

    def __init__(self, file, protocol, legacy=False):
        super().__init__(file, protocol)
        self.storages = {}  # id(untyped) -> (key, untyped, dtype)
        self.legacy = legacy

    def persistent_id(self, obj):
        if type(obj) is TypedStorage:
            st, dt = obj._untyped_storage, obj.dtype
            rec = self.storages.get(id(st))
            if rec is None:
                key = str(id(st)) if self.legacy else str(len(self.storages))
                rec = self.storages[id(st)] = (key, st, dt)
            elif rec[2] is not dt:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same data "
                                   "as different types")
            loc = "meta" if st._bytes is None else "cpu"
            if dt is _complex32:  # no typed storage class: torch names the untyped one, in bytes
                pid = ("storage", _UntypedStorageType, rec[0], loc, st.nbytes())
            else:
                pid = ("storage", STORAGE_TYPES[dt], rec[0], loc, st.nbytes() // dt.itemsize)
            return pid + (None,) if self.legacy else pid
        return None

    def reducer_override(self, obj):
        from . import _dtype as D
        if type(obj) is D.dtype:
            return obj.name  # a module global of ember._dtype, renamed to torch.<name> below
        return NotImplemented


def _rename_globals(data: bytes) -> bytes:
    """Rewrite GLOBAL opcodes naming ``ember.X`` as ``torch.X`` so PyTorch can read the pickle."""
    if b"ember" not in data:
        return data
    import pickletools
    out, last = [], 0
    ops = list(pickletools.genops(data))
    for i, (op, arg, pos) in enumerate(ops):
        if op.name == "GLOBAL" and arg.startswith("ember"):
            module, name = arg.split(" ", 1)
            tm, tn = to_torch_name(module, name)
            end = ops[i + 1][2]
            out += [data[last:pos], b"c" + f"{tm}\n{tn}\n".encode()]
            last = end
    out.append(data[last:])
    return b"".join(out)


def _pickle(obj, protocol, legacy=False):
    buf = io.BytesIO()
    p = _Pickler(buf, protocol, legacy)
    p.dump(obj)
    data = buf.getvalue()
    return (_rename_globals(data) if protocol < 4 else data), p.storages


def _storage_bytes(st: UntypedStorage):
    b = st._bytes
    if b is None:
        return memoryview(b"")
    if not b.flags.c_contiguous:
        b = np.ascontiguousarray(b)
    if sys.byteorder != "little":
        raise RuntimeError("saving from a big-endian machine is not supported")
    return memoryview(b).cast("B")


def _write_zip(obj, fh, archive: str, protocol: int, byteorder: bool = True) -> None:
    data, storages = _pickle(obj, protocol)
    blobs = [(f"{archive}/data/{key}", _storage_bytes(st)) for key, st, _ in storages.values()
             if st._bytes is not None]
    # all CRC-32s are queued now: the worker thread computes them ahead of the writes below
    crcs = [crc_async(b, _compute_crc32) for _, b in blobs]
    zw = ZipWriter(fh, _ALIGN)
    zw.write_record(f"{archive}/data.pkl", data)
    zw.write_record(f"{archive}/.format_version", b"1")
    zw.write_record(f"{archive}/.storage_alignment", b"64")
    if byteorder:
        zw.write_record(f"{archive}/byteorder", b"little")
    for (rec, b), crc in zip(blobs, crcs):
        zw.write_record(rec, b, crc)
    zw.write_record(f"{archive}/version", b"3\n")
    sid = "".join(_random.choice("0123456789") for _ in range(40))
    zw.write_record(f"{archive}/.data/serialization_id", sid.encode())
    zw.close()


def get_crc32_options() -> bool:
    """Whether ``save`` computes each record's CRC-32 (default True; ``load`` checks it on request)."""
    return _compute_crc32


def set_crc32_options(compute_crc32: bool) -> None:
    """Set whether ``save`` computes CRC-32s; without them zip tools complain but ``load`` works."""
    global _compute_crc32
    _compute_crc32 = bool(compute_crc32)


def _write_legacy(obj, fh, protocol: int) -> None:
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": True,
                "type_sizes": {"short": 2, "int": 4, "long": 4}}
    for v in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
        pickle.dump(v, fh, protocol=protocol)
    data, storages = _pickle(obj, protocol, legacy=True)
    fh.write(data)
    recs = sorted(storages.values(), key=lambda r: r[0])
    pickle.dump([r[0] for r in recs], fh, protocol=protocol)
    for _, st, dt in recs:
        fh.write(struct.pack("<q", st.nbytes() // dt.itemsize))
        fh.write(_storage_bytes(st))


def save(obj, f, pickle_module=None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` (tensors, state dicts, containers, modules) to a path or binary file in torch's format.

    A path is written atomically: into a temporary file in the same directory, flushed, fsynced and
    renamed over the target, so a crash never leaves a half-written checkpoint under the real name.
    Tensors that share a storage (a tensor and its views) are written once and load as views.

    Example:
        >>> import io, ember
        >>> buf = io.BytesIO()
        >>> ember.save({"w": ember.ones(2, 3)}, buf)
        >>> buf.getvalue()[:2]
        b'PK'
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("ember.save supports only the standard pickle module")

    def write(fh, archive):
        if _use_new_zipfile_serialization:
            _write_zip(obj, fh, archive, pickle_protocol, not _disable_byteorder_record)
        else:
            _write_legacy(obj, fh, pickle_protocol)

    if isinstance(f, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(f))
        _atomic_write(path, lambda fh: write(fh, _archive_name(path)))
    else:
        write(f, "archive")


def _archive_name(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem if stem and stem.isascii() and "/" not in stem else "archive"


def _atomic_write(path: str, write) -> None:
    import tempfile
    d, base = os.path.split(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        _set_mode(tmp, path)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def _set_mode(tmp: str, path: str) -> None:
    # mkstemp creates 0600; give the checkpoint the mode a plain open() would (or the old file's)
    try:
        mode = os.stat(path).st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)

