"""Compile workers: new Numba kernels compiled in a worker process while this one runs (L7).

torch compiles Triton/C++ kernels in a pool of processes; here, when one graph has several kernels
that are neither compiled in this process nor in the disk cache (``Kernel.needs_compile``), one
worker process (``python -c``: NumPy and Numba only, no ember) compiles them with the argument types
the wrapper will pass (``predict_arg_types``, read off the lowering) and saves them in Numba's disk
cache. The worker takes the most recently submitted kernel first (the end of the backward graph);
this process compiles from the first kernel on as it calls them; they meet in the middle:

* a kernel the worker has not started is compiled here (the worker is told to skip it);
* a kernel the worker is compiling is waited for, at most ``config.compile_worker_timeout``
  seconds from its start: then the worker is killed and its kernels compile here;
* a kernel the worker finished loads from the disk cache (a mispredicted type only costs one
  compilation here).

A worker that crashes or cannot start changes nothing but speed. The worker exits when this process
closes its pipe (at exit) or after ``config.compile_worker_idle`` seconds without work. Workers are
off under pytest unless asked for (``config.compile_workers`` or ``EMBER_COMPILE_WORKERS``).

Example:
    >>> import numpy as np
    >>> from ember._inductor.compile_worker import _array_type
    >>> _array_type((4, 8), (32, 4), np.dtype("float32"), False, (4, 8))
    ('arr', 'float32', 2, 'C', False)
    >>> _array_type((4, 8), (0, 4), np.dtype("float32"), True, (4, 8))  # a broadcast bias
    ('arr', 'float32', 2, 'A', True)
"""
from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
import time

import numpy as np

from . import codecache, config

__all__ = ["predict_arg_types", "submit", "workers_enabled", "wait_idle", "shutdown", "stats"]

stats = {"submitted": 0, "worker_compiled": 0, "claimed_back": 0, "waited": 0.0, "failures": 0,
         "workers_started": 0}

# The worker: reads JSON jobs on stdin, answers {"start": id} / {"done": id, "ok": bool} on stdout.
_WORKER_SRC = r"""
import importlib.util, json, queue, sys, threading
idle = float(sys.argv[1])
jobs = queue.Queue()
def reader():
    for line in sys.stdin:
        jobs.put(json.loads(line))
    jobs.put(None)
threading.Thread(target=reader, daemon=True).start()
def say(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()
import numpy as np
import numba
from numba import types as T
def typ(t):
    if t[0] == "int":
        return T.int64
    if t[0] == "float":
        return T.float64
    _, dt, nd, layout, ro = t
    return T.Array(numba.from_dtype(np.dtype(dt)), nd, layout, readonly=ro)
stack, skip = [], set()
while True:
    while True:
        try:
            m = jobs.get_nowait() if stack else jobs.get(timeout=idle)
        except queue.Empty:
            break
        if m is None:  # this process is done with the worker
            sys.exit(0)
        if "cancel" in m:
            skip.add(m["cancel"])
        else:
            stack.append(m)
    stack = [j for j in stack if j["id"] not in skip]
    if not stack:
        sys.exit(0)
    job = stack.pop()
    say({"start": job["id"]})
    try:
        mod = sys.modules.get(job["module"])
        if mod is None:
            spec = importlib.util.spec_from_file_location(job["module"], job["path"])
            mod = importlib.util.module_from_spec(spec)
            sys.modules[job["module"]] = mod
            spec.loader.exec_module(mod)
        getattr(mod, job["func"]).compile(tuple(typ(t) for t in job["types"]))
        say({"done": job["id"], "ok": True})
    except Exception as e:
        say({"done": job["id"], "ok": False, "error": f"{type(e).__name__}: {e}"[:500]})
"""


def workers_enabled() -> bool:
    """``config.compile_workers`` (or ``EMBER_COMPILE_WORKERS``) > 0; by default (``None``) on
    outside pytest when Numba is there and the machine has a core to spare (load average below
    the core count minus one: a worker competing for a busy core only adds its start-up)."""
    n = config.compile_workers
    env = os.environ.get("EMBER_COMPILE_WORKERS")
    if env is not None and env != "":
        n = int(env)
    if n is None:  # a worker pays off only on an idle core
        cores = os.cpu_count() or 1
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # not on every platform
            load = 0.0
        n = 0 if ("PYTEST_CURRENT_TEST" in os.environ or cores < 2 or load > cores - 1) else 1
    return n > 0 and codecache.numba_available()


