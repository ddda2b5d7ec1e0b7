"""Save and load a large float32 state dict (default 200 MB in 50 tensors) with ember and torch in one
run: ``save`` (ember's includes flush + fsync + atomic rename; torch's does not fsync, so ember is
also shown without fsync), ``load`` (ember's also with its opt-in storage CRC-32 check; torch never
checks), ``load(mmap=True)``, and each library loading the other's file. Prints the best and median
seconds per operation and the ember/torch ratio of the best times (target: within 1.5x; mmap near
instant). The page cache and the disk make single runs noisy: raise ``--repeats`` for steadier
numbers.

Usage: ``python bench/serialization.py [--mb 200] [--repeats 5] [--dir DIR]``
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import tempfile
import time
from collections import OrderedDict

import numpy as np


def timed(fe, ft, repeats: int):
    """Best and median seconds of ember's and torch's runs, alternated so that neither one always
    runs on a machine the other has just loaded. Dirty pages are flushed (``os.sync``, untimed)
    before each run: otherwise whichever runs after an un-fsynced save pays for its writeback."""
    te, tt = [], []
    for _ in range(repeats):
        for fn, out in ((fe, te), (ft, tt)):
            os.sync()
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return (min(te), float(np.median(te))), (min(tt), float(np.median(tt)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
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
        ("load (ember check_crc=True)", lambda: ember.load(ep, check_crc=True),
         lambda: torch.load(tp, weights_only=True)),
        ("load mmap=True", lambda: ember.load(ep, mmap=True),
         lambda: torch.load(tp, mmap=True, weights_only=True)),
        ("load the other's file", lambda: ember.load(tp), lambda: torch.load(ep, weights_only=True)),
    ]
    print(f"state dict: {n_tensors} float32 tensors, {args.mb} MB total; {args.repeats} alternated runs")
    print(f"{'operation':30s} {'ember best':>10s} {'(median)':>9s} {'torch best':>10s} {'(median)':>9s} "
          f"{'ratio':>6s}")
    for name, fe, ft in rows:
        (be, me), (bt, mt) = timed(fe, ft, args.repeats)
        print(f"{name:30s} {be:10.4f} {me:9.4f} {bt:10.4f} {mt:9.4f} {be / bt:6.2f}")
    got = ember.load(tp)
    assert all(np.array_equal(got[k].numpy(), t_sd[k].numpy()) for k in t_sd)
    del S
    for p in (ep, tp):
        os.remove(p)
    os.rmdir(d)


if __name__ == "__main__":
    main()
