"""DataLoader faults: worker exceptions, killed workers, timeouts, early exits, Ctrl-C; no leftovers."""
from __future__ import annotations

import gc
import glob
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch

from ember.utils.data import DataLoader
from ember.utils.data._utils.shared_memory import PREFIX, SHM_DIR

from . import _datasets as D

pytestmark = pytest.mark.timeout(60)


def _leftovers(pid=None):
    return glob.glob(os.path.join(SHM_DIR, f"{PREFIX}{pid or os.getpid()}x*"))


def _gone(pid, within=10.0):
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        # a zombie still answers kill(0): it is dead once its state is Z or it is reaped
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(")")[-1].split()[0] in "ZX":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("num_workers", [0, 2])
def test_exception_in_dataset_surfaces_like_torch(num_workers):
    loader = DataLoader(D.RaiseOn(7), batch_size=2, num_workers=num_workers)
    with pytest.raises(ValueError) as ei:
        list(loader)
    msg = str(ei.value)
    assert "bad index 7" in msg
    if num_workers:
        # torch's wrapper, fed the same exception, gives the same header (torch's own 2-worker loader
        # takes ~10 s to shut down after a worker error, so its wrapper stands in for it)
        try:
            D.RaiseOn(7)[7]
        except ValueError:
            wrapped = torch._utils.ExceptionWrapper(where="in DataLoader worker process 1")
        with pytest.raises(ValueError) as ti:
            wrapped.reraise()
        head = str(ti.value).split("\n")[:2]
        assert msg.split("\n")[:2] == head == ["Caught ValueError in DataLoader worker process 1.",
                                               "Original Traceback (most recent call last):"]
        assert "in __getitem__" in msg and "_datasets.py" in msg
        assert msg.rstrip().endswith("ValueError: bad index 7")
    else:
        tloader = torch.utils.data.DataLoader(D.RaiseOn(7), batch_size=2)
        with pytest.raises(ValueError) as ti:
            list(tloader)
        assert msg == str(ti.value) == "bad index 7"


def test_iteration_continues_after_a_worker_exception():
    it = iter(DataLoader(D.RaiseOn(3, n=6), batch_size=None, num_workers=2))
    got = []
    while True:
        try:
            got.append(next(it))
        except ValueError:
            got.append("err")
        except StopIteration:
            break
    assert got == [0, 1, 2, "err", 4, 5]


def test_exception_in_worker_init_fn():
    loader = DataLoader(D.RangeDataset(4), batch_size=2, num_workers=2, worker_init_fn=D.failing_init)
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0"):
        list(loader)


def test_worker_killing_itself_raises_quickly():
    t0 = time.monotonic()
    loader = DataLoader(D.KillSelfOn(5), batch_size=None, num_workers=2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(loader)
    assert time.monotonic() - t0 < 10
    assert _leftovers() == []


def test_worker_killed_from_outside_raises_and_others_stop():
    it = iter(DataLoader(D.SlowDataset(0.05, n=40), batch_size=None, num_workers=2))
    next(it)
    pids = [w.pid for w in it._workers]
    os.kill(pids[1], signal.SIGKILL)
    with pytest.raises(RuntimeError, match=f"pid\\(s\\) {pids[1]}\\) exited unexpectedly"):
        for _ in it:
            pass
    assert all(_gone(p) for p in pids)


def test_timeout_raises():
    loader = DataLoader(D.SlowDataset(5.0, slow_index=2), batch_size=None, num_workers=2, timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.5 seconds"):
        list(loader)
    assert time.monotonic() - t0 < 4


def test_breaking_out_and_deleting_the_iterator_stop_workers():
    loader = DataLoader(D.BigTensors(), batch_size=1, num_workers=2)
    for i, _ in enumerate(loader):
        if i == 1:
            break
    gc.collect()  # the for loop's iterator is gone: workers are shut down
    it = iter(loader)
    next(it)
    pids = [w.pid for w in it._workers]
    del it
    gc.collect()
    assert all(_gone(p) for p in pids)
    assert _leftovers() == []


_SCRIPT = """
import os, sys, time
sys.path.insert(0, {root!r})
from ember.utils.data import DataLoader
from tests.utils.data import _datasets as D
loader = DataLoader(D.SlowDataset(0.2, n=1000), batch_size=None, num_workers=2)
it = iter(loader)
next(it)
print(" ".join(str(w.pid) for w in it._workers), flush=True)
for x in it:
    pass
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupting_the_main_process_leaves_no_orphans(sig):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_SCRIPT.format(root=root))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    pids = [int(x) for x in p.stdout.readline().split()]
    assert len(pids) == 2
    os.killpg(p.pid, sig) if sig == signal.SIGINT else os.kill(p.pid, sig)  # Ctrl-C hits the whole group
    # a hang detector, not a timing target: shutdown waits at most a few status intervals, but
    # one fresh-clone run under load took over 30 s here once (not reproduced alone)
    p.communicate(timeout=90)
    assert all(_gone(w) for w in pids), "orphan worker processes"
    time.sleep(0.2)
    assert _leftovers(p.pid) == []
