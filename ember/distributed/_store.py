"""Key-value stores for rendezvous: ``HashStore`` (one process), ``FileStore``, ``TCPStore``, ``PrefixStore``.

Values are bytes (a str is stored as its UTF-8 bytes). ``get`` and ``wait`` block until the key
exists or the store's timeout passes (``DistStoreError``), as torch's stores do. ``TCPStore``'s
server is a thread of the process that creates it with ``is_master=True``; ``port=0`` binds a free
port, read back from ``store.port``.

Example:
    >>> s = HashStore()
    >>> s.set("a", "1"); s.add("n", 2), s.add("n", 3), s.get("a")
    (2, 5, b'1')
    >>> s.compare_set("a", "1", "x"), s.compare_set("b", "", "new"), s.num_keys()
    (b'x', b'new', 3)
"""
from __future__ import annotations

import fcntl
import pickle
import socket
import socketserver
import struct
import threading
import time
from datetime import timedelta

from ._errors import DistNetworkError, DistStoreError

__all__ = ["Store", "HashStore", "FileStore", "TCPStore", "PrefixStore"]

_DEFAULT_TIMEOUT = timedelta(seconds=300)


def _as_bytes(value) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (list, tuple)):  # torch accepts a list of byte values
        return bytes(value)
    raise TypeError(f"Store value must be str or bytes, got {type(value).__name__}")


def _seconds(timeout) -> float:
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


def _apply(table: dict, op: str, args: tuple):
    """One store operation on a dict of key -> bytes; shared by every store kind."""
    if op == "set":
        table[args[0]] = args[1]
        return None
    if op == "get":
        return table.get(args[0])
    if op == "add":
        value = int(table.get(args[0], b"0")) + args[1]
        table[args[0]] = str(value).encode()
        return value
    if op == "compare_set":
        key, expected, desired = args
        current = table.get(key)
        if (current is None and expected == b"") or current == expected:
            table[key] = desired
            return desired
        return expected if current is None else current
    if op == "check":
        return all(k in table for k in args[0])
    if op == "delete":
        return table.pop(args[0], None) is not None
    if op == "num_keys":
        return len(table)
    raise ValueError(f"unknown store operation {op!r}")


class Store:
    """The store interface; subclasses implement ``_call(op, *args)`` atomically."""

    def __init__(self, timeout=_DEFAULT_TIMEOUT):
        self._timeout = _seconds(timeout)

    @property
    def timeout(self) -> timedelta:
        return timedelta(seconds=self._timeout)

    def set_timeout(self, timeout) -> None:
        self._timeout = _seconds(timeout)

    def _call(self, op: str, *args):
        raise NotImplementedError

    def set(self, key: str, value) -> None:
        self._call("set", key, _as_bytes(value))

    def add(self, key: str, amount: int) -> int:
        return self._call("add", key, int(amount))

    def compare_set(self, key: str, expected_value, desired_value) -> bytes:
        return self._call("compare_set", key, _as_bytes(expected_value), _as_bytes(desired_value))

    def check(self, keys: list) -> bool:
        return self._call("check", list(keys))

    def delete_key(self, key: str) -> bool:
        return self._call("delete", key)

    def num_keys(self) -> int:
        return self._call("num_keys")

    def wait(self, keys: list, timeout=None) -> None:
        """Block until every key in ``keys`` exists (``DistStoreError`` after ``timeout``)."""
        limit = self._timeout if timeout is None else _seconds(timeout)
        deadline, pause = time.monotonic() + limit, 0.001
        while not self.check(keys):
            if time.monotonic() > deadline:
                raise DistStoreError(f"wait timeout after {int(limit * 1000)}ms, keys: {list(keys)}")
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def get(self, key: str) -> bytes:
        value = self._call("get", key)
        if value is None:
            self.wait([key])
            value = self._call("get", key)
        return value


class HashStore(Store):
    """An in-memory store shared by the threads of one process."""

    def __init__(self):
        super().__init__()
        self._table: dict = {}
        self._lock = threading.Lock()

    def _call(self, op, *args):
        with self._lock:
            return _apply(self._table, op, args)


class FileStore(Store):
    """A store in a file shared by processes on one machine (locked with ``fcntl``)."""

    def __init__(self, file_name: str, world_size: int = -1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        open(self.path, "ab").close()

    def _call(self, op, *args):
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            raw = f.read()
            table = pickle.loads(raw) if raw else {}
            result = _apply(table, op, args)
            if op in ("set", "add", "compare_set", "delete"):
                f.seek(0)
                f.truncate()
                f.write(pickle.dumps(table))
            return result


# TCP protocol: each message is a 4-byte big-endian length and a pickled tuple (op, args) / result.
def _send(sock, obj) -> None:
    data = pickle.dumps(obj)
    sock.sendall(struct.pack(">I", len(data)) + data)


def _recv(sock):
    head = _recv_exact(sock, 4)
    return pickle.loads(_recv_exact(sock, struct.unpack(">I", head)[0]))


def _recv_exact(sock, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = sock.recv(left)
        if not chunk:
            raise ConnectionError("store connection closed by peer")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        store = self.server.store
        while True:
            try:
                op, args = _recv(self.request)
            except (ConnectionError, OSError):
                return
            _send(self.request, store._call(op, *args))


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class TCPStore(Store):
    """A store served over TCP by the process created with ``is_master=True``.

    Args:
        host_name: the server's address; port: its port (0 with ``is_master`` binds a free one).
        world_size: accepted for torch's signature (``wait_for_workers`` is not enforced).
    """

    def __init__(self, host_name: str, port: int, world_size: int | None = None, is_master: bool = False,
                 timeout=_DEFAULT_TIMEOUT, wait_for_workers: bool = True, multi_tenant: bool = False,
                 master_listen_fd=None, use_libuv: bool = True):
        super().__init__(timeout)
        self.host, self.world_size, self._server = host_name, world_size, None
        if is_master:
            self._server = _Server(("", port), _Handler)
            self._server.store = HashStore()
            port = self._server.server_address[1]
            threading.Thread(target=self._server.serve_forever, name="ember-tcpstore",
                             daemon=True).start()
        self.port = port
        self._lock = threading.Lock()
        self._sock = self._connect()

    def _connect(self):
        deadline, pause = time.monotonic() + self._timeout, 0.01
        while True:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=self._timeout)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError as e:
                if time.monotonic() > deadline:
                    raise DistNetworkError(f"The client socket has timed out after {self._timeout}s while "
                                           f"trying to connect to ({self.host}, {self.port}): {e}") from None
                time.sleep(pause)
                pause = min(pause * 2, 0.5)

    def _call(self, op, *args):
        with self._lock:
            try:
                _send(self._sock, (op, args))
                return _recv(self._sock)
            except (ConnectionError, OSError) as e:
                raise DistNetworkError(f"TCPStore {op}: connection to ({self.host}, {self.port}) "
                                       f"lost: {e}") from None

    def close(self) -> None:
        self._sock.close()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __del__(self):
        try:
            self._sock.close()
        except Exception:
            pass


class PrefixStore(Store):
    """Every key of ``store`` seen through ``prefix + "/"``."""

    def __init__(self, prefix: str, store: Store):
        super().__init__(timedelta(seconds=store._timeout))
        self.prefix, self.underlying_store = prefix, store

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}"

    def _call(self, op, *args):
        if op == "check":
            return self.underlying_store._call(op, [self._key(k) for k in args[0]])
        if op == "num_keys":
            return self.underlying_store._call(op)
        return self.underlying_store._call(op, self._key(args[0]), *args[1:])

