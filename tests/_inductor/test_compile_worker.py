"""Compile workers: predicted kernel types, a worker compiling a graph's new kernels into the disk
cache, and a hung worker killed after its timeout (the kernel then compiles in this process).
Each test uses its own cache directory and kernels no other test generates (unusual constants)."""
import time

import numpy as np
import pytest

import ember
from ember._functorch.aot_autograd import aot_function
from ember._inductor import codecache, compile_worker, config
from ember._inductor.compile_fx import compile_fx_inner
from ember._inductor.ir import Buffer

import numba  # noqa: E402  (a runtime dependency of ember, never skipped)


def test_predicted_types_follow_numpy_layouts():
    f32 = np.dtype("float32")
    assert compile_worker._array_type((4, 8), (32, 4), f32, False, (4, 8)) == \
        ("arr", "float32", 2, "C", False)
    # a broadcast bias seen as (R, C): zero row stride, read-only
    assert compile_worker._array_type((4, 8), (0, 4), f32, True, (4, 8)) == \
        ("arr", "float32", 2, "A", True)
    # a transposed array cannot be reshaped without a copy: the copy is C-contiguous, writeable
    assert compile_worker._array_type((2, 3, 4), (4, 8, 24), f32, False, (6, 4)) == \
        ("arr", "float32", 2, "C", False)
    src = Buffer("input", (2, 3, 4), f32, [], name="x")
    view = Buffer("view", (2, 4, 3), f32, [src], code="np.swapaxes({0}, 1, 2)")
    assert compile_worker._strides_of(view, {}) is None  # an input without strides: unknown
    src.strides = (12, 4, 1)
    assert compile_worker._strides_of(view, {}) == np.swapaxes(np.empty((2, 3, 4), f32), 1, 2).strides


def _graph(fn, *args):
    graphs = []
    with ember.no_grad():
        aot_function(fn, lambda gm, ex: graphs.append((gm, ex)) or gm)(*args)
    return graphs[0]


def _two_kernels(x, y):  # two iteration spaces: two kernels no other test generates
    return (x * 1.2345678 + 0.7654321).sum(-1, keepdim=True), (y * 2.3456789 - 0.1234567).relu()


@pytest.fixture
def worker_config(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))
    monkeypatch.setattr(config, "compile_workers", 1)
    monkeypatch.setattr(config, "worker_min_kernels", 2)
    monkeypatch.delenv("EMBER_COMPILE_WORKERS", raising=False)
    yield
    compile_worker.shutdown()


def _kernels(fn):
    return [v for v in fn.__globals__.values() if isinstance(v, codecache.Kernel)]


@pytest.mark.timeout(120)
def test_worker_compiles_new_kernels_into_the_disk_cache(worker_config):
    x, y = ember.randn(5, 7), ember.randn(3, 4)
    gm, ex = _graph(_two_kernels, x, y)
    before = dict(compile_worker.stats)
    fn = compile_fx_inner(gm, ex)
    assert compile_worker.stats["submitted"] - before["submitted"] == 2
    assert compile_worker.wait_idle(90)
    assert compile_worker.stats["worker_compiled"] - before["worker_compiled"] == 2
    s, r = fn([x, y])
    np.testing.assert_allclose(s.numpy(), (x * 1.2345678 + 0.7654321).sum(-1, keepdim=True).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(r.numpy(), (y * 2.3456789 - 0.1234567).relu().numpy(), rtol=1e-6)
    for k in _kernels(fn):  # loaded from the worker's cache entry: this process compiled nothing
        assert k.compiled_from_cache() == (1, 0)


HUNG_WORKER = r"""
import json, sys, time
for line in sys.stdin:
    job = json.loads(line)
    if "id" in job:
        sys.stdout.write(json.dumps({"start": job["id"]}) + "\n")
        sys.stdout.flush()
        time.sleep(600)
"""


@pytest.mark.timeout(120)
def test_hung_worker_is_killed_and_the_kernel_compiles_here(worker_config, monkeypatch):
    monkeypatch.setattr(compile_worker, "_WORKER_SRC", HUNG_WORKER)
    monkeypatch.setattr(config, "compile_worker_timeout", 1.0)
    x, y = ember.randn(6, 7), ember.randn(2, 4)

    def f(x, y):
        return (x * 3.4567891 + 0.2468013).sum(-1, keepdim=True), (y * 4.5678912 - 0.9753197).relu()
    gm, ex = _graph(f, x, y)
    fn = compile_fx_inner(gm, ex)
    w = compile_worker._WORKER[0]
    end = time.monotonic() + 30
    while "started" not in w.state.values() and time.monotonic() < end:
        time.sleep(0.05)
    assert "started" in w.state.values()  # the worker "compiles" one kernel forever
    t0 = time.monotonic()
    s, r = fn([x, y])
    assert time.monotonic() - t0 < 60
    assert w.proc.wait(timeout=10) is not None  # killed after the 1 s timeout
    np.testing.assert_allclose(s.numpy(), (x * 3.4567891 + 0.2468013).sum(-1, keepdim=True).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(r.numpy(), (y * 4.5678912 - 0.9753197).relu().numpy(), rtol=1e-6)
    assert all(k.compiled_from_cache() == (0, 1) for k in _kernels(fn))  # compiled here


def test_workers_are_off_under_pytest_by_default(monkeypatch):
    monkeypatch.setattr(config, "compile_workers", None)
    monkeypatch.delenv("EMBER_COMPILE_WORKERS", raising=False)
    assert not compile_worker.workers_enabled()
