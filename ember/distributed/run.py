"""``python -m ember.distributed.run`` (torchrun): start ``--nproc-per-node`` ranks under one ``mpiexec``.

Each rank gets torchrun's environment (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``,
``GROUP_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``, ``TORCHELASTIC_RUN_ID``...) and runs the script,
which calls ``init_process_group("gloo")`` (or "mpi", or no backend). The launcher hosts the job's
TCP store at ``MASTER_ADDR:MASTER_PORT`` on node 0 and watches every rank through it: when one
fails or dies it ends the job within seconds (no process is left behind) and exits non-zero, as
torchrun does. Elastic membership and restarts are refused: ember runs a fixed world on MPI.

Example::

    python -m ember.distributed.run --standalone --nproc-per-node 2 train.py --epochs 3
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from argparse import REMAINDER, ArgumentParser
from datetime import timedelta

from .._blas_env import blas_env
from . import _mpi
from ._errors import DistNetworkError
from ._store import TCPStore

__all__ = ["get_args_parser", "parse_args", "run", "main"]

_UNSUPPORTED = {  # flag attribute -> (default, why)
    "max_restarts": (0, "restarts need elastic membership"),
    "log_dir": (None, "per-rank log files are not implemented; redirect mpiexec's output instead"),
    "redirects": ("0", "per-rank redirects are not implemented"),
    "tee": ("0", "per-rank tee is not implemented"),
    "local_ranks_filter": ("", "per-rank output filters are not implemented"),
    "run_path": (False, "--run-path is not implemented; ranks run the script in their own interpreter"),
    "no_python": (False, "--no-python is not implemented: ranks run Python scripts"),
}


def _flag(parser, name: str, **kw):
    parser.add_argument(f"--{name}", f"--{name.replace('-', '_')}", **kw)


def get_args_parser() -> ArgumentParser:
    """torchrun's command line (the flags ember can honour, plus the elastic ones it refuses)."""
    p = ArgumentParser(prog="ember.distributed.run", description="ember's torchrun: ranks on one MPI world")
    _flag(p, "nnodes", default="1", type=str)
    _flag(p, "nproc-per-node", default="1", type=str)
    _flag(p, "rdzv-backend", default="static", type=str)
    _flag(p, "rdzv-endpoint", default="", type=str)
    _flag(p, "rdzv-id", default="none", type=str)
    _flag(p, "rdzv-conf", default="", type=str)
    p.add_argument("--standalone", action="store_true")
    _flag(p, "max-restarts", default=0, type=int)
    _flag(p, "monitor-interval", default=0.1, type=float)
    _flag(p, "start-method", default="spawn", choices=["spawn", "fork", "forkserver"])
    _flag(p, "role", default="default", type=str)
    p.add_argument("-m", "--module", action="store_true")
    _flag(p, "no-python", action="store_true")
    _flag(p, "run-path", action="store_true")
    _flag(p, "log-dir", default=None, type=str)
    p.add_argument("-r", "--redirects", default="0", type=str)
    p.add_argument("-t", "--tee", default="0", type=str)
    _flag(p, "local-ranks-filter", default="", type=str)
    _flag(p, "node-rank", default=0, type=int)
    _flag(p, "master-addr", default="127.0.0.1", type=str)
    _flag(p, "master-port", default=29500, type=int)
    _flag(p, "local-addr", default=None, type=str)
    _flag(p, "shutdown-timeout", default=5, type=int)
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=REMAINDER)
    return p


def parse_args(args=None):
    return get_args_parser().parse_args(args)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _nproc(value: str) -> int:
    if value in ("auto", "cpu"):
        return os.cpu_count() or 1
    if value in ("gpu", "xpu"):
        raise ValueError(f"--nproc-per-node={value}: ember has no {value.upper()} devices")
    return int(value)


def _check_supported(args) -> None:
    for attr, (default, why) in _UNSUPPORTED.items():
        if getattr(args, attr) != default:
            raise ValueError(f"ember.distributed.run: --{attr.replace('_', '-')} is not supported: {why}")
    lo, _, hi = args.nnodes.partition(":")
    if hi and int(lo) != int(hi):
        raise ValueError(f"ember.distributed.run: elastic membership (--nnodes {args.nnodes}) is not supported: "
                         "ember runs a fixed world on MPI; give one node count")
    if args.rdzv_backend not in ("static", "c10d"):
        raise ValueError(f"ember.distributed.run: --rdzv-backend {args.rdzv_backend} is not supported "
                         "(use static or c10d with --rdzv-endpoint host:port, or --standalone)")


def config_from_args(args) -> dict:
    """The job: nodes, ranks per node, this node's rank, master address and port, run id."""
    _check_supported(args)
    nnodes = int(args.nnodes.partition(":")[0])
    addr, port, run_id = args.master_addr, args.master_port, args.rdzv_id
    if args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.rpartition(":")
        addr, port = host or args.rdzv_endpoint, int(p) if p else 29400
    if args.standalone:
        if nnodes != 1:
            raise ValueError("ember.distributed.run: --standalone runs one node (--nnodes 1)")
        addr, port, run_id = "localhost", _free_port(), str(uuid.uuid4())
    return {"nnodes": nnodes, "nproc": _nproc(args.nproc_per_node), "node_rank": args.node_rank,
            "master_addr": addr, "master_port": port, "run_id": run_id, "role": args.role,
            "monitor_interval": args.monitor_interval, "module": args.module,
            "script": args.training_script, "script_args": args.training_script_args,
            "shutdown_timeout": args.shutdown_timeout}


