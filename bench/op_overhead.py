"""Per-op overhead on tiny tensors: ember vs torch in one process, both at one thread.

Times (best of several ``timeit`` repeats, microseconds per call) for (8,) add, mul, relu, sum and a
64x64 matmul, each with inputs that do and do not require grad (forward only), and a 20-op chain
forward + backward on small tensors. Prints ember us, torch us and the ratio.

Usage: ``python bench/op_overhead.py [--number N] [--repeat R] [--profile]`` (``--profile`` adds a
cProfile summary of ember's own time for the add and the chain).
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402


def cases(lib):
    """name -> zero-argument callable, built with library ``lib`` (ember or torch)."""
    rng = np.random.default_rng(0)
    out = {}
    for grad in (False, True):
        tag = " (grad)" if grad else ""
        a = lib.tensor(rng.standard_normal(8).astype(np.float32), requires_grad=grad)
        b = lib.tensor(rng.standard_normal(8).astype(np.float32), requires_grad=grad)
        m1 = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32), requires_grad=grad)
        m2 = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32), requires_grad=grad)
        out["add (8,)" + tag] = lambda a=a, b=b: a + b
        out["mul (8,)" + tag] = lambda a=a, b=b: a * b
        out["relu (8,)" + tag] = lambda a=a: lib.relu(a)
        out["sum (8,)" + tag] = lambda a=a: a.sum()
        out["matmul 64x64" + tag] = lambda m1=m1, m2=m2: m1 @ m2
    out["chain 20 ops fwd+bwd"] = chain(lib, rng)
    return out


def chain(lib, rng):
    """20 small ops (pointwise, broadcast, reduction, matmul) and a backward through them."""
    x = lib.tensor(rng.standard_normal((4, 8)).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((8, 8)).astype(np.float32), requires_grad=True)
    bias = lib.tensor(rng.standard_normal(8).astype(np.float32), requires_grad=True)

    def run():
        h = x @ w                    # 1
        h = h + bias                 # 2
        h = h.relu()                 # 3
        h = h * 0.5                  # 4
        h = h - x                    # 5
        h = h.tanh()                 # 6
        h = h * h                    # 7
        h = h + 1.0                  # 8
        h = h.sqrt()                 # 9
        h = h.exp()                  # 10
        h = h / 3.0                  # 11
        h = h.sigmoid()              # 12
        h = h @ w                    # 13
        h = h.neg()                  # 14
        h = h.abs()                  # 15
        h = h + bias                 # 16
        h = h.log()                  # 17
        h = h.mean(1)                # 18
        h = h * 2.0                  # 19
        loss = h.sum()               # 20
        loss.backward()
        x.grad = w.grad = bias.grad = None
    return run


def best_us(fn, number: int, repeat: int) -> float:
    fn()  # warm caches (dtype plans, node classes)
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def profile(fn, n: int, title: str, top: int = 14) -> None:
    import cProfile
    import pstats
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    print(f"\n--- cProfile: ember {title}, {n} calls (tottime = own time per function) ---")
    pstats.Stats(prof).strip_dirs().sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()

    import torch
    from threadpoolctl import threadpool_limits

    import ember
    torch.set_num_threads(1)
    with threadpool_limits(1):
        e_cases, t_cases = cases(ember), cases(torch)
        print(f"{'op':<28}{'ember us':>10}{'torch us':>10}{'ratio':>8}")
        for name in e_cases:
            number = max(50, args.number // 20) if name.startswith("chain") else args.number
            e = best_us(e_cases[name], number, args.repeat)
            t = best_us(t_cases[name], number, args.repeat)
            print(f"{name:<28}{e:>10.2f}{t:>10.2f}{e / t:>8.2f}")
        if args.profile:
            profile(e_cases["add (8,)"], 20000, "add (8,)")
            profile(e_cases["add (8,) (grad)"], 20000, "add (8,) (grad)")
            profile(e_cases["chain 20 ops fwd+bwd"], 500, "chain 20 ops fwd+bwd")


if __name__ == "__main__":
    main()
