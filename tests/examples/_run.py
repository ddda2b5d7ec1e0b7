"""Run an example as ``python -m ember.examples.NAME`` in a subprocess (a hard timeout, no bars)."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_example(name: str, *args: str, tmp_path, timeout: int = 900) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               MPLBACKEND="Agg", EMBER_CACHE=str(tmp_path / "cache"), EMBER_EXAMPLES_NO_BAR="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", f"ember.examples.{name}", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def is_png(path) -> bool:
    path = pathlib.Path(path)
    return path.exists() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
