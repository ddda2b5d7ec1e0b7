"""``import ember`` stays light: no torch, numba, mpi4py or scipy. Its time is measured, not asserted
(a shared machine makes any bound flaky): ``python -X importtime -c "import ember"``."""
from __future__ import annotations

import json
import os
import subprocess
import sys

HEAVY = ("torch", "numba", "mpi4py", "scipy")

PROBE = """
import sys, time, json
t0 = time.perf_counter()
import ember
elapsed = time.perf_counter() - t0
heavy = sorted(m for m in sys.modules if m.split('.')[0] in %r)
print(json.dumps({"elapsed": elapsed, "heavy": heavy}))
""" % (HEAVY,)


def _probe() -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_modules():
    res = _probe()
    assert res["heavy"] == [], f"import ember loaded {res['heavy']}"
