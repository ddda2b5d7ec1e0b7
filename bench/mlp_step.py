"""One training step of the quickstart MLP (10->64->32->1, full batch 800x10, MSELoss, Adam):
ember vs torch in one process, one thread. Prints ms/step for both and the ratio.

Usage: ``python bench/mlp_step.py [--steps N] [--batch B] [--cpu-time] [--runs K] [--profile]`` (``--batch 1``: one sample
per step, where per-op overhead is everything) (``--profile`` adds a cProfile top-15 of
the ember step).
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


import numpy as np  # noqa: E402
import _timing  # noqa: E402  (bench/ is on sys.path when a benchmark runs)


def make_step(lib, batch: int = 800):
    """A closure running one optimisation step with library ``lib`` (ember or torch)."""
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((batch, 10)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((batch, 1)).astype(np.float32))
    nn = lib.nn
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


CLOCK = [None]  # ``--cpu-time``: time.process_time (the machine is shared with other jobs)


def time_step(step, steps: int, repeats: int = 5) -> float:
    """Best-of-``repeats`` mean milliseconds per step."""
    if CLOCK[0] is not None:
        return _timing.time_step(step, steps, repeats, warmup=20, clock=CLOCK[0])
    return _timing.time_step(step, steps, repeats, warmup=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=800)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cpu-time", action="store_true", help="time with the process's CPU clock")
    parser.add_argument("--runs", type=int, default=1, help="runs (the median ratio is printed)")
    args = parser.parse_args()
    if args.cpu_time:
        import time
        CLOCK[0] = time.process_time

    import torch

    import ember
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    runs = []
    for _ in range(args.runs):
        t_ms = time_step(make_step(torch, args.batch), args.steps)
        e_ms = time_step(make_step(ember, args.batch), args.steps)
        runs.append((e_ms / t_ms, t_ms, e_ms))
    ratio, t_ms, e_ms = sorted(runs)[len(runs) // 2]
    print(f"mlp_step ({args.batch}x10 -> 64 -> 32 -> 1, MSELoss, Adam), 1 thread, best of 5 x {args.steps} "
          f"steps{', CPU time' if args.cpu_time else ''}{f', median of {args.runs} runs' if args.runs > 1 else ''}")
    print(f"  torch  {t_ms:7.3f} ms/step")
    print(f"  ember  {e_ms:7.3f} ms/step")
    print(f"  ratio  {ratio:7.2f}x (ember / torch)")
    if args.profile:
        import cProfile
        import pstats
        step = make_step(ember, args.batch)
        for _ in range(20):
            step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.steps):
            step()
        prof.disable()
        print(f"\ncProfile of {args.steps} ember steps (top 15 by own time):")
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
