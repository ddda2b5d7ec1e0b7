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

# generated kernels (ember._inductor) compile into a project-local cache, reused between runs,
# with Numba bounds checks on
os.environ.setdefault("EMBER_CACHE", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  ".ember_cache"))
os.environ.setdefault("EMBER_BOUNDSCHECK", "1")


def pytest_runtest_teardown(item):
    # torch.compile and torch.cond run dynamo's one-time patch, which turns torch.distributions'
    # argument validation off for the whole process; the oracle validates again (torch's default)
    # in the tests that follow, whatever order they run in
    torch.distributions.Distribution.set_default_validate_args(__debug__)
