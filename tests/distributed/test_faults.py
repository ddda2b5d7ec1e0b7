"""Faults fail fast: a failing or killed rank ends the job within seconds, a skipped collective raises
DistBackendError within its timeout, and no process outlives the job."""
import sys
import time

from tests.distributed._launch import BIN, HERE, alive, processes_mentioning, run


def _pids(tmp_path, n):
    return [int((tmp_path / f"pid{r}").read_text()) for r in range(n) if (tmp_path / f"pid{r}").exists()]


def _torchrun(mode, tmp_path):
    out = run([sys.executable, "-m", "ember.distributed.run", "--standalone", "--nproc-per-node", "2",
               HERE / "_main_faults.py", mode, tmp_path])
    return out, _reaction(tmp_path)


def _reaction(tmp_path) -> float:
    """Seconds from the failing rank's last act to the end of the job (0 when nothing failed)."""
    marker = tmp_path / "failed_at"
    return time.time() - float(marker.read_text()) if marker.exists() else 0.0


def test_rank_raising_before_init_ends_the_torchrun_job(tmp_path):
    out, seconds = _torchrun("raise_before_init", tmp_path)
    assert out.returncode == 1 and "rank 1 fails before init_process_group" in out.stderr, out.stderr
    assert "the job failed: rank 1 exited with code 1" in out.stderr
    assert 0 < seconds < 10 and (tmp_path / "pid1").exists() and not processes_mentioning(str(tmp_path))


def test_sigkilled_rank_ends_the_torchrun_job(tmp_path):
    out, seconds = _torchrun("sigkill", tmp_path)
    assert out.returncode == 1 and "the job failed" in out.stderr, out.stderr
    assert 0 < seconds < 10 and not (tmp_path / "result0").exists()
    assert not alive(_pids(tmp_path, 2)) and not processes_mentioning(str(tmp_path))


def test_skipped_collective_raises_dist_backend_error_within_timeout(tmp_path):
    out, _ = _torchrun("skip_collective", tmp_path)
    assert out.returncode == 0, out.stderr
    result = (tmp_path / "result0").read_text()
    assert result.startswith("DistBackendError after"), result
    seconds = float(result.split("after ")[1].split("s:")[0])
    assert 1.5 <= seconds < 5, result  # new_group(timeout=1.5 s)
    assert "all_reduce timed out after 1500 ms on rank 0" in result and "timeout=0:00:01.5" in result
    assert "aborted by an earlier failure" in (tmp_path / "again0").read_text()
    assert not alive(_pids(tmp_path, 2)) and not processes_mentioning(str(tmp_path))


def test_uncaught_exception_ends_a_plain_mpiexec_job(tmp_path):
    out = run([BIN / "mpiexec", "-n", "2", sys.executable, HERE / "_main_faults.py", "raise_uncaught", tmp_path])
    assert out.returncode != 0 and "rank 1 fails after init" in out.stderr, out.stderr
    assert 0 < _reaction(tmp_path) < 10 and not (tmp_path / "result0").exists()
    assert not alive(_pids(tmp_path, 2)) and not processes_mentioning(str(tmp_path))

