"""conv2d on the shapes of issue 21, ember vs torch in one process at one thread: ms and ratio.

Shapes: the table's conv (64x3x32x32 -> 16, 3x3, pad 1), LeNet-5's two convs (batch 64), ResNet-18
layer1 (batch 8, 64 -> 64, 3x3 on 56x56), a 1x1 conv and a depthwise 3x3 conv. Each is timed forward
and forward+backward; backward computes the weight and bias grads, plus the input grad except for
a network's first conv (where nothing upstream needs it).

The process picks OpenBLAS's AVX-512 kernels as ``python -m ember.run`` does (``OPENBLAS_CORETYPE=
SkylakeX`` when ``/proc/cpuinfo`` lists avx512f and the variable is unset); ``--no-avx512`` keeps
OpenBLAS's own choice. ``--gflops`` prints a large sgemm's GFLOP/s with and without the variable,
each measured in a fresh subprocess.

Usage: ``python bench/conv.py [--only SUBSTRING] [--repeats N] [--no-avx512] [--gflops] [--thread-time]``
"""
from __future__ import annotations

import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def _has_avx512() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


if "--no-avx512" not in sys.argv and _has_avx512():
    os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")

import argparse  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

# (name, x shape, weight shape, kwargs, input grad in fwd+bwd)
SHAPES = [
    ("table 64x3x32x32 -> 16 3x3 p1", (64, 3, 32, 32), (16, 3, 3, 3), dict(padding=1), False),
    ("lenet c1 64x1x28x28 -> 6 5x5 p2", (64, 1, 28, 28), (6, 1, 5, 5), dict(padding=2), False),
    ("lenet c2 64x6x14x14 -> 16 5x5", (64, 6, 14, 14), (16, 6, 5, 5), {}, True),
    ("resnet l1 8x64x56x56 3x3 p1", (8, 64, 56, 56), (64, 64, 3, 3), dict(padding=1), True),
    ("1x1 16x64x28x28 -> 128", (16, 64, 28, 28), (128, 64, 1, 1), {}, True),
    ("depthwise 16x64x28x28 3x3 p1", (16, 64, 28, 28), (64, 1, 3, 3), dict(padding=1, groups=64), True),
    ("stride2 16x32x28x28 -> 64 3x3", (16, 32, 28, 28), (64, 32, 3, 3), dict(padding=1, stride=2), True),
]


def _arr(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def setup(lib, xs, ws, kw, input_grad, backward):
    x = lib.tensor(_arr(xs, 0)).requires_grad_(backward and input_grad)
    w = lib.tensor(_arr(ws, 1) * 0.1).requires_grad_(backward)
    b = lib.tensor(_arr(ws[:1], 2)).requires_grad_(backward)
    F = lib.nn.functional
    if not backward:
        return lambda: F.conv2d(x, w, b, **kw)
    g = lib.tensor(_arr(F.conv2d(x, w, b, **kw).shape, 3))

    def run():
        x.grad = w.grad = b.grad = None
        F.conv2d(x, w, b, **kw).backward(g)
    return run


CLOCK = time.perf_counter


def time_pair(fa, fb, repeats: int, min_time: float = 0.1):
    """Best-of-``repeats`` mean ms per call of ``fa`` and of ``fb``, timed in alternation so load
    from other processes hits both alike."""
    n = []
    for f in (fa, fb):
        f()
        t0 = CLOCK()
        f()
        n.append(max(1, int(min_time / max(CLOCK() - t0, 1e-6))))
    best = [float("inf")] * 2
    for _ in range(repeats):
        for i, f in enumerate((fa, fb)):
            t0 = CLOCK()
            for _ in range(n[i]):
                f()
            best[i] = min(best[i], (CLOCK() - t0) / n[i])
    return best[0] * 1e3, best[1] * 1e3


_GEMM = ("import time, numpy as np; from threadpoolctl import threadpool_info; n = 2048; "
         "a = np.ones((n, n), np.float32); b = a.copy(); a @ b; "
         "best = min((lambda t: (a @ b, time.thread_time() - t)[1])(time.thread_time()) for _ in range(5)); "
         "arch = [i.get('architecture') for i in threadpool_info() if i.get('internal_api') == 'openblas']; "
         "print(f'{2 * n ** 3 / best / 1e9:.0f} GFLOP/s (OpenBLAS core: {arch})')")


def gflops() -> None:
    """sgemm 2048^3 GFLOP/s at one thread (thread CPU time), OpenBLAS's own kernels vs SkylakeX."""
    for label, core in (("default", None), ("SkylakeX", "SkylakeX")):
        env = dict(os.environ)
        env.pop("OPENBLAS_CORETYPE", None)
        if core:
            if not _has_avx512():
                print(f"sgemm 2048 {label:9s}: skipped (no avx512f)")
                continue
            env["OPENBLAS_CORETYPE"] = core
        out = subprocess.run([sys.executable, "-c", _GEMM], env=env, capture_output=True, text=True,
                             timeout=120)
        print(f"sgemm 2048 {label:9s}: {out.stdout.strip() or out.stderr.strip()}")


def settle_malloc() -> None:
    """Bring glibc's allocator to a long-running program's steady state before timing.

    glibc serves a large block from a fresh ``mmap`` until a block of that size has been freed once
    (the dynamic mmap threshold then rises, up to 32 MiB); each fresh mapping page-faults on first
    touch. The first case timed in a new process would otherwise pay ~2000 page faults per call
    (measured: table forward 5.7 ms instead of 1.7 ms, torch likewise 4.9 instead of 1.0), a cost a
    training loop pays once. Freeing one large touched block raises the threshold for both libraries.
    """
    block = np.ones(24 << 18, np.float32)  # 24 MiB
    del block


def main(argv=None) -> list:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="", help="run the cases whose name contains this")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--no-avx512", action="store_true", help="keep OpenBLAS's own kernel choice")
    p.add_argument("--gflops", action="store_true", help="print sgemm GFLOP/s with and without AVX-512")
    p.add_argument("--thread-time", action="store_true",
                   help="time on this thread's CPU clock (fairer on a machine shared with other jobs)")
    args = p.parse_args(argv)
    global CLOCK
    CLOCK = time.thread_time if args.thread_time else time.perf_counter
    if args.gflops:
        gflops()
    import torch

    import ember
    torch.set_num_threads(1)
    settle_malloc()
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    print(f"{'case':38s} {'ember ms':>9s} {'torch ms':>9s} {'ratio':>6s}")
    rows = []
    for name, xs, ws, kw, ig in SHAPES:
        if args.only not in name:
            continue
        for backward in (False, True):
            label = f"{name} {'f+b' if backward else 'fwd'}"
            te, tt = time_pair(setup(ember, xs, ws, kw, ig, backward),
                               setup(torch, xs, ws, kw, ig, backward), args.repeats)
            rows.append((label, te, tt, te / tt))
            print(f"{label:38s} {te:9.3f} {tt:9.3f} {te / tt:6.2f}", flush=True)
    return rows


if __name__ == "__main__":
    main()
