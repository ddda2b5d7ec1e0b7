"""Quantized vs float inference, ember and torch in one run, one thread: model size and latency.

Models: an MLP 256-512-512-10 and a 2-layer LSTM (input 64, hidden 256, seq 20) quantized with
``quantize_dynamic``; a CNN (conv-bn-relu x2, pool, linear) on 1x28x28 quantized with FX
post-training static quantization (x86 qconfig). Latency is ms per forward at batch 1 and 32;
size is the bytes of the saved state_dict ("size x", with biases, qparams and pickle framing) and of
the weights alone ("wts x"). Prints ember quantized/float ratios (the targets: weights
~4x smaller; quantized faster than float at batch 1) and ember/torch ratios.

Usage: ``python bench/quantization.py [--steps N]``
"""
from __future__ import annotations

import argparse
import io
import os
import warnings

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import _timing  # noqa: E402  (bench/ is on sys.path when a benchmark runs)

warnings.filterwarnings("ignore")


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


class _LSTMHead:
    @staticmethod
    def make(lib):
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = nn.LSTM(64, 256, num_layers=2)
                self.fc = nn.Linear(256, 10)

            def forward(self, x):
                return self.fc(self.rnn(x)[0][-1])
        return Net()


def cnn(lib):
    nn = lib.nn

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.b1, self.r1 = nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU()
            self.c2, self.b2, self.r2 = nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU()
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(32 * 7 * 7, 10)

        def forward(self, x):
            x = self.pool(self.r1(self.b1(self.c1(x))))
            x = self.pool(self.r2(self.b2(self.c2(x))))
            return self.fc(lib.flatten(x, 1))
    return CNN()


def _x(lib, shape):
    return lib.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


def _size(lib, model) -> int:
    buf = io.BytesIO()
    lib.save(model.state_dict(), buf)
    return len(buf.getvalue())


def _weight_bytes(model) -> int:
    """Bytes of the layers' weight matrices/kernels alone (int8 ones count one byte a value)."""
    total = 0
    for m in model.modules():
        ws = [getattr(m, "weight", None)]
        if callable(ws[0]):
            ws = [ws[0]()]
        if hasattr(m, "get_weight"):  # dynamic quantized RNNs
            ws = list(m.get_weight().values())
        elif type(m).__name__ in ("LSTM", "GRU", "RNN"):
            ws = [p for n, p in m.named_parameters() if n.startswith("weight")]
        for w in ws:
            if w is not None and hasattr(w, "element_size"):
                total += w.nelement() * w.element_size()
    return total


def build(lib, name):
    aq = lib.ao.quantization
    if name == "mlp":
        f = mlp(lib).eval()
        return f, aq.quantize_dynamic(f), (256,)
    if name == "lstm":
        f = _LSTMHead.make(lib).eval()
        return f, aq.quantize_dynamic(f, {lib.nn.LSTM, lib.nn.Linear}), None
    f = cnn(lib).eval()
    qfx = __import__(f"{lib.__name__}.ao.quantization.quantize_fx", fromlist=["x"])
    p = qfx.prepare_fx(f, aq.get_default_qconfig_mapping("x86"), (_x(lib, (1, 1, 28, 28)),))
    p(_x(lib, (32, 1, 28, 28)))
    return f, qfx.convert_fx(p), (1, 28, 28)


def shape_for(name, feat, batch):
    if name == "lstm":
        return (20, batch, 64)
    return (batch,) + feat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    import torch
    import ember
    torch.set_num_threads(1)
    rows = []
    for name in ("mlp", "cnn", "lstm"):
        res = {}
        for lib in (ember, torch):
            f, q, feat = build(lib, name)
            res[lib.__name__, "size"] = (_size(lib, f), _size(lib, q))
            res[lib.__name__, "wsize"] = _weight_bytes(f) / max(_weight_bytes(q), 1)
            for batch in (1, 32):
                x = _x(lib, shape_for(name, feat, batch))
                with lib.no_grad():
                    tf = _timing.time_step(lambda: f(x), args.steps, 3, 3)
                    tq = _timing.time_step(lambda: q(x), args.steps, 3, 3)
                res[lib.__name__, batch] = (tf, tq)
        rows.append((name, res))
    print(f"{'model':6} {'lib':6} {'float B':>10} {'quant B':>10} {'size x':>7} "
          f"{'wts x':>6} {'b1 f ms':>8} {'b1 q ms':>8} {'q/f':>5} {'b32 f ms':>9} {'b32 q ms':>9} {'q/f':>5}")
    for name, res in rows:
        for lib in ("ember", "torch"):
            fs, qs = res[lib, "size"]
            (f1, q1), (f32, q32) = res[lib, 1], res[lib, 32]
            print(f"{name:6} {lib:6} {fs:10d} {qs:10d} {fs / qs:7.2f} {res[lib, 'wsize']:6.2f} {f1:8.3f} {q1:8.3f} "
                  f"{q1 / f1:5.2f} {f32:9.3f} {q32:9.3f} {q32 / f32:5.2f}")
        print(f"{name:6} ember/torch quantized latency: batch 1 {res['ember', 1][1] / res['torch', 1][1]:.2f}x, "
              f"batch 32 {res['ember', 32][1] / res['torch', 32][1]:.2f}x")


if __name__ == "__main__":
    main()
