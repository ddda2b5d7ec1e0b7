"""``load``: read torch's zip checkpoints and the legacy non-zip format (layer L3).

Every storage record is read once into one NumPy buffer (or mapped from the file with ``mmap=True``)
and every tensor naming that storage is built as a view over it, so sharing survives the round trip.
Damaged files raise a ``RuntimeError`` naming the file and what is wrong (truncated archive, missing
record, size mismatch, bad magic number, and a CRC-32 mismatch when asked for).

Checking choice: like ``torch.load``, storages are not CRC-checked by default, since that costs a
second pass over every byte. What is always checked is cheap and catches truncation and most
damage to the archive's structure: the central directory must be found, every record's local
header must match its directory entry (signature, name, method), its data must lie before the
central directory and read in full, and its size must be what the pickle expects. The pickle
record itself is small and always CRC-checked. ``load(..., check_crc=True)`` also verifies every
storage's CRC-32 (overlapped with reading, in a worker thread) and so catches flipped data bytes.
"""
from __future__ import annotations

import io
import mmap as _mmap
import os
import pickle
import struct
import warnings
import zipfile
import zlib

import numpy as np

from .._device import device as _device
from .._storage import UntypedStorage
from .._tensor_pickle import TypedStorage, storage_from_array
from ._names import FullUnpickler, RestrictedUnpickler, StorageType
from ._zipwrite import crc_async

__all__ = [
    "MAGIC_NUMBER",
    "PROTOCOL_VERSION",
    "LoadEndianness",
    "get_default_load_endianness",
    "load",
    "set_default_load_endianness",
]

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_ZIP_MAGIC = b"PK\x03\x04"


class LoadEndianness:
    NATIVE, LITTLE, BIG = 1, 2, 3


_load_endianness = None


def get_default_load_endianness():
    return _load_endianness


def set_default_load_endianness(endianness) -> None:
    global _load_endianness
    _load_endianness = endianness


class CheckpointError(RuntimeError):
    """A checkpoint file is damaged or is not a checkpoint."""


def _corrupt(name: str, what: str):
    return CheckpointError(f"{name}: {what}")


class _Locator:
    """Where each saved storage goes: ``map_location`` applied to its saved location."""

    def __init__(self, map_location, name: str):
        self.ml, self.name, self.warned = map_location, name, False
        if map_location is not None and not isinstance(map_location, (str, _device, dict)) \
                and not callable(map_location):
            raise TypeError(f"map_location should be a str, a device, a dict or a callable, not "
                            f"{type(map_location).__name__}")

    def target(self, location: str) -> str:
        ml = self.ml
        t = location
        if isinstance(ml, (str, _device)):
            t = str(ml)
        elif isinstance(ml, dict):
            t = str(ml.get(location, location))
        return self.check(t)

    def check(self, t: str) -> str:
        if t == "meta":
            return t
        if t != "cpu" and not t.startswith("cpu:") and not self.warned:
            warnings.warn(f"{self.name}: storages saved on '{t}' are loaded on 'cpu' because ember "
                          f"has no '{t.split(':')[0]}' backend; pass map_location='cpu' to "
                          "silence this warning", UserWarning, stacklevel=4)
            self.warned = True
        return "cpu"

    def apply_callable(self, st: UntypedStorage, location: str) -> UntypedStorage:
        res = self.ml(st, location)
        if res is None:
            return st
        if isinstance(res, TypedStorage):
            res = res._untyped_storage
        if not isinstance(res, UntypedStorage):
            raise TypeError(f"map_location returned {type(res).__name__}, expected a storage or None")
        return res


