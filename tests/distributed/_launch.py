"""Run a multi-process job from a test: own process group, hard timeout, killed as a whole on expiry."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
HARD_TIMEOUT = 60


def env(**extra) -> dict:
    e = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
             MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID",
              "PMI_RANK", "PMI_SIZE", "PMI_FD", "PMI_PORT", "PMI_ID", "HYDRA_CONTROL_FD"):
        e.pop(k, None)
    e.update({k: str(v) for k, v in extra.items()})
    return e


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd: list, timeout: float = HARD_TIMEOUT, cwd=None, **extra) -> subprocess.CompletedProcess:
    """Run ``cmd`` in a new session; on timeout kill its whole process group and fail loudly."""
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd or HERE, env=env(**extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"{cmd} exceeded {timeout}s and was killed\nstdout:\n{out}\nstderr:\n{err}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of the job may outlive the test
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def alive(pids) -> list:
    """The pids among ``pids`` that still exist (zombies excluded)."""
    left = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ")[-1].split()[0] != "Z":
                    left.append(pid)
        except FileNotFoundError:
            pass
    return left


def processes_mentioning(marker: str) -> list:
    """Live processes whose command line contains ``marker`` (e.g. a job's tmp dir): orphans if any."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read() and alive([int(entry)]):
                    found.append(int(entry))
        except OSError:
            pass
    return found
