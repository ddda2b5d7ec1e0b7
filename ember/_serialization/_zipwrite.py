"""A minimal writer of PyTorch's zip archive (stored records, 64-byte aligned data) (layer L3).

``zipfile`` copies nothing either, but it computes each record's CRC-32 on the write path, one
buffer after the other. Here the CRC-32 of storage i+1 is computed by ``zlib.crc32`` in a worker
thread (it releases the GIL) while storage i is written straight from its NumPy buffer, so a save
costs about one pass of writing. The layout is the one ``zipfile`` and torch's writer produce:
local header (with torch's ``FB`` padding extra field), data, central directory, and the zip64
records when sizes or offsets need them.
"""
from __future__ import annotations

import os
import struct
import zlib

__all__ = ["ZipWriter", "crc_pool"]

_ZIP64_LIMIT = (1 << 31) - 1  # as zipfile: above this a size or offset goes to the zip64 extra field
_DOSDATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01, as torch's and zipfile's fixed-date records
_INLINE_CRC = 1 << 20  # below this a thread hop costs more than the CRC itself

_pool = _pool_pid = None


def crc_pool():
    """One shared worker thread for CRC-32s, created on first use (``import ember`` stays fast)."""
    global _pool, _pool_pid
    # a forked child (e.g. a DataLoader worker) inherits the pool but not its thread: make a new one
    if _pool is None or _pool_pid != os.getpid():
        import concurrent.futures
        _pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ember-crc")
        _pool_pid = os.getpid()
    return _pool


class _Done:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def crc_async(buf, compute: bool = True):
    """A future-like for ``zlib.crc32(buf)`` (0 when ``compute`` is False, like torch's option)."""
    if not compute:
        return _Done(0)
    if len(buf) < _INLINE_CRC:
        return _Done(zlib.crc32(buf))
    return crc_pool().submit(zlib.crc32, buf)


class ZipWriter:
    """Writes stored records to ``fh`` one after the other; ``close()`` adds the central directory.

    Offsets are relative to where the archive starts in ``fh`` (as ``zipfile`` writes them), so an
    archive appended to other data still reads back.
    """

    def __init__(self, fh, align: int = 64):
        self.fh, self.align = fh, align
        self.pos = 0
        self.entries = []  # (name bytes, crc, size, header offset)

    def _write(self, data) -> None:
        n = len(data)
        done = self.fh.write(data)
        # a raw (unbuffered) stream may write less than asked: finish the rest
        while done is not None and done < n:
            done += self.fh.write(data[done:])
        self.pos += n

    def _header(self, name: bytes, crc: int, size: int) -> bytes:
        z64 = size > _ZIP64_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, size, size) if z64 else b""
        base = self.pos + 30 + len(name) + len(extra) + 4
        pad = (-base) % self.align
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad  # torch's padding field id
        n32 = 0xFFFFFFFF if z64 else size
        return struct.pack("<4s2B4HL2L2H", b"PK\x03\x04", 45 if z64 else 20, 0, 0, 0, 0, _DOSDATE,
                           crc, n32, n32, len(name), len(extra)) + name + extra

    def write_record(self, name: str, data, crc=None) -> None:
        """Append record ``name`` holding the bytes of ``data`` (bytes or a 1-d byte memoryview).

        ``crc`` is the record's CRC-32 or a future of it (computed here when None).
        """
        name_b = name.encode("utf-8")
        crc = zlib.crc32(data) if crc is None else crc
        crc = crc if type(crc) is int else crc.result()
        size = len(data)
        off = self.pos
        head = self._header(name_b, crc, size)
        if size < 1 << 16:
            self._write(head + bytes(data))
        else:
            self._write(head)
            self._write(data)
        self.entries.append((name_b, crc, size, off))

    def close(self) -> None:
        """Write the central directory and the end records (zip64 ones when needed)."""
        cd_start = self.pos
        parts = []
        for name, crc, size, off in self.entries:
            extra = b""
            n32 = o32 = None
            if size > _ZIP64_LIMIT:
                extra += struct.pack("<QQ", size, size)
                n32 = 0xFFFFFFFF
            if off > _ZIP64_LIMIT:
                extra += struct.pack("<Q", off)
                o32 = 0xFFFFFFFF
            if extra:
                extra = struct.pack("<HH", 1, len(extra)) + extra
            ver = 45 if extra else 20
            parts.append(struct.pack("<4s4B4HL2L5HLL", b"PK\x01\x02", ver, 3, ver, 0, 0, 0, 0,
                                     _DOSDATE, crc, n32 or size, n32 or size, len(name), len(extra),
                                     0, 0, 0, 0, o32 or off) + name + extra)
        cd = b"".join(parts)
        self._write(cd)
        count, cd_size = len(self.entries), len(cd)
        tail = b""
        if count >= 0xFFFF or cd_start > _ZIP64_LIMIT or cd_size > _ZIP64_LIMIT:
            z64_at = self.pos
            tail += struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count,
                                cd_size, cd_start)
            tail += struct.pack("<4sLQL", b"PK\x06\x07", 0, z64_at, 1)
            count, cd_size, cd_start = min(count, 0xFFFF), min(cd_size, 0xFFFFFFFF), \
                min(cd_start, 0xFFFFFFFF)
        tail += struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, cd_size, cd_start, 0)
        self._write(tail)
