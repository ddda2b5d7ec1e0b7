"""Test-wide settings: one thread everywhere (two pytest workers on two cores), torch as the oracle."""
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
# child processes (examples, MPI ranks, workers) import the ember of this checkout, installed or not
_ROOT = os.path.dirname(os.path.abspath(__file__))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)

import torch  # noqa: E402  (the oracle; ember itself never imports it)

torch.set_num_threads(1)

# the alias's child-process shim is a package named `torch`: importing it would alias this process
collect_ignore_glob = ["ember/_alias_path/*"]
