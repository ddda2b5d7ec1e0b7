"""Save and load a large float32 state dict (default 200 MB in 50 tensors) with ember and torch in one
run: ``save`` (ember's includes flush + fsync + atomic rename; torch's does not fsync, so both are also
shown without fsync for ember), ``load``, ``load(mmap=True)``, and each library loading the other's
file. Prints seconds per operation and the ember/torch ratio (target: within 1.5x; mmap near instant).

Usage: ``python bench/serialization.py [--mb 200] [--repeats 3] [--dir DIR]``
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import tempfile  # noqa: E402
import time  # noqa: E402
from collections import OrderedDict  # noqa: E402

import numpy as np  # noqa: E402


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    import torch
    import ember
    torch.set_num_threads(1)
    n_tensors = 50
    per = args.mb * 2**20 // 4 // n_tensors
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(per, dtype=np.float32).reshape(-1, 256) for _ in range(n_tensors)]
    e_sd = OrderedDict((f"layer{i}.weight", ember.from_numpy(a)) for i, a in enumerate(arrays))
    t_sd = OrderedDict((f"layer{i}.weight", torch.from_numpy(a)) for i, a in enumerate(arrays))
    d = tempfile.mkdtemp(dir=args.dir)
    ep, tp = os.path.join(d, "ember.pt"), os.path.join(d, "torch.pt")
    import ember.serialization as S
    real_fsync = os.fsync

    def ember_save_nofsync():
        os.fsync = lambda fd: None
        try:
            ember.save(e_sd, ep)
        finally:
            os.fsync = real_fsync

    rows = [
        ("save", lambda: ember.save(e_sd, ep), lambda: torch.save(t_sd, tp)),
        ("save (ember without fsync)", ember_save_nofsync, lambda: torch.save(t_sd, tp)),
        ("load", lambda: ember.load(ep), lambda: torch.load(tp, weights_only=True)),
        ("load mmap=True", lambda: ember.load(ep, mmap=True),
         lambda: torch.load(tp, mmap=True, weights_only=True)),
        ("load the other's file", lambda: ember.load(tp), lambda: torch.load(ep, weights_only=True)),
    ]
    print(f"state dict: {n_tensors} float32 tensors, {args.mb} MB total; best of {args.repeats}")
    print(f"{'operation':30s} {'ember s':>9s} {'torch s':>9s} {'ratio':>7s}")
    for name, fe, ft in rows:
        te, tt = best(fe, args.repeats), best(ft, args.repeats)
        print(f"{name:30s} {te:9.4f} {tt:9.4f} {te / tt:7.2f}")
    got = ember.load(tp)
    assert all(np.array_equal(got[k].numpy(), t_sd[k].numpy()) for k in t_sd)
    del S
    for p in (ep, tp):
        os.remove(p)
    os.rmdir(d)


if __name__ == "__main__":
    main()
