"""A rank of a job that goes wrong on purpose; argv: mode, a directory for pid and result files.

modes: raise_before_init (rank 1 raises before init_process_group), raise_uncaught (rank 1 raises after
init while rank 0 waits in a collective), sigkill (rank 1 kills itself during a collective),
skip_collective (rank 1 raises and catches, skipping an all_reduce: rank 0 gets DistBackendError).
"""
import os
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path

import ember
import ember.distributed as dist


def main():
    mode, out = sys.argv[1], Path(sys.argv[2])
    rank = int(os.environ.get("RANK", os.environ.get("PMI_RANK", "0")))
    (out / f"pid{rank}").write_text(str(os.getpid()))
    if mode == "raise_before_init" and rank == 1:
        (out / "failed_at").write_text(repr(time.time()))
        raise ValueError("rank 1 fails before init_process_group")
    dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    dist.barrier()
    group = dist.new_group([0, 1], timeout=timedelta(seconds=1.5))
    if rank == 1 and mode == "raise_uncaught":
        (out / "failed_at").write_text(repr(time.time()))
        raise ValueError("rank 1 fails after init")
    if rank == 1 and mode == "sigkill":
        (out / "failed_at").write_text(repr(time.time()))
        os.kill(os.getpid(), signal.SIGKILL)
    if rank == 1 and mode == "skip_collective":
        try:
            raise ValueError("rank 1 fails before the collective")
        except ValueError:
            pass
        deadline = time.monotonic() + 30
        while not (out / "rank0_done").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return
    start = time.monotonic()
    try:
        if mode == "skip_collective":  # the group's own timeout= is honoured
            dist.all_reduce(ember.ones(8), group=group)
        else:
            dist.all_reduce(ember.ones(8))
        (out / f"result{rank}").write_text("no error")
    except dist.DistBackendError as e:
        (out / f"result{rank}").write_text(f"DistBackendError after {time.monotonic() - start:.2f}s: {e}")
        try:  # the group is aborted: later collectives fail at once
            dist.barrier(group=group)
        except dist.DistBackendError as again:
            (out / f"again{rank}").write_text(str(again))
    (out / "rank0_done").write_text("1")


if __name__ == "__main__":
    main()
