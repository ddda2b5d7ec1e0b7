"""Optimizer step time, ember vs torch in one process, one thread.

Adam and SGD (momentum 0.9) on (a) 10 float32 params of 1M elements and (b) 200 params of 1k
elements, for the default (single-tensor) path and ``foreach=True``. Prints ms/step and the
ember/torch ratio (target: at most 1.5 on every row).

Usage: ``python bench/optim.py [--repeats N] [--profile NAME]``.
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402

CASES = {"10x1M": (10, 1_000_000), "200x1k": (200, 1_000)}
OPTIMS = {"Adam": dict(lr=1e-3), "SGD-momentum": dict(lr=1e-3, momentum=0.9)}


def make_step(lib, optim: str, case: str, foreach):
    """A closure running one optimizer step over freshly built params with fixed gradients."""
    n, size = CASES[case]
    rng = np.random.default_rng(0)
    params = []
    for _ in range(n):
        p = lib.tensor(rng.standard_normal(size).astype(np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(size).astype(np.float32))
        params.append(p)
    cls = lib.optim.Adam if optim == "Adam" else lib.optim.SGD
    opt = cls(params, foreach=foreach, **OPTIMS[optim])
    return opt.step


def time_step(step, repeats: int) -> float:
    """Best-of-``repeats`` mean milliseconds per step (steps per repeat scaled to ~0.2 s)."""
    step()
    t0 = time.perf_counter()
    step()
    one = max(time.perf_counter() - t0, 1e-5)
    n = max(2, int(0.2 / one))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            step()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", default=None, help="cProfile one ember row, e.g. 'Adam,200x1k,False'")
    args = parser.parse_args()

    import torch

    import ember
    torch.set_num_threads(1)
    if args.profile:
        import cProfile
        import pstats
        optim, case, fe = args.profile.split(",")
        step = make_step(ember, optim, case, fe == "True")
        step()
        cProfile.runctx("for _ in range(50): step()", globals(), {"step": step}, "/tmp/optim.prof")
        pstats.Stats("/tmp/optim.prof").sort_stats("tottime").print_stats(15)
        return
    print(f"{'optimizer':<14}{'case':<8}{'path':<9}{'torch ms':>10}{'ember ms':>10}{'ratio':>8}")
    worst = 0.0
    for optim in OPTIMS:
        for case in CASES:
            for path, foreach in (("default", None), ("foreach", True)):
                t = time_step(make_step(torch, optim, case, foreach), args.repeats)
                e = time_step(make_step(ember, optim, case, foreach), args.repeats)
                worst = max(worst, e / t)
                print(f"{optim:<14}{case:<8}{path:<9}{t:>10.3f}{e:>10.3f}{e / t:>8.2f}")
    print(f"worst ratio {worst:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
