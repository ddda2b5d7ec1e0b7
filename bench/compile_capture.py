"""ember.compile capture costs, ember and torch in one process, one thread.

1. warm-cache overhead per call of a compiled module with 10 tensor inputs (guards + dispatch):
   compiled call minus eager call, both libraries with the same trivial backend (returns gm.forward);
2. capture time of a 6-layer GPT forward (first call of the compiled model minus an eager call);
3. the quickstart MLP training step with the forward compiled under ``backend="eager"`` vs eager.

Usage: ``python bench/compile_capture.py [--steps N]``. Targets (issue 18): warm overhead <= torch's;
MLP step eager-backend/eager <= 1.1; capture < 1 s.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import _timing  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))


def trivial_backend(gm, example_inputs):
    return gm.forward


class Recording:
    """The trivial backend, keeping the graph and its inputs so the graph alone can be timed."""

    def __call__(self, gm, example_inputs):
        self.gm, self.inputs = gm, list(example_inputs)
        return gm.forward


def ten_input_module(lib):
    class TenInputs(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, a, b, c, d, e, f, g, h, i, j):
            return self.lin(a + b + c + d + e + f + g + h + i + j)
    return TenInputs()


def warm_overhead(lib, steps):
    """(graph alone us/call, compiled call us/call) for the 10-input module: the difference is
    what the compiled wrapper adds (argument binding, guards, dispatch, output rebuild)."""
    lib.manual_seed(0)
    m = ten_input_module(lib)
    xs = [lib.randn(2, 4) for _ in range(10)]
    rec = Recording()
    cm = lib.compile(m, backend=rec)
    with lib.no_grad():
        cm(*xs)
        graph, comp = interleaved(lambda: rec.gm.forward(*rec.inputs), lambda: cm(*xs), steps, rounds=9)
    return graph * 1e3, comp * 1e3


def gpt(lib, n_layer=6, d=64, heads=4, vocab=128, block=32):
    nn, F = lib.nn, lib.nn.functional

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv, self.proj, self.h = nn.Linear(d, 3 * d), nn.Linear(d, d), heads

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.qkv(x).split(C, dim=2)
            q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
            k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
            v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.attn, self.ln2 = nn.LayerNorm(d), Attn(), nn.LayerNorm(d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(block, d)
            self.blocks = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            t = idx.size(1)
            x = self.wte(idx) + self.wpe(lib.arange(t))
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.ln_f(x))
    return GPT()


def capture_seconds(lib):
    lib.manual_seed(0)
    m = gpt(lib)
    idx = lib.randint(0, 128, (2, 32))
    m(idx)  # warm: the first eager call pays one-time costs of its own
    t0 = time.perf_counter()
    m(idx)
    eager = time.perf_counter() - t0
    cm = lib.compile(m, backend=trivial_backend)
    t0 = time.perf_counter()
    cm(idx)
    return time.perf_counter() - t0 - eager


def mlp_step(lib, compiled):
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((800, 10)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((800, 1)).astype(np.float32))
    nn = lib.nn
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    fwd = lib.compile(model, backend="eager") if compiled else model

    def step():
        opt.zero_grad()
        loss = loss_fn(fwd(x), y)
        loss.backward()
        opt.step()
    return step


def interleaved(steps_a, steps_b, n, rounds=7):
    """Best ms/step of two step functions timed in alternation (shared-machine noise hits both)."""
    a = b = float("inf")
    for _ in range(rounds):
        a = min(a, _timing.time_step(steps_a, n, 1, warmup=5))
        b = min(b, _timing.time_step(steps_b, n, 1, warmup=5))
    return a, b


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    import ember
    import torch
    torch.set_num_threads(1)
    import logging
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)

    print("1. warm-cache call of a compiled 10-input module (trivial backend), us/call")
    res = {}
    for name, lib in (("ember", ember), ("torch", torch)):
        graph, comp = warm_overhead(lib, args.steps)
        res[name] = comp - graph
        print(f"   {name:5s} graph alone {graph:7.1f}  compiled call {comp:7.1f}  "
              f"overhead {comp - graph:7.1f}")
    print(f"   overhead ratio ember/torch: {res['ember'] / res['torch']:.2f} (target <= 1)")

    print("2. capture of a 6-layer GPT forward (first compiled call minus a warm eager call), s")
    for name, lib in (("ember", ember), ("torch", torch)):
        print(f"   {name:5s} {capture_seconds(lib):.3f}")

    print("3. quickstart MLP step, forward compiled with backend='eager', ms/step")
    for name, lib in (("ember", ember), ("torch", torch)):
        e, c = interleaved(mlp_step(lib, False), mlp_step(lib, True), max(args.steps // 10, 50))
        print(f"   {name:5s} eager {e:7.3f}  compiled {c:7.3f}  ratio {c / e:.2f}"
              + ("  (target <= 1.1)" if name == "ember" else ""))


if __name__ == "__main__":
    main()
