"""Launch path 1: ``python -m ember.distributed.run`` (torchrun) and ``ember.distributed.launch``."""
import re
import sys

import pytest

from ember.distributed import launch, run
from tests.distributed._launch import HERE, run as run_job


def test_torchrun_world_runs_every_check_with_torchruns_environment():
    out = run_job([sys.executable, "-m", "ember.distributed.run", "--standalone", "--nproc-per-node", "2",
                   HERE / "_main_torchrun.py", "gloo"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(set(re.findall(r"rank (\d+) OK 32 checks", out.stdout))) == 2, out.stdout + out.stderr


def test_torchrun_command_and_environment():
    cfg = run.config_from_args(run.parse_args(["--nnodes", "2", "--node_rank", "1", "--nproc_per_node", "2",
                                               "--master-addr", "10.0.0.5", "--master-port", "1234",
                                               "train.py", "--lr", "0.1"]))
    cmd = run.mpiexec_command(cfg)
    assert cmd[0].endswith("mpiexec") and cmd.count(":") == 1 and cmd[-2:] == ["--lr", "0.1"]
    first = cmd[:cmd.index(":")]
    env = dict(zip(first[first.index("-env") + 1::3], first[first.index("-env") + 2::3]))
    assert env["RANK"] == "2" and env["LOCAL_RANK"] == "0" and env["WORLD_SIZE"] == "4"
    assert env["LOCAL_WORLD_SIZE"] == "2" and env["GROUP_RANK"] == "1"
    job = run._job_env(cfg)
    assert (job["MASTER_ADDR"], job["MASTER_PORT"], job["TORCHELASTIC_RUN_ID"]) == ("10.0.0.5", "1234", "none")
    standalone = run.config_from_args(run.parse_args(["--standalone", "--nproc-per-node", "3", "t.py"]))
    assert standalone["master_port"] > 0 and standalone["run_id"] != "none" and standalone["nproc"] == 3


@pytest.mark.parametrize("flags,message", [(["--max-restarts", "3"], "--max-restarts is not supported"),
                                           (["--nnodes", "1:4"], "elastic membership"),
                                           (["--rdzv-backend", "etcd"], "--rdzv-backend etcd is not supported"),
                                           (["--nproc-per-node", "gpu"], "no GPU devices")])
def test_elastic_flags_are_refused_clearly(flags, message):
    with pytest.raises(ValueError, match=message):
        run.config_from_args(run.parse_args(flags + ["train.py"]))


def test_deprecated_launch_passes_local_rank_unless_use_env():
    args = launch.parse_args(["--nproc-per-node", "2", "train.py", "x"])
    cmd = run.mpiexec_command(run.config_from_args(args), lambda r: [f"--local-rank={r}"])
    assert "--local-rank=0" in cmd and "--local-rank=1" in cmd and cmd[-1] == "x"
    assert launch.parse_args(["--use-env", "train.py"]).use_env


def test_two_nodes_join_one_world_through_the_store():
    """--nnodes 2: each node's launcher runs its own mpiexec; node 1's rank connects to node 0's MPI port."""
    import os
    import signal
    import subprocess

    from tests.distributed._launch import env, free_port
    port = free_port()
    procs = [subprocess.Popen([sys.executable, "-m", "ember.distributed.run", "--nnodes", "2", "--node-rank", str(node),
                               "--nproc-per-node", "1", "--master-port", str(port), HERE / "_main_torchrun.py", "mpi",
                               "--quick"], cwd=HERE, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True) for node in (0, 1)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=60))
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    text = "".join(o + e for o, e in outs)
    assert [p.returncode for p in procs] == [0, 0], text
    assert set(re.findall(r"rank (\d+) OK 1 checks", text)) == {"0", "1"}, text
