"""All-reduce time vs message size: ember (MPI, mpi4py on MPICH) against torch (gloo) in one run.

``python bench/distributed.py`` starts ``mpiexec -n 2`` on this script; in that world every rank joins
an ember process group (COMM_WORLD) and a torch gloo group (TCP store on a free port), then times
float32 all-reduces from 4 KB to 64 MB in both, alternating sizes, one thread each. Rank 0 prints
the best block's mean per call and the ratio ember / torch (< 1 means ember is faster).

Then DistributedDataParallel on a ~10M-parameter MLP (float32, 32 samples per rank), ember and torch
(gloo) in the same world: forward+backward alone (no DDP), the all-reduce of all gradients alone,
forward+backward under DDP (communication included: less than the sum means overlap), and the full
training step (SGD) under DDP against the same step without communication run on every rank at the
same time (weak scaling: efficiency = local step / DDP step). ``BENCH_PART=allreduce|ddp`` runs one part.
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
    part = os.environ.get("BENCH_PART", "all")
    for kb in (SIZES_KB if part in ("all", "allreduce") else []):
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
    if part in ("all", "ddp"):
        _ddp_figures(rank, world)
    tdist.destroy_process_group()
    edist.destroy_process_group()


WIDTHS = [1024, 2048, 2048, 1024, 1024]  # 9.4M parameters
BATCH = 32


def _ddp_figures(rank: int, world: int) -> None:
    import numpy as np
    import torch
    import torch.distributed as tdist

    import ember
    import ember.distributed as edist
    from bench._timing import time_step

    def mlp(nn):
        layers = []
        for a, b in zip(WIDTHS, WIDTHS[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        return nn.Sequential(*layers[:-1])

    x = np.random.default_rng(rank).standard_normal((BATCH, WIDTHS[0])).astype(np.float32)
    cases = {}
    for name, lib, dist, ddp_cls in (("ember", ember, edist, ember.nn.parallel.DistributedDataParallel),
                                     ("torch", torch, tdist, torch.nn.parallel.DistributedDataParallel)):
        lib.manual_seed(0)
        plain = mlp(lib.nn)
        ddp = ddp_cls(mlp(lib.nn))
        xs = lib.from_numpy(x)
        n_params = sum(p.numel() for p in plain.parameters())
        flat = lib.zeros(n_params)
        opt_plain = lib.optim.SGD(plain.parameters(), lr=1e-4)
        opt_ddp = lib.optim.SGD(ddp.parameters(), lr=1e-4)

        def fb(model):
            model.zero_grad()
            model(xs).square().mean().backward()

        def step(model, opt):
            opt.zero_grad()
            model(xs).square().mean().backward()
            opt.step()

        t = {}
        t["fwd+bwd"] = time_step(lambda: fb(plain), 4, 3, 1)
        t["all_reduce grads"] = time_step(lambda: dist.all_reduce(flat), 4, 3, 1)
        t["DDP fwd+bwd"] = time_step(lambda: fb(ddp), 4, 3, 1)
        t["local step"] = time_step(lambda: step(plain, opt_plain), 4, 3, 1)
        t["DDP step"] = time_step(lambda: step(ddp, opt_ddp), 4, 3, 1)
        box = [None] * world
        edist.all_gather_object(box, t)
        cases[name] = {k: max(b[k] for b in box) for k in t}
        cases[name]["params"] = n_params
    if rank == 0:
        e, t = cases["ember"], cases["torch"]
        print(f"\nDDP, MLP {WIDTHS} ({e['params'] / 1e6:.1f}M params), {BATCH} samples per rank, {world} ranks, "
              f"ms (slowest rank)")
        print(f"{'':>22} {'ember(MPI)':>11} {'torch(gloo)':>12} {'ratio':>7}")
        for k in ("fwd+bwd", "all_reduce grads", "DDP fwd+bwd", "local step", "DDP step"):
            print(f"{k:>22} {e[k]:>11.1f} {t[k]:>12.1f} {e[k] / t[k]:>6.2f}x")
        for name, c in cases.items():
            hidden = (c["fwd+bwd"] + c["all_reduce grads"] - c["DDP fwd+bwd"]) / c["all_reduce grads"]
            print(f"{name}: communication hidden by overlap {100 * hidden:.0f}% "
                  f"(fwd+bwd + all_reduce - DDP fwd+bwd, over all_reduce); "
                  f"weak-scaling efficiency at {world} ranks {100 * c['local step'] / c['DDP step']:.0f}%")


if __name__ == "__main__":
    if "--rank" in sys.argv:
        _rank()
    else:
        sys.exit(_launch(int(os.environ.get("BENCH_NPROC", "2"))))