def _decode(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


def _check_pid(pid, name, n):
    if not isinstance(pid, tuple) or len(pid) < n or _decode(pid[0]) != "storage":
        raise pickle.UnpicklingError(f"{name}: unknown persistent id {pid!r:.200}")
    stype, key, location, numel = pid[1], _decode(pid[2]), _decode(pid[3]), pid[4]
    if not isinstance(stype, StorageType):
        raise pickle.UnpicklingError(f"{name}: a storage id names {stype!r:.100}, not a storage type")
    if not isinstance(key, str) or not isinstance(location, str) or type(numel) is not int or numel < 0:
        raise pickle.UnpicklingError(f"{name}: malformed storage id {pid!r:.200}")
    return stype.dtype, key, location, numel


def _run_unpickler(up, name: str, weights_only: bool):
    try:
        return up.load()
    except pickle.UnpicklingError:
        raise
    except CheckpointError:
        raise
    except (EOFError, struct.error) as e:
        raise _corrupt(name, f"the pickled object is truncated ({e or 'ran out of input'})") from None
    except Exception as e:
        if weights_only:  # a refused or malformed call inside the pickle: never run anything else
            raise pickle.UnpicklingError(f"Weights only load failed. {name}: {type(e).__name__}: "
                                         f"{e}") from None
        raise


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         check_crc: bool = False, **pickle_load_args):
    """Load an object saved with ``ember.save`` or ``torch.save`` (zip or legacy format).

    Args:
        f: a path or a binary file object (seekable).
        map_location: where storages go: a str / device (``'cpu'``, ``'meta'``), a dict mapping
            saved locations to new ones, or ``callable(storage, location)``. ``'cuda'`` locations
            load on 'cpu' with a warning (ember has no GPU backend).
        weights_only (bool): the default (True) uses a restricted unpickler that only rebuilds
            tensors, storages, dtypes, OrderedDict, containers and plain values, plus globals
            approved with ``add_safe_globals``. False runs arbitrary pickled code: only for
            files you trust.
        mmap (bool): map storages from the file instead of reading them (zip format, path or file).
        check_crc (bool): ember's addition: also verify every storage record's CRC-32 (zip format),
            which catches flipped data bytes. Off by default, as in ``torch.load``: truncation and
            structural damage are caught without it (see the module docstring).

    Example:
        >>> import io, ember
        >>> buf = io.BytesIO(); ember.save([ember.tensor([1, 2])], buf); _ = buf.seek(0)
        >>> ember.load(buf)
        [tensor([1, 2])]
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    encoding = pickle_load_args.pop("encoding", "utf-8")

    def unpickler(file):
        if weights_only:
            return RestrictedUnpickler(file, encoding=encoding)
        if pickle_module is None or pickle_module is pickle:
            return FullUnpickler(file, encoding=encoding)
        return pickle_module.Unpickler(file, encoding=encoding, **pickle_load_args)

    if isinstance(f, (str, os.PathLike)):
        name = os.fspath(f)
        fh, opened = open(name, "rb"), True  # noqa: SIM115 (closed in the finally below)
    else:
        fh, opened = f, False
        name = getattr(f, "name", None) or f"<{type(f).__name__}>"
        name = name if isinstance(name, str) else repr(name)
    try:
        locator = _Locator(map_location, name)
        start = fh.tell()
        head = fh.read(512)
        fh.seek(start)
        if not head:
            raise _corrupt(name, "the file is empty: not a checkpoint (truncated or never written)")
        if head[:4] == _ZIP_MAGIC:
            return _load_zip(fh, name, locator, unpickler, weights_only, mmap, check_crc)
        if mmap:
            raise RuntimeError("mmap can only be used with files saved with "
                               "`torch.save(_use_new_zipfile_serialization=True)`, please torch.save "
                               "your checkpoint with this option in order to use mmap.")
        if len(head) >= 262 and head[257:262] == b"ustar":
            raise RuntimeError(f"{name}: checkpoints in the legacy .tar format (PyTorch < 0.4) are not "
                               "supported; load it with an old PyTorch and save it again")
        return _load_legacy(fh, name, locator, unpickler, weights_only)
    finally:
        if opened:
            fh.close()


# --------------------------------------------------------------------------------------- zip
def _load_zip(fh, name, locator, unpickler, weights_only, mmap, check_crc=False):
    try:
        zf = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error) as e:
        raise _corrupt(name, "PytorchStreamReader failed reading zip archive: failed finding central "
                             f"directory (the file is truncated or corrupted: {e})") from None
    names = zf.namelist()
    prefix = names[0].split("/", 1)[0] if names else ""
    pkl = f"{prefix}/data.pkl"
    if pkl not in zf.NameToInfo:
        if f"{prefix}/constants.pkl" in zf.NameToInfo:
            raise RuntimeError(f"{name} is a TorchScript archive (torch.jit.save); ember cannot load it")
        raise _corrupt(name, f"the archive has no {pkl} record: not a torch.save checkpoint")
    data = _read_record(zf, pkl, name)
    order = b"little"
    if f"{prefix}/byteorder" in zf.NameToInfo:
        order = _read_record(zf, f"{prefix}/byteorder", name).strip()
        if order not in (b"little", b"big"):
            raise _corrupt(name, f"unknown byteorder record {order!r}")
    whole = None
    if mmap:
        if not hasattr(fh, "fileno"):
            raise ValueError("f must be a file path or a file object with a fileno in order to use mmap")
        whole = np.frombuffer(_mmap.mmap(fh.fileno(), 0, access=_mmap.ACCESS_COPY), np.uint8)
    loaded = {}
    checks = [] if check_crc else None

    def persistent_load(pid):
        dt, key, location, numel = _check_pid(pid, name, 5)
        st = loaded.get(key)
        if st is None:
            st = loaded[key] = _read_storage(zf, fh, name, f"{prefix}/data/{key}", numel * dt.itemsize,
                                             dt, location, locator, whole, order, checks)
        return TypedStorage(st, dt)

    up = unpickler(io.BytesIO(data))
    up.persistent_load = persistent_load
    try:
        result = _run_unpickler(up, name, weights_only)
    finally:
        bad = [rec for rec, crc, fut in checks or () if fut.result() != crc]
    if bad:
        raise _corrupt(name, f"record {bad[0]} fails its CRC-32 check: the data is corrupted")
    return result


def _read_record(zf, rec, name) -> bytes:
    try:
        return zf.read(rec)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error, struct.error) as e:
        raise _corrupt(name, f"record {rec} cannot be read: {e}") from None


def _data_offset(zf, fh, info, name, rec) -> int:
    """Where ``info``'s data starts, after checking its local header against the central directory."""
    fh.seek(info.header_offset)
    fname = info.orig_filename.encode("utf-8")
    h = fh.read(30 + len(fname))
    if len(h) < 30 or h[:4] != _ZIP_MAGIC:
        raise _corrupt(name, f"record {rec} has a bad local file header (corrupted archive)")
    method, (n, m) = struct.unpack("<H", h[8:10])[0], struct.unpack("<HH", h[26:30])
    if n != len(fname) or h[30:] != fname or method != info.compress_type:
        raise _corrupt(name, f"record {rec}'s local file header does not match the central directory "
                             "(corrupted archive)")
    off = info.header_offset + 30 + n + m
    if off + info.compress_size > zf.start_dir:
        raise _corrupt(name, f"record {rec} runs past the start of the central directory "
                             "(corrupted archive)")
    return off


