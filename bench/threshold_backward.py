"""ReLU's derivative (``threshold_backward``): ember's kernel against the bare mask product it
refines, the previous check (a sum) and torch's ``aten.threshold_backward``, one thread, same process.

ember's kernel must give 0 for an inactive unit even when the incoming gradient is NaN/inf (torch's
result), which the bare product ``grad * (y > 0)`` does not. The columns are microseconds per call;
``kernel/bare`` is what the NaN/inf safety costs, ``op/torch`` the op through ember's dispatch
(fast path) against torch's op.

Usage: ``python bench/threshold_backward.py [--repeat R]``
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import timeit  # noqa: E402

import numpy as np  # noqa: E402

SHAPES = ((8,), (64, 64), (800, 64), (8, 64, 56, 56))


def _bare(grad, y):
    return np.multiply(grad, y > 0, dtype=grad.dtype)


def _sum_checked(grad, y):
    """The previous kernel: the mask product, then a sum to notice NaN/inf."""
    active = y > 0
    res = np.multiply(grad, active, dtype=grad.dtype)
    if res.size and not np.isfinite(np.add.reduce(res, axis=None)):
        res = np.where(active, grad, grad.dtype.type(0))
    return res


def _us(fn, repeat: int) -> float:
    fn()
    number = 1
    while timeit.timeit(fn, number=number) < 0.05:
        number *= 4
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import torch
    from threadpoolctl import threadpool_limits

    import ember
    from ember._primitives.pointwise_backward import threshold_backward as tb
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    print(f"{'shape':<18}{'bare':>9}{'old':>9}{'kernel':>9}{'op':>9}{'torch':>9}{'kernel/bare':>13}"
          f"{'old/bare':>10}{'op/torch':>10}")
    with threadpool_limits(1):
        for shape in SHAPES:
            g = rng.standard_normal(shape).astype(np.float32)
            y = rng.standard_normal(shape).astype(np.float32)
            eg, ey = ember.from_numpy(g), ember.from_numpy(y)
            tg, ty = torch.from_numpy(g), torch.from_numpy(y)
            t = {"bare": _us(lambda: _bare(g, y), args.repeat),
                 "old": _us(lambda: _sum_checked(g, y), args.repeat),
                 "kernel": _us(lambda: tb.kernel(g, y), args.repeat),
                 "op": _us(lambda: tb(eg, ey), args.repeat),
                 "torch": _us(lambda: torch.ops.aten.threshold_backward(tg, ty, 0), args.repeat)}
            print(f"{str(shape):<18}" + "".join(f"{t[k]:>9.2f}" for k in ("bare", "old", "kernel", "op", "torch"))
                  + f"{t['kernel'] / t['bare']:>13.2f}{t['old'] / t['bare']:>10.2f}{t['op'] / t['torch']:>10.2f}")


if __name__ == "__main__":
    main()
