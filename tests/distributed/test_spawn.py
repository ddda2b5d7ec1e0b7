"""Launch path 2: ``ember.multiprocessing.spawn`` (each child under ``mpiexec -n 1``, joined through an MPI
port published in the TCP store), with torch's exceptions for failing children and no orphans."""
import re
import sys

import pytest

import ember.multiprocessing as mp
from tests.distributed._launch import HERE, alive, free_port, run


def test_spawn_world_runs_every_check_and_dataloader_workers():
    out = run([sys.executable, HERE / "_main_spawn.py", free_port(), "checks"])
    assert out.returncode == 0 and "parent joined" in out.stdout, out.stdout + out.stderr
    assert len(set(re.findall(r"rank (\d+) OK 33 checks", out.stdout))) == 2, out.stdout + out.stderr


def test_spawn_failures_raise_torchs_exceptions_and_leave_no_process(tmp_path):
    out = run([sys.executable, HERE / "_main_spawn.py", free_port(), "faults"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "raise: ProcessRaisedException index=1" in out.stdout, out.stdout + out.stderr
    assert "Process 1 terminated with the following error" in out.stdout
    assert "KeyError: 'child 1 raises on purpose'" in out.stdout
    assert ("sigkill: ProcessExitedException index=1 exit_code=-9 signal_name=SIGKILL: process 1 terminated "
            "with signal SIGKILL") in out.stdout
    pids = [int(p) for line in out.stdout.splitlines() if " pids: " in line for p in line.split(": ")[1].split()]
    assert len(pids) == 4 and not alive(pids), out.stdout


def test_exceptions_pickle_and_carry_torchs_fields():
    import pickle
    e = pickle.loads(pickle.dumps(mp.ProcessExitedException("process 1 terminated with signal SIGKILL", 1, 42, -9,
                                                            "SIGKILL")))
    assert (e.error_index, e.pid, e.exit_code, e.signal_name) == (1, 42, -9, "SIGKILL")
    assert issubclass(mp.ProcessRaisedException, mp.ProcessException)
    with pytest.raises(ValueError, match="Invalid start method"):
        mp.start_processes(print, nprocs=1, start_method="nope")