def _read_storage(zf, fh, name, rec, nbytes, dt, location, locator, whole, order, checks):
    info = zf.NameToInfo.get(rec)
    if info is None:
        raise _corrupt(name, f"record {rec} is missing from the archive")
    if info.file_size != nbytes:
        raise _corrupt(name, f"record {rec} holds {info.file_size} bytes but the pickle expects "
                             f"{nbytes} ({nbytes // dt.itemsize} x {dt})")
    target = "cpu" if callable(locator.ml) and not isinstance(locator.ml, dict) \
        else locator.target(location)
    if target == "meta":
        return UntypedStorage.meta(nbytes)
    if info.compress_type != zipfile.ZIP_STORED:
        buf = np.frombuffer(bytearray(_read_record(zf, rec, name)), np.uint8)
    else:
        off = _data_offset(zf, fh, info, name, rec)
        if whole is not None:
            buf = whole[off:off + nbytes]
            if buf.nbytes != nbytes:
                raise _corrupt(name, f"record {rec} is truncated")
        else:
            buf = np.empty(nbytes, np.uint8)  # read straight into the storage's final buffer
            fh.seek(off)
            got = _read_full(fh, buf)
            if got != nbytes:
                raise _corrupt(name, f"record {rec} is truncated: {got} of {nbytes} bytes present")
        if checks is not None:  # the worker checks this record while the next one is read
            checks.append((rec, info.CRC, crc_async(buf)))
    if order == b"big" and dt.itemsize > 1:
        buf = buf.view(dt.np).byteswap().view(np.uint8)
    st = storage_from_array(buf)
    if callable(locator.ml) and not isinstance(locator.ml, dict):
        st = locator.apply_callable(st, location)
    return st


