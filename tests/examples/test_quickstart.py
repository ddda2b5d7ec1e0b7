"""The quickstart (README's main job) runs end to end in a subprocess and reaches its targets."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.timeout(300)
def test_quickstart_runs_and_learns(tmp_path):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MPLBACKEND="Agg", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.run([sys.executable, "-m", "ember.examples.quickstart", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=280, env=env, cwd=str(tmp_path))
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-3000:]
    r2 = float(re.search(r"test R\^2: ([-\d.]+)", out).group(1))
    mse = float(re.search(r"test MSE: ([\d.]+)", out).group(1))
    acc = float(re.search(r"^test accuracy: ([\d.]+)", out, re.M).group(1))
    conv_acc = float(re.search(r"^conv net test accuracy: ([\d.]+)", out, re.M).group(1))
    assert r2 > 0.9, out
    assert mse < 0.1, out
    assert acc >= 0.95, out
    assert conv_acc >= 0.97, out
    for k in range(1, 6):
        assert f"fold {k}/5" in out
    png = tmp_path / "regression_loss.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"loss curves saved to {png}" in out
    assert "confusion matrix" in out
    rows = [line.split() for line in out.splitlines() if re.match(r"^\s+\d\s+(\s*\d+){10}\s*$", line)]
    assert len(rows) == 10 and sum(int(v) for r in rows for v in r[1:]) == 360


def test_digits_data_is_package_data():
    from importlib import resources

    import numpy as np
    with resources.files("ember.examples").joinpath("data/digits.npz").open("rb") as f:
        d = np.load(f)
        images, target = d["images"], d["target"]
    assert images.shape == (1797, 8, 8) and images.dtype == np.uint8 and images.max() == 16
    assert target.shape == (1797,) and sorted(set(target.tolist())) == list(range(10))
