"""nn.functional ops, ember vs torch in one process at one thread: ms per call and the ratio.

Each case in ``CASES`` is ``(name, setup)`` where ``setup(lib)`` returns a zero-argument closure
running the op (forward, or forward + backward) with library ``lib`` (ember or torch) on the same
data. Append cases to extend the table.

Usage: ``python bench/ops.py [--only SUBSTRING] [--repeats N] [--thread-time]``
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402


def _data(lib, shape, requires_grad=False, seed=0):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    t = lib.tensor(arr)
    return t.requires_grad_() if requires_grad else t


def conv2d_fwd(lib):
    """conv2d forward: batch 64, 3->16 channels, 32x32, 3x3, padding 1."""
    x, w, b = _data(lib, (64, 3, 32, 32)), _data(lib, (16, 3, 3, 3), seed=1), _data(lib, (16,), seed=2)
    F = lib.nn.functional
    return lambda: F.conv2d(x, w, b, padding=1)


def conv2d_fwd_bwd(lib, input_grad=False):
    """conv2d forward + backward (weight and bias grads; input grad when ``input_grad``)."""
    x = _data(lib, (64, 3, 32, 32), requires_grad=input_grad)
    w, b = _data(lib, (16, 3, 3, 3), True, 1), _data(lib, (16,), True, 2)
    F = lib.nn.functional

    def run():
        w.grad = b.grad = x.grad = None
        F.conv2d(x, w, b, padding=1).sum().backward()
    return run


def max_pool2d_fwd(lib):
    """max_pool2d forward: (64, 16, 32, 32), kernel 2."""
    x = _data(lib, (64, 16, 32, 32))
    F = lib.nn.functional
    return lambda: F.max_pool2d(x, 2)


def max_pool2d_fwd_bwd(lib):
    """max_pool2d forward + backward: (64, 16, 32, 32), kernel 2."""
    x = _data(lib, (64, 16, 32, 32), requires_grad=True)
    F = lib.nn.functional

    def run():
        x.grad = None
        F.max_pool2d(x, 2).sum().backward()
    return run


CASES = [
    ("conv2d fwd", conv2d_fwd),
    ("conv2d fwd+bwd (w, b)", conv2d_fwd_bwd),
    ("conv2d fwd+bwd (x, w, b)", lambda lib: conv2d_fwd_bwd(lib, input_grad=True)),
    ("max_pool2d fwd", max_pool2d_fwd),
    ("max_pool2d fwd+bwd", max_pool2d_fwd_bwd),
]



# ---------------------------------------------------------------- normalisation, softmax, embedding,
# attention and cross_entropy (appended by the norm/attention family)
def layer_norm_fwd_bwd(lib):
    """layer_norm forward + backward: (64, 128, 256) over the last dim, with weight and bias."""
    x = _data(lib, (64, 128, 256), requires_grad=True)
    w, b = _data(lib, (256,), True, 1), _data(lib, (256,), True, 2)
    F = lib.nn.functional

    def run():
        x.grad = w.grad = b.grad = None
        F.layer_norm(x, (256,), w, b).sum().backward()
    return run


def softmax_fwd_bwd(lib):
    """softmax forward + backward: (64, 8, 128, 128) attention scores over the last dim."""
    x = _data(lib, (64, 8, 128, 128), requires_grad=True)
    g = _data(lib, (64, 8, 128, 128), seed=3)
    F = lib.nn.functional

    def run():
        x.grad = None
        F.softmax(x, -1).backward(g)
    return run


def embedding_bwd(lib):
    """embedding forward + backward: 30000 x 256 table, (64, 128) indices."""
    w = _data(lib, (30000, 256), requires_grad=True)
    idx = lib.tensor(np.random.default_rng(4).integers(0, 30000, (64, 128)))
    g = _data(lib, (64, 128, 256), seed=5)
    F = lib.nn.functional

    def run():
        w.grad = None
        F.embedding(idx, w).backward(g)
    return run


def sdpa_fwd_bwd(lib):
    """scaled_dot_product_attention forward + backward: (32, 8, 128, 64), causal."""
    q, k, v = (_data(lib, (32, 8, 128, 64), True, s) for s in (6, 7, 8))
    F = lib.nn.functional

    def run():
        q.grad = k.grad = v.grad = None
        F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    return run


def cross_entropy_fwd_bwd(lib, n):
    """cross_entropy forward + backward on (n, 10) logits."""
    x = _data(lib, (n, 10), requires_grad=True)
    y = lib.tensor(np.random.default_rng(9).integers(0, 10, n))
    F = lib.nn.functional

    def run():
        x.grad = None
        F.cross_entropy(x, y).backward()
    return run


CASES += [
    ("layer_norm fwd+bwd", layer_norm_fwd_bwd),
    ("softmax fwd+bwd", softmax_fwd_bwd),
    ("embedding fwd+bwd", embedding_bwd),
    ("sdpa causal fwd+bwd", sdpa_fwd_bwd),
    ("cross_entropy (32, 10) fwd+bwd", lambda lib: cross_entropy_fwd_bwd(lib, 32)),
    ("cross_entropy (800, 10) fwd+bwd", lambda lib: cross_entropy_fwd_bwd(lib, 800)),
]


CLOCK = time.perf_counter


def time_fn(fn, repeats: int, min_time: float = 0.2) -> float:
    """Best-of-``repeats`` mean milliseconds per call (each repeat runs at least ``min_time`` s)."""
    fn()
    t0 = CLOCK()
    fn()
    once = max(CLOCK() - t0, 1e-6)
    n = max(1, int(min_time / once))
    best = float("inf")
    for _ in range(repeats):
        t0 = CLOCK()
        for _ in range(n):
            fn()
        best = min(best, (CLOCK() - t0) / n)
    return best * 1e3


def main(argv=None) -> list:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="", help="run the cases whose name contains this")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--thread-time", action="store_true",
                   help="time on this thread's CPU clock (fairer on a machine shared with other jobs)")
    args = p.parse_args(argv)
    global CLOCK
    CLOCK = time.thread_time if args.thread_time else time.perf_counter
    import torch

    import ember
    torch.set_num_threads(1)
    rows = []
    print(f"{'case':34s} {'ember ms':>10s} {'torch ms':>10s} {'ratio':>7s}")
    for name, setup in CASES:
        if args.only not in name:
            continue
        te = time_fn(setup(ember), args.repeats)
        tt = time_fn(setup(torch), args.repeats)
        rows.append((name, te, tt, te / tt))
        print(f"{name:34s} {te:10.3f} {tt:10.3f} {te / tt:7.2f}", flush=True)
    return rows


if __name__ == "__main__":
    main()