def _read_full(fh, buf) -> int:
    """Fill the uint8 array ``buf`` from ``fh`` (until EOF); returns the byte count read."""
    if not hasattr(fh, "readinto"):
        b = fh.read(buf.nbytes)
        buf[:len(b)] = np.frombuffer(b, np.uint8)
        return len(b)
    mv, got = memoryview(buf), 0
    while got < buf.nbytes:  # raw or socket-like streams may return short reads
        n = fh.readinto(mv[got:])
        if not n:
            break
        got += n
    return got


# ------------------------------------------------------------------------------------ legacy
def _load_legacy(fh, name, locator, unpickler, weights_only):
    def small():
        return _run_unpickler(unpickler(fh), name, weights_only)

    try:
        magic = small()
    except (CheckpointError, pickle.UnpicklingError, ValueError, TypeError) as e:
        raise _corrupt(name, f"not a checkpoint: neither a zip archive nor a legacy torch.save file "
                             f"({e})") from None
    if magic != MAGIC_NUMBER:
        raise _corrupt(name, "Invalid magic number; corrupt file?")
    proto = small()
    if proto != PROTOCOL_VERSION:
        raise _corrupt(name, f"Invalid protocol version: {proto}")
    sys_info = small()
    little = sys_info.get("little_endian", True) if isinstance(sys_info, dict) else True
    roots, views, locations = {}, {}, {}

    def persistent_load(pid):
        if isinstance(pid, tuple) and pid and _decode(pid[0]) == "module":
            if weights_only:
                raise pickle.UnpicklingError(f"Weights only load failed. {name}: the checkpoint "
                                             "embeds module source code, which weights_only refuses")
            return pid[1]
        dt, key, location, numel = _check_pid(pid, name, 6)
        if key not in roots:
            target = "cpu" if callable(locator.ml) and not isinstance(locator.ml, dict) \
                else locator.target(location)
            nb = numel * dt.itemsize
            st = UntypedStorage.meta(nb) if target == "meta" else storage_from_array(np.empty(nb, np.uint8))
            roots[key] = (st, dt, numel)
            locations[key] = location
        st = roots[key][0]
        vm = pid[5]
        if vm is not None:
            vkey, off, size = _decode(vm[0]), vm[1], vm[2]
            if vkey not in views:
                isz = dt.itemsize
                if type(off) is not int or type(size) is not int or off < 0 or size < 0 \
                        or (off + size) > roots[key][2]:
                    raise _corrupt(name, f"storage view {vkey} lies outside its storage")
                views[vkey] = UntypedStorage.meta(size * isz) if st._bytes is None else \
                    storage_from_array(st._bytes[off * isz:(off + size) * isz])
            st = views[vkey]
        return TypedStorage(st, dt)

    up = unpickler(fh)
    up.persistent_load = persistent_load
    result = _run_unpickler(up, name, weights_only)
    keys = small()
    if not isinstance(keys, list):
        raise _corrupt(name, "the storage key list is missing")
    for key in keys:
        key = _decode(key)
        if key not in roots:
            raise _corrupt(name, f"storage {key} is listed but never used by the pickle")
        st, dt, numel = roots[key]
        hdr = fh.read(8)
        if len(hdr) < 8:
            raise _corrupt(name, f"storage {key} is truncated (its size header is missing)")
        (n,) = struct.unpack("<q" if little else ">q", hdr)
        if n != numel:
            raise _corrupt(name, f"storage {key} holds {n} elements but the pickle expects {numel}")
        if st._bytes is None:
            fh.seek(n * dt.itemsize, 1)
            continue
        got = _read_full(fh, st._bytes)
        if got != st._bytes.nbytes:
            raise _corrupt(name, f"storage {key} is truncated: {got} of {st._bytes.nbytes} bytes present")
        if not little and dt.itemsize > 1:
            st._bytes.view(dt.np).byteswap(inplace=True)
    if callable(locator.ml) and not isinstance(locator.ml, dict):
        for key, (st, dt, numel) in roots.items():
            locator.apply_callable(st, locations[key])
    return result
