"""Compiled (``backend="inductor"``: generated kernels) equals eager: values and gradients of
whole training steps, BatchNorm running statistics, in-place updates and views."""
import copy
import os
import sys

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "_functorch"))
import _models  # noqa: E402


def _close(a, b, tol=2e-5):
    assert a.shape == b.shape
    scale = max(1.0, float(b.abs().max()))
    assert float((a - b).abs().max()) <= tol * scale, (a, b)


def _compare(model, inputs, loss=lambda o: (o ** 2).mean(), tol=2e-5):
    ember.manual_seed(0)
    twin = copy.deepcopy(model)
    compiled = ember.compile(twin)
    le = loss(model(*inputs))
    le.backward()
    lc = loss(compiled(*inputs))
    lc.backward()
    _close(lc.detach(), le.detach(), tol)
    for (name, p), q in zip(model.named_parameters(), twin.parameters()):
        assert (p.grad is None) == (q.grad is None), name
        if p.grad is not None:
            _close(q.grad, p.grad, tol)
    for b, c in zip(model.buffers(), twin.buffers()):
        _close(c.float(), b.float(), tol)


def test_mlp():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    _compare(m, (ember.randn(80, 10),))


def test_cnn_batchnorm_train_updates_running_stats():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(8 * 3 * 3, 5))
    _compare(m, (ember.randn(4, 3, 8, 8),))


def test_lstm():
    ember.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(6, 12, batch_first=True)
            self.fc = nn.Linear(12, 3)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.fc(out[:, -1])
    _compare(Net(), (ember.randn(3, 5, 6),))


def test_transformer_block():
    ember.manual_seed(0)
    m = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
    _compare(m, (ember.randn(2, 10, 32),))


def test_gpt_style_step():
    ember.manual_seed(0)
    model = _models.build(ember).GPT(vocab=64, n_layer=4, n_head=4, n_embd=128, block_size=64)
    idx = ember.randint(0, 64, (8, 64))
    tgt = ember.randint(0, 64, (8, 64))
    _compare(model, (idx, tgt), loss=lambda o: o, tol=1e-4)


def test_inplace_updates_and_views():
    def f(x, y):
        z = x * 2
        z[:, 1:].add_(y[:, :-1])       # write through a view of an intermediate
        x.mul_(0.5)                    # an input mutated in place
        t = z.t().contiguous()
        return t.sum(0), z.view(-1)[::2].relu()
    x0, y0 = ember.randn(4, 5), ember.randn(4, 5)
    xe, xc = x0.clone(), x0.clone()
    want = f(xe, y0)
    got = ember.compile(f)(xc, y0)
    for a, b in zip(got, want):
        _close(a, b)
    _close(xc, xe)


def test_inference_mode_graph():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 4))
    x = ember.randn(5, 8)
    with ember.no_grad():
        _close(ember.compile(m)(x), m(x))
