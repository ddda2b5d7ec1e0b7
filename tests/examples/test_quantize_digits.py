"""The FX quantization example runs end to end: int8 within a point of float, 3x+ smaller."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.timeout(240)
def test_quantize_digits_example(tmp_path):
    root = str(Path(__file__).resolve().parents[2])  # this checkout's ember, whatever the cwd
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "ember.examples.quantize_digits", "--epochs", "3",
                           "--repeats", "2"], capture_output=True,
                          text=True, timeout=220, env=env, cwd=str(tmp_path))
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-3000:]
    float_acc = float(re.search(r"^float test accuracy: ([\d.]+)", out, re.M).group(1))
    int8_acc = float(re.search(r"^int8 test accuracy: ([\d.]+)", out, re.M).group(1))
    assert float_acc > 0.95 and float_acc - int8_acc < 0.01, out
    assert "ember.quantize_per_tensor(x, conv1_input_scale_0" in out and ".dequantize()" in out
    sizes = re.search(r"float (\d+) bytes, int8 (\d+) bytes", out)
    assert int(sizes.group(1)) / int(sizes.group(2)) > 3, out
    assert re.search(r"latency batch 1: float [\d.]+ ms, int8 [\d.]+ ms", out)
