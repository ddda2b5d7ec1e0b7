"""Run one script under real torch and under ember's alias (`python -m ember.run`), each in a fresh
interpreter, and return what each printed as JSON on its last line."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# Prepended to the torch-side script. torchvision 0.28.0 from the package index is built against CUDA
# torch: with this machine's CPU torch its compiled-ops library does not load and its import fails at
# "operator torchvision::nms does not exist" (torchmetrics imports it whenever it is installed). The
# torch run declares those operators (never called by these tests) so torchvision's pure-Python parts
# import and the torch side can serve as the oracle.
_TORCH_PRELUDE = """
import importlib.util as _u
if _u.find_spec("torchvision") is not None:
    import torch as _t
    _lib = _t.library.Library("torchvision", "DEF")
    for _n in ("nms", "qnms", "roi_align", "_roi_align_backward", "ps_roi_align", "_ps_roi_align_backward",
               "roi_pool", "_roi_pool_backward", "ps_roi_pool", "_ps_roi_pool_backward", "deform_conv2d",
               "_deform_conv2d_backward"):
        _lib.define(_n + "(Tensor[] args) -> Tensor")
"""


def run(script: str, tmp_path, *, alias: bool, timeout: float = 180):
    path = tmp_path / ("under_ember.py" if alias else "under_torch.py")
    path.write_text(("" if alias else _TORCH_PRELUDE) + textwrap.dedent(script))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "ember.run", str(path)] if alias else [sys.executable, str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp_path)
    assert r.returncode == 0, f"{'ember' if alias else 'torch'} run failed:\n{r.stderr[-4000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_both(script: str, tmp_path):
    """(torch's result, ember's result) of the same script, torch's run first (it may leave files,
    e.g. weights, for ember's run to read)."""
    return run(script, tmp_path, alias=False), run(script, tmp_path, alias=True)


def assert_same(ours, theirs, rtol=1e-5, atol=1e-6, path="result"):
    """Equal structure and strings; numbers equal within float32 tolerance."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), path
        for k in theirs:
            assert_same(ours[k], theirs[k], rtol, atol, f"{path}[{k!r}]")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{path}: {ours} != {theirs}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, rtol, atol, f"{path}[{i}]")
    elif isinstance(theirs, float) or isinstance(ours, float):
        assert abs(ours - theirs) <= atol + rtol * abs(theirs), f"{path}: {ours} != {theirs}"
    else:
        assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"
