"""One training step of a GPT-style model (n_layer 4, n_head 4, n_embd 128, block 64, batch 8,
cross-entropy, Adam): torch eager vs ember eager vs ember with ``aot_module`` (graphs run by their
generated code, and node by node through the Interpreter as ``aot_eager`` does), one process, one
thread. Prints ms/step, ratios to torch, and the one-off trace + partition time.

Usage: ``python bench/aot_gpt.py [--steps N]``
"""
from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import _timing  # noqa: E402  (bench/ is on sys.path when a benchmark runs)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "_functorch"))
import _models  # noqa: E402

CONFIG = dict(vocab=64, n_layer=4, n_head=4, n_embd=128, block_size=64)


def make_step(lib, model_fn=None, fused=False):
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    idx = lib.tensor(rng.integers(0, 64, (8, 64)))
    tgt = lib.tensor(rng.integers(0, 64, (8, 64)))
    model = _models.build(lib).GPT(**CONFIG)
    run = model_fn(model) if model_fn is not None else model
    opt = lib.optim.Adam(model.parameters(), lr=1e-3, fused=fused) if fused else \
        lib.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        loss = run(idx, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args()
    import torch
    import ember
    from ember._functorch import aot_module, interpreter_compiler, nop
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    make_step(ember, lambda m: aot_module(m, nop))()
    first = time.perf_counter() - t0
    rows = [
        ("torch eager", make_step(torch)),
        ("ember eager", make_step(ember)),
        ("ember aot_module (codegen)", make_step(ember, lambda m: aot_module(m, nop))),
        ("ember aot_module + Adam(fused=True)", make_step(ember, lambda m: aot_module(m, nop), True)),
        ("ember aot (Interpreter, as aot_eager)",
         make_step(ember, lambda m: aot_module(m, interpreter_compiler))),
    ]
    base = None
    for name, step in rows:
        ms = _timing.time_step(step, args.steps, 3, 2)
        base = base or ms
        print(f"{name:40s} {ms:8.1f} ms/step   x{ms / base:5.2f} of torch")
    print(f"first ember aot step (trace + partition + run): {first * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
