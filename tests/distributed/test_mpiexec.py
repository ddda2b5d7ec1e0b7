"""Launch path 3: plain ``mpiexec -n N python script.py`` with ``init_process_group(backend="mpi")``.

One world per size runs every check of ``_checks.py`` (every collective, dtype and ReduceOp against
NumPy, objects, subgroups, stores, async handles); the 3-rank world covers uneven splits.
"""
import re
import subprocess
import sys

import pytest

from tests.distributed._launch import BIN, HERE, run


def test_import_and_is_available_do_not_initialise_mpi():
    code = ("import sys, ember, ember.distributed as d; assert d.is_available() and d.is_mpi_available(); "
            "assert not d.is_initialized(); import ember.multiprocessing, ember.distributed.run, ember.distributed.launch; "
            "print('mpi4py.MPI' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr


def test_collectives_before_init_raise_torchs_error():
    import ember
    import ember.distributed as dist
    for call in (lambda: dist.all_reduce(ember.ones(2)), dist.get_rank, dist.get_world_size, dist.barrier):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            call()
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        dist.init_process_group("nccl", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(AssertionError, match="Unknown backend type foo"):
        dist.init_process_group("foo", store=dist.HashStore(), rank=0, world_size=1)


def test_every_collective_in_one_3_rank_mpiexec_world():
    n = 3  # uneven splits; the 2-rank worlds run under torchrun and spawn
    out = run([BIN / "mpiexec", "-n", n, sys.executable, HERE / "_main_mpiexec.py"])
    assert out.returncode == 0, out.stdout + out.stderr
    oks = set(re.findall(r"rank (\d+) OK 32 checks", out.stdout))  # lines of ranks may interleave
    assert len(oks) == n, out.stdout + out.stderr
