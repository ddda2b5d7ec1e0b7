"""Stores in one process (the multi-process use is covered inside every world): set/get/add/wait/compare_set,
timeouts as DistStoreError, FileStore shared by two instances, TCPStore server and client."""
from datetime import timedelta

import pytest

import ember.distributed as dist


def _exercise(a, b):
    a.set("k", "v")
    assert b.get("k") == b"v" and b.add("n", 2) == 2 and a.add("n", 5) == 7 and b.get("n") == b"7"
    assert a.compare_set("c", "", "x") == b"x" and b.compare_set("c", "y", "z") == b"x"
    assert b.compare_set("c", "x", "z") == b"z" and a.check(["k", "n", "c"]) and not a.check(["k", "missing"])
    b.wait(["k", "n"], timedelta(seconds=1))
    with pytest.raises(dist.DistStoreError, match="wait timeout after 50ms"):
        a.wait(["never"], timedelta(milliseconds=50))
    assert a.delete_key("k") and not b.check(["k"]) and a.num_keys() == 2


def test_hash_store():
    s = dist.HashStore()
    _exercise(s, s)


def test_file_store_is_shared_through_its_file(tmp_path):
    path = str(tmp_path / "store")
    _exercise(dist.FileStore(path, 2), dist.FileStore(path, 2))


def test_tcp_store_server_and_client():
    server = dist.TCPStore("127.0.0.1", 0, 2, is_master=True, timeout=timedelta(seconds=5))
    client = dist.TCPStore("127.0.0.1", server.port, 2, timeout=timedelta(seconds=5))
    _exercise(server, client)
    prefixed = dist.PrefixStore("job", client)
    prefixed.set("a", b"\x00\x01")
    assert server.get("job/a") == b"\x00\x01" and prefixed.get("a") == b"\x00\x01"
    client.close()
    server.close()


def test_tcp_store_client_times_out_without_server():
    from tests.distributed._launch import free_port
    with pytest.raises(dist.DistNetworkError, match="timed out"):
        dist.TCPStore("127.0.0.1", free_port(), timeout=timedelta(milliseconds=200))
