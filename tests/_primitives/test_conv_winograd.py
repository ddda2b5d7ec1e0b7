"""Winograd F(2x2, 3x3) convolution paths (stride-1 3x3, many channels) against torch: forward,
input and weight gradients at assert_close's float32 defaults, float64, paddings 0-2 with odd output
sizes, groups, the transposed conv, a batch split into blocks and non-finite values (im2col then)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember._primitives import _conv_kernels, _conv_winograd

from ._conv_compare import compare

C = _conv_kernels.WINOGRAD_CHANNELS
CASES = [
    ((2, C, 9, 8), (C, C, 3, 3), dict(padding=1)),
    ((1, C, 7, 10), (C + 3, C, 3, 3), dict(padding=0)),          # odd output height
    ((2, C + 1, 5, 6), (C, C + 1, 3, 3), dict(padding=2)),        # odd output width
    ((1, C, 8, 9), (C, C, 3, 3), dict(padding=(1, 0))),
    ((2, 2 * C, 6, 6), (2 * C, C, 3, 3), dict(padding=1, groups=2)),
]


@pytest.fixture(autouse=True)
def _small_convs_too(monkeypatch):
    # the Numba paths start at NUMBA_MIN_OUTPUTS output elements; these tests use small shapes
    monkeypatch.setattr(_conv_kernels, "NUMBA_MIN_OUTPUTS", 0)


def _compare(xs, ws, kw, dtype, x=None, transposed=False):
    compare(xs, ws, kw, dtype, x=x, transposed=transposed, w_scale=0.1)


def test_winograd_runs_for_these_cases(monkeypatch):
    calls = []
    real = _conv_winograd.forward
    monkeypatch.setattr(_conv_winograd, "forward", lambda *a, **k: calls.append(1) or real(*a, **k))
    xs, ws, kw = CASES[0]
    x = ember.randn(xs, requires_grad=True)
    ember.nn.functional.conv2d(x, ember.randn(ws), padding=1).sum().backward()
    assert len(calls) == 2  # forward and input gradient


@pytest.mark.parametrize("xs,ws,kw", CASES)
def test_winograd_matches_torch(xs, ws, kw):
    _compare(xs, ws, kw, np.float32)
    _compare(xs, ws, kw, np.float64)


def test_winograd_transposed_conv():
    _compare((2, C, 6, 7), (C, C, 3, 3), dict(padding=1), np.float32, transposed=True)


def test_winograd_in_blocks():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, C, 6, 5))
    w = rng.standard_normal((C, C, 3, 3))
    g = rng.standard_normal((3, C, 6, 5))
    whole = _conv_winograd.forward(x, w, None, (1, 1))
    np.testing.assert_allclose(_conv_winograd.forward(x, w, None, (1, 1), block_bytes=1), whole,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_conv_winograd.weight_grad(x, g, (1, 1), block_bytes=1),
                               _conv_winograd.weight_grad(x, g, (1, 1)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("where", ["input", "weight"])
def test_winograd_non_finite_falls_back(where):
    # Winograd's transforms would turn one inf into nan across its tile; im2col keeps torch's values
    rng = np.random.default_rng(1)
    xs, ws = (2, C, 6, 6), (C, C, 3, 3)
    x = rng.standard_normal(xs).astype(np.float32)
    if where == "input":
        x[1, 3, 2, 4] = np.inf
        _compare(xs, ws, dict(padding=1), np.float32, x=x)
    else:
        w = np.ones(ws, np.float32)
        w[2, 1, 0, 0] = -np.inf
        # no padding: im2col multiplies padded zeros by the weight (inf * 0), torch skips them
        res = [lib.nn.functional.conv2d(lib.tensor(x), lib.tensor(w)) for lib in (ember, torch)]
        torch.testing.assert_close(torch.from_numpy(res[0].numpy()), res[1], equal_nan=True)
