"""Run one script under real torch and under ember's alias (`python -m ember.run`), each in a fresh
interpreter, and return what each printed as JSON on its last line."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# Prepended to the torch-side script to make packages invisible (import and metadata): torchvision
# 0.28.0 from the package index is built against CUDA torch and fails to import with this machine's
# CPU torch, and torchmetrics imports it whenever its metadata is present.
_HIDE = """
import importlib.metadata as _md, sys as _sys
_HIDDEN = {hidden!r}
class _Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in _HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
_sys.meta_path.insert(0, _Hide())
def _wrap(fn):
    def inner(name, *a, **k):
        if name in _HIDDEN:
            raise _md.PackageNotFoundError(name)
        return fn(name, *a, **k)
    return inner
_md.version, _md.distribution = _wrap(_md.version), _wrap(_md.distribution)
"""


def run(script: str, tmp_path, *, alias: bool, timeout: float = 180, hide=()):
    path = tmp_path / ("under_ember.py" if alias else "under_torch.py")
    prelude = _HIDE.format(hidden=tuple(hide)) if hide else ""
    path.write_text(prelude + textwrap.dedent(script))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "ember.run", str(path)] if alias else [sys.executable, str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp_path)
    assert r.returncode == 0, f"{'ember' if alias else 'torch'} run failed:\n{r.stderr[-4000:]}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_both(script: str, tmp_path, hide_from_torch=()):
    """(torch's result, ember's result) of the same script; ``hide_from_torch`` names packages the
    torch run must not see (ember's run sees everything installed, as a user's would)."""
    return run(script, tmp_path, alias=False, hide=hide_from_torch), run(script, tmp_path, alias=True)


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