# ------------------------------------------------------------------------------ type prediction
def _c_strides(shape: tuple, itemsize: int) -> tuple:
    out, acc = [], itemsize
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))


def _array_type(shape: tuple, strides: tuple, dtype, readonly: bool, newshape: tuple) -> tuple:
    """The Numba type (as a tuple) of ``a.reshape(newshape)`` for an array ``a`` of that layout:
    computed on a strided view of one element, whose data is never read (a reshape that would
    copy raises instead, and a copy is a fresh C-contiguous writeable array)."""
    dtype = np.dtype(dtype)
    v = np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape, strides, writeable=False)
    try:
        r = np.reshape(v, newshape, copy=False)
    except ValueError:
        return ("arr", dtype.name, len(newshape), "C", False)
    layout = "C" if r.flags.c_contiguous else "F" if r.flags.f_contiguous else "A"
    return ("arr", dtype.name, len(newshape), layout, bool(readonly))


def _strides_of(d, owner: dict, depth: int = 0):
    """Byte strides of buffer ``d``'s array in the wrapper, or None when not known statically:
    arrays the wrapper allocates are C-contiguous; inputs, extern results and their items have the
    traced strides (a guess for externs: a wrong one costs one compilation in this process); a
    view's are computed by running its NumPy code on a stand-in of its source."""
    if d.dtype is None:
        return None
    if owner.get(d) in ("group", "ufunc", "fresh"):
        return _c_strides(d.shape, d.dtype.itemsize)
    st = getattr(d, "strides", None)
    if d.kind in ("input", "extern", "item") and st is not None and len(st) == len(d.shape):
        return tuple(s * d.dtype.itemsize for s in st)
    if d.kind == "view" and d.code and len(d.inputs) == 1 and depth < 8:
        src = d.inputs[0]
        sst = _strides_of(src, owner, depth + 1)
        return None if sst is None else _view_strides(d.code, src, sst, d)
    return None


def _view_strides(code: str, src, strides: tuple, d):
    """Strides of ``code`` applied to an array shaped like ``src`` with ``strides``: run on an
    uninitialised buffer spanning those strides (never read unless the code copies, and then it
    only reads inside the buffer), so the view's own layout logic decides."""
    if any(s < 0 for s in strides) or src.dtype != d.dtype:
        return None
    span = sum((n - 1) * s for n, s in zip(src.shape, strides) if n > 0) + src.dtype.itemsize
    if span > 1 << 28 or 0 in src.shape:
        return None
    base = np.empty(span, np.uint8)
    x = np.lib.stride_tricks.as_strided(base[:src.dtype.itemsize].view(src.dtype), src.shape,
                                        strides, writeable=False)
    try:
        y = eval(code.format("_x"), {"np": np, "_x": x})  # noqa: S307  (our own view template)
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(y, np.ndarray) or y.shape != d.shape:
        return None
    lo = base.__array_interface__["data"][0]
    ptr = y.__array_interface__["data"][0]
    if not lo <= ptr < lo + span:  # the code copied: a fresh C-contiguous array
        return _c_strides(d.shape, d.dtype.itemsize)
    return tuple(y.strides)


def _broadcast_strides(shape: tuple, strides: tuple, to: tuple) -> tuple:
    lead = len(to) - len(shape)
    out = [0] * lead
    for s, st, t in zip(shape, strides, to[lead:]):
        out.append(st if s == t else 0)
    return tuple(out)


def predict_arg_types(spec, R: int, C: int, owner: dict):
    """The types of the arguments the wrapper passes to ``spec``'s kernel (arrays as
    ``("arr", dtype, ndim, layout, readonly)``, sizes as ``("int",)``), or None when an input's
    layout is not known before run time (such a kernel compiles in this process)."""
    types = []
    for (d, mode), shp in zip(spec.inputs, spec.input_shape):
        if d.dtype is None:
            return None
        strides = _strides_of(d, owner)
        if strides is None:
            return None
        # a zero stride is NumPy's broadcasting (expand): such arrays are read-only
        shape, ro = d.shape, any(st == 0 and n > 1 for n, st in zip(d.shape, strides))
        if mode != "col" and d.shape != shp:  # np.broadcast_to(d, shp): a read-only view
            strides, shape, ro = _broadcast_strides(d.shape, strides, shp), shp, True
        new = {"full": (R, C), "row": (R,), "col": (C,)}[mode]
        types.append(_array_type(shape, strides, d.dtype, ro, new))
    for b, mode in spec.outputs:
        types.append(("arr", b.dtype.name, 2 if mode == "full" else 1, "C", False))
    return types + [("int",), ("int",)]


