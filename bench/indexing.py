"""Indexing overhead, ember vs torch in one process, one thread, on a (100, 10) float32 tensor: ``x[i]``,
``x[a:b]``, ``x[::2]``, ``x[i, j]``, ``x[:, i]``, ``x[mask]`` (a bool tensor), ``x[idx]`` (an int64 tensor
of 8 rows) and ``x[i]`` on a tensor that requires grad. Prints microseconds per call (best of R) and the
ratio.

Usage: ``python bench/indexing.py [--number N] [--repeat R] [--runs K] [--cpu-time]``.
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402

CASES = [("x[i]", lambda x, g: x[3]), ("x[-1]", lambda x, g: x[-1]), ("x[a:b]", lambda x, g: x[2:5]),
         ("x[::2]", lambda x, g: x[::2]), ("x[i, j]", lambda x, g: x[3, 4]),
         ("x[:, i]", lambda x, g: x[:, 4]), ("x[mask]", lambda x, g: x[MASK[x.__module__]]),
         ("x[idx]", lambda x, g: x[IDX[x.__module__]]), ("x[i] (requires_grad)", lambda x, g: g[3])]
MASK: dict = {}  # per library (keyed by the tensor class's module): a bool mask over the rows
IDX: dict = {}   # an int64 index tensor of 8 rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--runs", type=int, default=1, help="runs per row (the median ratio's run is printed)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the process's CPU clock (less disturbed by other processes)")
    args = parser.parse_args()
    import time
    timer = time.process_time if args.cpu_time else timeit.default_timer

    import torch

    import ember
    torch.set_num_threads(1)
    a = np.random.default_rng(0).standard_normal((100, 10)).astype(np.float32)
    inputs = {lib: (lib.tensor(a), lib.tensor(a, requires_grad=True)) for lib in (torch, ember)}
    rows = np.random.default_rng(1).random(100) < 0.5
    for lib, (x, _) in inputs.items():
        MASK[x.__module__] = lib.tensor(rows)
        IDX[x.__module__] = lib.tensor([3, 1, 4, 1, 5, 9, 2, 6])
    print(f"{'index':<22}{'torch us':>10}{'ember us':>10}{'ratio':>8}")
    for name, fn in CASES:
        samples = []
        for _ in range(args.runs):
            us = {}
            for lib, (x, g) in inputs.items():
                best = min(timeit.repeat(lambda: fn(x, g), number=args.number, repeat=args.repeat, timer=timer))
                us[lib] = best / args.number * 1e6
            samples.append((us[ember] / us[torch], us[torch], us[ember]))
        ratio, t_us, e_us = sorted(samples)[len(samples) // 2]
        print(f"{name:<22}{t_us:>10.2f}{e_us:>10.2f}{ratio:>8.2f}")


if __name__ == "__main__":
    main()
