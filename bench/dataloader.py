"""DataLoader throughput, ember vs torch in one run: samples/s with 0 and 2 workers.

50k samples of 3x32x32 float32 (one shared NumPy array, seen by both frameworks without a copy), a light
per-sample Python transform (normalise + random horizontal flip), batch 128.

    OMP_NUM_THREADS=1 python bench/dataloader.py [--n 50000] [--batch-size 128] [--repeat 5] [--thread-time]

``--thread-time`` times the 0-worker runs on this thread's CPU clock (fairer on a machine shared
with other jobs; both frameworks alike); runs with workers always use wall time, since the work
happens in other processes.

Each framework first runs one uncounted 0-worker epoch (one-time costs: ember loads its Numba loops
after 1000 calls, torch initialises its kernels), then the counted rounds run interleaved, the
framework that goes first alternating from round to round, so neither always follows the other's
worker shutdown; each configuration reports its best round.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def make_dataset(lib, data_module, images, labels):
    mean = lib.tensor([0.5, 0.4, 0.3]).reshape(3, 1, 1)
    std = lib.tensor([0.2, 0.25, 0.3]).reshape(3, 1, 1)
    x_all = lib.from_numpy(images)

    class Images(data_module.Dataset):
        def __len__(self):
            return len(labels)

        def __getitem__(self, i):
            x = (x_all[i] - mean) / std
            if random.random() < 0.5:
                x = x.flip(-1)
            return x, int(labels[i])

    return Images()


def run(lib, data_module, dataset, num_workers, batch_size, thread_time=False):
    loader = data_module.DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=num_workers)
    clock = time.thread_time if thread_time and num_workers == 0 else time.perf_counter
    t0 = clock()
    n = 0
    for x, y in loader:
        n += x.shape[0]
    dt = clock() - t0
    assert n == len(dataset)
    return n / dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=5,
                    help="rounds; each configuration reports its best round (the machine is shared)")
    ap.add_argument("--thread-time", action="store_true",
                    help="0 workers: time on this thread's CPU clock instead of the wall clock")
    args = ap.parse_args()

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import torch
    import torch.utils.data

    import ember
    import ember.utils.data

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    images = rng.random((args.n, 3, 32, 32), dtype=np.float32)
    labels = rng.integers(0, 10, args.n)
    libs = {"ember": (ember, ember.utils.data), "torch": (torch, torch.utils.data)}
    for lib, dm in libs.values():  # warm-up: one uncounted epoch each
        run(lib, dm, make_dataset(lib, dm, images, labels), 0, args.batch_size, args.thread_time)
    results = {}
    for r in range(args.repeat):  # interleaved rounds, so load from other processes hits every config alike
        for workers in (0, 2):
            for name in (("ember", "torch") if r % 2 == 0 else ("torch", "ember")):
                lib, dm = libs[name]
                ds = make_dataset(lib, dm, images, labels)
                rate = run(lib, dm, ds, workers, args.batch_size, args.thread_time)
                results.setdefault((name, workers), []).append(rate)
    print(f"DataLoader: {args.n} samples of 3x32x32 float32, batch {args.batch_size}, "
          f"normalise + random flip per sample (samples/s, best of "
          f"{args.repeat} interleaved rounds, higher is better"
          f"{'; 0 workers on thread CPU time' if args.thread_time else ''})")
    print(f"{'workers':>8} {'ember':>10} {'torch':>10} {'ember/torch':>12}   rounds (ember/torch)")
    for workers in (0, 2):
        es, ts = results["ember", workers], results["torch", workers]
        e, t = max(es), max(ts)
        print(f"{workers:>8} {e:>10.0f} {t:>10.0f} {e / t:>12.2f}   "
              + " ".join(f"{a / b:.2f}" for a, b in zip(es, ts)))


if __name__ == "__main__":
    main()