# ------------------------------------------------------------------------------ the worker
class _Worker:
    def __init__(self) -> None:
        env = dict(os.environ)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, "1")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_SRC, str(config.compile_worker_idle)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1, env=env)
        self.pid = os.getpid()
        self.state: dict = {}    # id -> queued | started | done | failed | cancelled
        self.started: dict = {}  # id -> time.monotonic() at its start
        self.cv = threading.Condition()
        self.alive = True
        stats["workers_started"] += 1
        threading.Thread(target=self._read, name="ember-compile-worker", daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.proc.stdout:
                m = json.loads(line)
                with self.cv:
                    if "start" in m:
                        self.state[m["start"]] = "started"
                        self.started[m["start"]] = time.monotonic()
                    elif "done" in m:
                        ok = m.get("ok")
                        self.state[m["done"]] = "done" if ok else "failed"
                        stats["worker_compiled" if ok else "failures"] += 1
                    self.cv.notify_all()
        except (ValueError, OSError):
            pass
        with self.cv:
            self.alive = False
            self.cv.notify_all()

    def _send(self, msg: dict) -> bool:
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def submit(self, kid: str, job: dict) -> None:
        with self.cv:
            if kid in self.state or not self.alive:
                return
            if self._send(dict(job, id=kid)):
                self.state[kid] = "queued"
                stats["submitted"] += 1

    def claim(self, kid: str) -> bool:
        """Block until ``kid`` is done by the worker (True) or left to this process (False)."""
        t0 = time.monotonic()
        with self.cv:
            st = self.state.get(kid)
            if st == "queued":
                self.state[kid] = "cancelled"
                self._send({"cancel": kid})
                stats["claimed_back"] += 1
                return False
            while st == "started" and self.alive:
                left = self.started[kid] + config.compile_worker_timeout - time.monotonic()
                if left <= 0:
                    self.kill()
                    break
                self.cv.wait(left)
                st = self.state.get(kid)
            stats["waited"] += time.monotonic() - t0
            return st == "done"

    def kill(self) -> None:
        self.alive = False
        try:
            self.proc.kill()
        except OSError:
            pass

    def close(self) -> None:
        try:
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
            self.proc.wait(timeout=2)


_WORKER: list = []


def _worker() -> _Worker | None:
    w = _WORKER[0] if _WORKER else None
    if w is not None and w.alive and w.proc.poll() is None and w.pid == os.getpid():
        return w
    try:
        w = _Worker()
    except OSError:
        return None
    _WORKER[:] = [w]
    codecache.claim_hook = _claim
    return w


def _claim(kernel) -> None:
    w = _WORKER[0] if _WORKER else None
    if w is None or w.pid != os.getpid() or kernel.key is None:
        return
    w.claim(kernel.key + "." + kernel.name)


def submit(kernels: list) -> int:
    """Send the kernels among ``kernels`` that need compiling and have predicted argument types
    to the worker when there are at least ``config.worker_min_kernels`` of them; returns how many
    were sent."""
    if not workers_enabled():
        return 0
    seen, new = set(), []
    for k in kernels:
        if k.arg_types is None or k.key is None or k.key in seen or not k.needs_compile():
            continue
        seen.add(k.key)
        new.append(k)
    if len(new) < config.worker_min_kernels:
        return 0
    w = _worker()
    if w is None:
        return 0
    d = codecache.kernel_dir()
    for k in new:
        w.submit(k.key + "." + k.name, {"module": f"ember_kernels.k_{k.key}", "func": k.name,
                                        "path": os.path.join(d, f"k_{k.key}.py"),
                                        "types": k.arg_types})
    return len(new)


def wait_idle(timeout: float) -> bool:
    """Wait until the worker has no queued or running kernel (at most ``timeout`` seconds);
    True when it is idle (or there is none)."""
    w = _WORKER[0] if _WORKER else None
    if w is None:
        return True
    end = time.monotonic() + timeout
    with w.cv:
        while w.alive and any(st in ("queued", "started") for st in w.state.values()):
            left = end - time.monotonic()
            if left <= 0:
                return False
            w.cv.wait(left)
    return True


def shutdown() -> None:
    """Stop the worker (it finishes nothing more; called at exit)."""
    w = _WORKER[0] if _WORKER else None
    _WORKER.clear()
    codecache.claim_hook = None
    if w is not None and w.pid == os.getpid():
        w.close()


atexit.register(shutdown)
