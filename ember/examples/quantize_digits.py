"""Train the digits CNN, quantize it to int8 with FX graph mode, compare before and after.

Run ``python -m ember.examples.quantize_digits``. It trains a small CNN (two Conv2d + BatchNorm2d +
ReLU blocks, MaxPool2d, two Linear layers) on the 8x8 digits shipped with ember, then:

1. ``prepare_fx`` with the x86 default qconfig mapping (conv-bn-relu fused, observers inserted) and
   calibration on 200 training images;
2. ``convert_fx``, printing the converted graph's code (its quantize_per_tensor / dequantize steps);
3. test accuracy, state_dict size in bytes and latency at batch 1 and 32, float vs int8.

The code is PyTorch's API throughout (``ember as torch``; the ``ember.ao`` imports are
``torch.ao``'s paths).
"""
from __future__ import annotations

import io
import time
import warnings
from importlib import resources

import numpy as np

import ember as torch
import ember.nn as nn
from ember.ao.quantization import get_default_qconfig_mapping
from ember.ao.quantization.quantize_fx import convert_fx, prepare_fx

SEED = 0


def log(msg: str) -> None:
    print(msg, flush=True)


def load_digits():
    """(images float32 (N, 1, 8, 8) scaled to [0, 1], labels int64 (N,)) and a fixed 80/20 split."""
    with resources.files("ember.examples").joinpath("data/digits.npz").open("rb") as f:
        data = np.load(f)
        x = data["images"].astype(np.float32)[:, None] / 16.0
        y = data["target"].astype(np.int64)
    order = np.random.default_rng(SEED).permutation(len(y))
    x, y = x[order], y[order]
    n_train = int(0.8 * len(y))
    return (torch.tensor(x[:n_train]), torch.tensor(y[:n_train]),
            torch.tensor(x[n_train:]), torch.tensor(y[n_train:]))


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.relu2 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.relu3 = nn.ReLU()
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(x)))
        x = self.pool(self.relu2(self.bn2(self.conv2(x))))
        x = torch.flatten(x, 1)
        return self.fc2(self.relu3(self.fc1(x)))


def train(model, x, y, epochs: int = 12):
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    gen = np.random.default_rng(SEED)
    for epoch in range(epochs):
        model.train()
        order = torch.tensor(gen.permutation(len(y)))
        for i in range(0, len(y), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
        if epoch % 4 == 3 or epoch == epochs - 1:
            log(f"epoch {epoch + 1}: loss {loss.item():.4f}")
    return model.eval()


def accuracy(model, x, y) -> float:
    with torch.no_grad():
        return float((model(x).argmax(1) == y).float().mean().item())


def size_bytes(model) -> int:
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    return len(buf.getvalue())


def latency_ms(model, x, repeats: int = 20) -> float:
    with torch.no_grad():
        model(x)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(repeats):
                model(x)
            best = min(best, (time.perf_counter() - t0) / repeats)
    return best * 1e3


def main(epochs: int = 12, repeats: int = 20) -> dict:
    torch.manual_seed(SEED)
    x_train, y_train, x_test, y_test = load_digits()
    log(f"== digits CNN: {len(y_train)} train / {len(y_test)} test images ==")
    model = train(DigitsCNN(), x_train, y_train, epochs)
    float_acc = accuracy(model, x_test, y_test)
    log(f"float test accuracy: {float_acc:.4f}")

    with warnings.catch_warnings():  # torch 2.13 marks FX quantization deprecated; so does ember
        warnings.simplefilter("ignore")
        prepared = prepare_fx(model, get_default_qconfig_mapping("x86"), (x_train[:1],))
        with torch.no_grad():
            for i in range(0, 200, 50):
                prepared(x_train[i:i + 50])
        quantized = convert_fx(prepared)
        log("== converted graph ==")
        log(quantized.code.strip())
        int8_acc = accuracy(quantized, x_test, y_test)
        sizes = (size_bytes(model), size_bytes(quantized))
        lat = {b: (latency_ms(model, x_test[:b], repeats), latency_ms(quantized, x_test[:b], repeats))
               for b in (1, 32)}
    log(f"int8 test accuracy: {int8_acc:.4f} (drop {100 * (float_acc - int8_acc):.2f} points)")
    log(f"state_dict size: float {sizes[0]} bytes, int8 {sizes[1]} bytes ({sizes[0] / sizes[1]:.2f}x "
        "smaller)")
    for b, (tf, tq) in lat.items():
        log(f"latency batch {b}: float {tf:.3f} ms, int8 {tq:.3f} ms (int8/float {tq / tf:.2f})")
    return {"float_acc": float_acc, "int8_acc": int8_acc, "sizes": sizes, "latency": lat}


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="FX int8 quantization of the digits CNN")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=20, help="latency: calls per timing")
    args = parser.parse_args()
    main(args.epochs, args.repeats)
