"""One training step of three small models, ember vs torch eager in one process, one thread:
LeNet-5 (batch 64, 1x28x28), a 2-layer LSTM (batch 32, seq 50, hidden 256) and a transformer
encoder (4 layers, d_model 128, 4 heads, seq 64, batch 16). Prints ms/step and ember/torch ratios.

Usage: ``python bench/models.py [--steps N] [--only NAME] [--profile NAME] [--thread-time]`` (``--profile`` adds a
cProfile top-20 of that model's ember step).
"""
from __future__ import annotations

import argparse
import os
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


import numpy as np  # noqa: E402
import _timing  # noqa: E402  (bench/ is on sys.path when a benchmark runs)

TARGETS = {"lenet": 1.5, "lstm": 2.0, "transformer": 2.0}
TARGETS["lenet"] = 1.1  # issue 21: eager LeNet-5 step <= 1.1x torch


def _data(lib, *shape, classes=None):
    rng = np.random.default_rng(0)
    if classes is not None:
        return lib.tensor(rng.integers(0, classes, shape).astype(np.int64))
    return lib.tensor(rng.standard_normal(shape).astype(np.float32))


def lenet(lib):
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    return model, (_data(lib, 64, 1, 28, 28),), _data(lib, 64, classes=10), lambda out: out


def lstm(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(64, 256, num_layers=2, batch_first=True)
            self.head = nn.Linear(256, 10)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[:, -1])
    return Net(), (_data(lib, 32, 50, 64),), _data(lib, 32, classes=10), lambda out: out


def transformer(lib):
    nn = lib.nn
    layer = nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.1, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, 4, enable_nested_tensor=False),
                          nn.Flatten(), nn.Linear(128 * 64, 10))
    return model, (_data(lib, 16, 64, 128),), _data(lib, 16, classes=10), lambda out: out


MODELS = {"lenet": lenet, "lstm": lstm, "transformer": transformer}


def make_step(lib, name):
    lib.manual_seed(0)
    model, inputs, target, post = MODELS[name](lib)
    opt = lib.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(post(model(*inputs)), target)
        loss.backward()
        opt.step()
        return loss
    return step


CLOCK = time.perf_counter


def time_step(step, steps: int, repeats: int = 3) -> float:
    """Best-of-``repeats`` mean milliseconds per step."""
    return _timing.time_step(step, steps, repeats, warmup=3, clock=CLOCK)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--only", choices=list(MODELS))
    parser.add_argument("--profile", choices=list(MODELS))
    parser.add_argument("--thread-time", action="store_true",
                        help="time on this thread's CPU clock (fairer on a machine shared with other jobs)")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.thread_time if args.thread_time else time.perf_counter

    import torch

    import ember
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    print(f"one training step (SGD momentum, CrossEntropyLoss), 1 thread, best of 3 x {args.steps}")
    print(f"  {'model':12s} {'torch ms':>9s} {'ember ms':>9s} {'ratio':>7s} {'target':>7s}")
    for name in ([args.only] if args.only else MODELS):
        t_ms = time_step(make_step(torch, name), args.steps)
        e_ms = time_step(make_step(ember, name), args.steps)
        print(f"  {name:12s} {t_ms:9.2f} {e_ms:9.2f} {e_ms / t_ms:6.2f}x {TARGETS[name]:6.1f}x",
              flush=True)
    if args.profile:
        import cProfile
        import pstats
        step = make_step(ember, args.profile)
        step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.steps):
            step()
        prof.disable()
        print(f"\ncProfile of {args.steps} ember {args.profile} steps (top 20 by own time):")
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
