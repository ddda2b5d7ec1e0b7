"""First-class dims (``functorch.dim``), ember vs torch in one process at one thread: ms per call
(best of ``--repeats``, thread CPU time by default) and the ratio ember/torch.

Each case is written once against ``(torch-like module, dims module)``.

Usage: ``python bench/functorch_dim.py [--repeats N] [--wall]``
"""
from __future__ import annotations

import argparse
import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench._timing import time_step  # noqa: E402


def _data(lib, shape, seed=0, grad=False):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32),
                      requires_grad=grad)


def matmul(lib, D):
    """(A[i, k] * B[k, j]).sum(k) with A 128x256, B 256x128."""
    A, B = _data(lib, (128, 256)), _data(lib, (256, 128), 1)

    def step():
        i, j, k = D.dims(3)
        return (A[i, k] * B[k, j]).sum(k).order(i, j)
    return step


def attention_fwd_bwd(lib, D):
    """Attention written with dims (batch 4, channels 32, 64 keys/queries), forward + backward."""
    K, Q, V = (_data(lib, (4, 32, 64), s, True) for s in range(3))

    def step():
        batch, channel, key, query = D.dims(4)
        a = (K[batch, channel, key] * Q[batch, channel, query]).sum(channel)
        a = D.softmax(a * channel.size ** -0.5, dim=key)
        r = (V[batch, channel, key] * a).sum(key).order(batch, channel, query)
        r.sum().backward()
    return step


def reductions(lib, D):
    """sum / mean / max / softmax over dims of a 64x32x16 tensor."""
    x = _data(lib, (64, 32, 16))

    def step():
        b, c, w = D.dims(3)
        t = x[b, c, w]
        return t.sum(w).order(b, c), t.mean((c, w)).order(b), t.max(c).values.order(b, w), \
            t.softmax(w).order(b, c, w)
    return step


CASES = [matmul, attention_fwd_bwd, reductions]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--wall", action="store_true", help="wall-clock time instead of thread CPU time")
    args = ap.parse_args(argv)
    import torch
    from functorch import dim as tdim

    import ember
    from ember.functorch import dim as edim
    torch.set_num_threads(1)
    clock = time.perf_counter if args.wall else time.thread_time
    print(f"{'case':<22}{'torch ms':>10}{'ember ms':>10}{'ember/torch':>13}")
    for case in CASES:
        t_ms = time_step(case(torch, tdim), 3, args.repeats, 2, clock)
        e_ms = time_step(case(ember, edim), 3, args.repeats, 2, clock)
        print(f"{case.__name__:<22}{t_ms:>10.2f}{e_ms:>10.2f}{e_ms / t_ms:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