def _rank_env(cfg: dict, local_rank: int) -> dict:
    n = cfg["nproc"]
    rank, world = cfg["node_rank"] * n + local_rank, cfg["nnodes"] * n
    return {"RANK": rank, "LOCAL_RANK": local_rank, "GROUP_RANK": cfg["node_rank"], "ROLE_RANK": rank,
            "ROLE_NAME": cfg["role"], "LOCAL_WORLD_SIZE": n, "WORLD_SIZE": world, "GROUP_WORLD_SIZE": cfg["nnodes"],
            "ROLE_WORLD_SIZE": world}


def mpiexec_command(cfg: dict, extra_args=None) -> list:
    """One MPMD ``mpiexec`` line: a block per rank with its own environment."""
    cmd = [_mpi.mpiexec_path()]
    for local_rank in range(cfg["nproc"]):
        if local_rank:
            cmd.append(":")
        cmd += ["-n", "1"]
        for key, value in _rank_env(cfg, local_rank).items():
            cmd += ["-env", key, str(value)]
        cmd += [sys.executable, "-u", "-m", "ember.distributed._rank_main", *(["-m"] if cfg["module"] else []),
                cfg["script"], *(extra_args(local_rank) if extra_args else ()), *cfg["script_args"]]
    return cmd


def _job_env(cfg: dict) -> dict:
    env = blas_env()  # the ranks' NumPy loads after this: OpenBLAS's AVX-512 kernels where the CPU has them
    env.update({"MASTER_ADDR": cfg["master_addr"], "MASTER_PORT": str(cfg["master_port"]),
                "TORCHELASTIC_RUN_ID": cfg["run_id"], "TORCHELASTIC_RESTART_COUNT": "0",
                "TORCHELASTIC_MAX_RESTARTS": "0", "TORCHELASTIC_USE_AGENT_STORE": "True"})
    if "OMP_NUM_THREADS" not in env and cfg["nproc"] > 1:
        print("ember.distributed.run: setting OMP_NUM_THREADS=1 for each rank (as torchrun does); tune it "
              "for your application", file=sys.stderr)
        env["OMP_NUM_THREADS"] = "1"
    return env


def _failure(store, cfg: dict):
    """A description of this node's failed or vanished ranks, or None while all is well (or when node 0's
    launcher, which serves the store, has already finished: mpiexec's exit code then tells)."""
    try:
        return _failure_in(store, cfg)
    except DistNetworkError:
        return None


def _failure_in(store, cfg: dict):
    n, vanished = cfg["nproc"], []
    for local_rank in range(n):
        rank = cfg["node_rank"] * n + local_rank
        if store.check([f"ember_run/status/{rank}"]):
            code = int(store.get(f"ember_run/status/{rank}"))
            if code:
                return f"rank {rank} exited with code {code}"
        elif store.check([f"ember_run/pid/{rank}"]):
            if not _alive(int(store.get(f"ember_run/pid/{rank}"))):
                vanished.append(rank)
    if vanished:
        return (f"rank(s) {', '.join(map(str, vanished))} ended without an exit status (killed by a signal, or "
                "stopped by mpiexec after another rank died)")
    if store.check(["ember_run/failed"]):
        return "on another node: " + store.get("ember_run/failed").decode()
    return None


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
    except OSError:
        return True


def _stop(proc, grace: float) -> None:
    """SIGTERM the job's process group, SIGKILL it after ``grace`` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            if sig == signal.SIGKILL:
                return
        except subprocess.TimeoutExpired:
            continue
    # hydra's helpers may outlive mpiexec itself: make sure the whole group is gone
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def launch(cfg: dict, extra_args=None) -> int:
    """Run the job; its exit code (0, or 1 when a rank failed, as torchrun)."""
    leader = cfg["node_rank"] == 0
    store = TCPStore("127.0.0.1" if leader else cfg["master_addr"], cfg["master_port"],
                     cfg["nnodes"] * cfg["nproc"], is_master=leader, timeout=timedelta(seconds=300))
    proc = subprocess.Popen(mpiexec_command(cfg, extra_args), env=_job_env(cfg), start_new_session=True)
    forward = lambda signum, frame: os.killpg(proc.pid, signum)  # noqa: E731
    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    failure = None
    try:
        while proc.poll() is None:
            failure = _failure(store, cfg)
            if failure is not None:
                _report_failed(store, failure)
                _stop(proc, grace=min(cfg["shutdown_timeout"], 2))
                break
            time.sleep(cfg["monitor_interval"])
        code = proc.wait()
        failure = failure or _failure(store, cfg)
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        _stop(proc, grace=0.5)
    if failure is None and code == 0:
        return 0
    print(f"ember.distributed.run: the job failed: {failure or f'mpiexec exited with code {code}'}; "
          "every rank was stopped", file=sys.stderr)
    return 1


def _report_failed(store, failure: str) -> None:
    if failure.startswith("on another node"):
        return
    try:
        store.set("ember_run/failed", failure)
    except Exception:
        pass


def run(args) -> int:
    return launch(config_from_args(args))


def main(args=None) -> None:
    try:
        sys.exit(run(parse_args(args)))
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
