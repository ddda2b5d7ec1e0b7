"""All-reduce time vs message size: ember (MPI, mpi4py on MPICH) against torch (gloo) in one run.

``python bench/distributed.py`` starts ``mpiexec -n 2`` on this script; in that world every rank joins
an ember process group (COMM_WORLD) and a torch gloo group (TCP store on a free port), then times
float32 all-reduces from 4 KB to 64 MB in both, alternating sizes, one thread each. Rank 0 prints
the best block's mean per call and the ratio ember / torch (< 1 means ember is faster).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES_KB = [4, 16, 64, 256, 1024, 4096, 16384, 65536]
REPEATS = 7


def _launch(nproc: int) -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               BENCH_PORT=str(port), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    mpiexec = Path(sys.executable).parent / "mpiexec"
    return subprocess.call([str(mpiexec), "-n", str(nproc), sys.executable, __file__, "--rank"], env=env,
                           timeout=900)


def _rank() -> None:
    from datetime import timedelta

    import numpy as np
    import torch
    import torch.distributed as tdist

    import ember
    import ember.distributed as edist
    from bench._timing import time_step

    torch.set_num_threads(1)
    edist.init_process_group("mpi")
    rank, world = edist.get_rank(), edist.get_world_size()
    store = tdist.TCPStore("127.0.0.1", int(os.environ["BENCH_PORT"]), world, rank == 0,
                           timeout=timedelta(seconds=60))
    tdist.init_process_group("gloo", store=store, rank=rank, world_size=world)
    if rank == 0:
        print(f"all_reduce float32, {world} ranks (mpiexec -n {world}), best-of-{REPEATS} mean ms per call (blocks alternate)")
        print(f"{'size':>8} {'ember(MPI)':>11} {'torch(gloo)':>12} {'ratio':>7}")
    for kb in SIZES_KB:
        n = kb * 1024 // 4
        steps = max(3, min(200, (4 << 20) // (kb * 1024) * 3))
        e = ember.from_numpy(np.ones(n, np.float32))
        t = torch.ones(n)
        # the same call count on every rank (collectives must match); ember and torch blocks alternate so
        # both see the same machine load, and the best block of each counts
        ember_ms = torch_ms = float("inf")
        for _ in range(REPEATS):
            ember_ms = min(ember_ms, time_step(lambda: edist.all_reduce(e), steps, 1, 1))
            torch_ms = min(torch_ms, time_step(lambda: tdist.all_reduce(t), steps, 1, 1))
        # report the slower rank's figure, as a collective is as fast as its slowest member
        box = [None] * world
        edist.all_gather_object(box, (ember_ms, torch_ms))
        worst = [max(b[0] for b in box), max(b[1] for b in box)]
        if rank == 0:
            label = f"{kb} KB" if kb < 1024 else f"{kb // 1024} MB"
            print(f"{label:>8} {worst[0]:>11.3f} {worst[1]:>12.3f} {worst[0] / worst[1]:>6.2f}x", flush=True)
    tdist.destroy_process_group()
    edist.destroy_process_group()


if __name__ == "__main__":
    if "--rank" in sys.argv:
        _rank()
    else:
        sys.exit(_launch(int(os.environ.get("BENCH_NPROC", "2"))))
