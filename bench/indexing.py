"""Basic indexing overhead, ember vs torch in one process, one thread: ``x[i]``, ``x[a:b]``, ``x[::2]``,
``x[i, j]`` and ``x[i]`` on a tensor that requires grad. Prints microseconds per call and the ratio.

Usage: ``python bench/indexing.py [--number N] [--repeat R]``.
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
         ("x[i] (requires_grad)", lambda x, g: g[3])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    import torch

    import ember
    torch.set_num_threads(1)
    a = np.random.default_rng(0).standard_normal((100, 10)).astype(np.float32)
    inputs = {lib: (lib.tensor(a), lib.tensor(a, requires_grad=True)) for lib in (torch, ember)}
    print(f"{'index':<22}{'torch us':>10}{'ember us':>10}{'ratio':>8}")
    for name, fn in CASES:
        us = {}
        for lib, (x, g) in inputs.items():
            best = min(timeit.repeat(lambda: fn(x, g), number=args.number, repeat=args.repeat))
            us[lib] = best / args.number * 1e6
        print(f"{name:<22}{us[torch]:>10.2f}{us[ember]:>10.2f}{us[ember] / us[torch]:>8.2f}")


if __name__ == "__main__":
    main()
