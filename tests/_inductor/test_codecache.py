"""The disk cache across processes, and ember without Numba (subprocesses with hard timeouts)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r"""
import sys
if sys.argv[1] == "nonumba":
    sys.modules["numba"] = None
import ember
from ember._inductor import codecache, metrics
ember.manual_seed(0)
m = ember.nn.Sequential(ember.nn.Linear(6, 8), ember.nn.Tanh(), ember.nn.Softmax(-1),
                        ember.nn.Linear(8, 2))  # (eager layer_norm's backward needs Numba)
x = ember.randn(5, 6)
cm = ember.compile(m)
loss = ember.nn.functional.cross_entropy(cm(x), ember.tensor([0, 1, 1, 0, 1]))
loss.backward()
ref = ember.nn.functional.cross_entropy(m(x), ember.tensor([0, 1, 1, 0, 1]))
grads = [p.grad.clone() for p in m.parameters()]
for p in m.parameters():
    p.grad = None
ref.backward()
ok = abs(loss.item() - ref.item()) < 1e-5 and all(
    float((g - p.grad).abs().max()) < 1e-5 for g, p in zip(grads, m.parameters()))
st = codecache.numba_cache_stats()
print(ok, codecache.numba_available(), metrics.generated_kernel_count,
      codecache.stats["modules_written"], st["hits"], st["misses"], codecache.stats["quick_loads"])
"""


def _run(mode, cache):
    env = dict(os.environ, EMBER_CACHE=str(cache), PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", SCRIPT, mode], env=env, capture_output=True,
                       text=True, timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    ok, numba_on, kernels, written, hits, misses, quick = r.stdout.split()
    return (ok == "True", numba_on == "True", int(kernels), int(written), int(hits), int(misses),
            int(quick))


def test_second_process_loads_every_kernel_from_disk(tmp_path):
    ok, numba_on, kernels, written, hits, misses, quick = _run("numba", tmp_path)
    assert ok and numba_on and kernels >= 3 and written > 0 and misses > 0 and quick == 0
    ok, numba_on, kernels2, written, hits, misses, quick = _run("numba", tmp_path)
    assert ok and kernels2 == kernels
    assert written == 0 and misses == 0 and hits > 0  # nothing compiled: all loaded
    assert quick >= hits  # ... without Numba's full registry refresh (codecache.quick_loading)


def test_without_numba_everything_runs_on_numpy(tmp_path):
    ok, numba_on, kernels, written, hits, misses, quick = _run("nonumba", tmp_path)
    assert ok and not numba_on and kernels >= 3 and (hits, misses, quick) == (0, 0, 0)
