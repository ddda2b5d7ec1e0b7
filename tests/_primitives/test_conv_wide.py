"""Wide-row convolution paths at stride 1 against torch: the sample-major forward for short output
rows (few input channels) and the one-GEMM weight gradient from C*K = 64 on; with padding,
dilation, 1-d/3-d, a batch split into blocks, non-contiguous inputs and non-finite values."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember._primitives import _conv_kernels

from ._conv_compare import compare

# (x shape, w shape, kwargs): short output rows (< SHORT_ROW) and C*K in [WIDE_WEIGHT_CK, 320]
CASES = [
    ((3, 8, 9, 8), (5, 8, 3, 3), dict(padding=1)),
    ((2, 8, 10, 11), (4, 8, 3, 2), dict(padding=(2, 1), dilation=(2, 1))),
    ((5, 6, 14, 14), (16, 6, 5, 5), {}),                                        # LeNet-5's conv2
    ((2, 3, 7, 6, 5), (2, 3, 3, 3, 3), dict(padding=1)),                        # 3-d
    ((3, 16, 13), (4, 16, 5), dict(padding=2, dilation=2)),                     # 1-d
    ((0, 8, 9, 8), (5, 8, 3, 3), dict(padding=1)),                              # empty batch
]


def _compare(xs, ws, kw, dtype, tol, x=None):
    compare(xs, ws, kw, dtype, x=x, rtol=tol, atol=tol)


@pytest.mark.parametrize("xs,ws,kw", CASES)
def test_wide_paths_match_torch(xs, ws, kw):
    _compare(xs, ws, kw, np.float64, 1e-10)
    _compare(xs, ws, kw, np.float32, 2e-4)


def test_wide_paths_in_blocks(monkeypatch):
    monkeypatch.setattr(_conv_kernels, "BLOCK_BYTES", 1)  # one sample per block
    for xs, ws, kw in CASES[:3]:
        _compare(xs, ws, kw, np.float64, 1e-10)


def test_wide_weight_grad_with_inf_input():
    # an inf input: the wide weight gradient would multiply it by the zeros between rows (nan);
    # the plain path runs instead and torch's values come out
    x = np.random.default_rng(1).standard_normal((2, 8, 9, 8))
    x[0, 1, 4, 7] = np.inf
    _compare((2, 8, 9, 8), (5, 8, 3, 3), dict(padding=1), np.float64, 1e-10, x=x)


def test_wide_forward_noncontiguous_input():
    x = np.random.default_rng(2).standard_normal((4, 6, 12, 11)).astype(np.float32)
    w = np.random.default_rng(3).standard_normal((7, 6, 3, 3)).astype(np.float32)
    e = ember.nn.functional.conv2d(ember.tensor(x).transpose(2, 3), ember.tensor(w), padding=1)
    t = torch.nn.functional.conv2d(torch.tensor(x).transpose(2, 3), torch.tensor(w), padding=1)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("ws,kw", [((6, 2, 3, 3), dict(padding=1, groups=2)),
                                   ((4, 1, 3, 3), dict(padding=1, groups=4)),
                                   ((5, 4, 3, 3), dict(stride=2))])
def test_empty_batch(ws, kw):
    res = []
    for lib in (ember, torch):
        x = lib.zeros(0, 4, 9, 8, requires_grad=True)
        w = lib.ones(ws, requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, None, **kw)
        y.backward(lib.zeros(tuple(y.shape)))
        t = lib.nn.functional.conv_transpose2d(lib.zeros(0, 4, 5, 5), lib.ones(4, 3, 3, 3), stride=2)
        res.append((tuple(y.shape), x.grad.shape, w.grad.numpy().copy(), tuple(t.shape)))
    assert res[0][0] == res[1][0] and tuple(res[0][1]) == tuple(res[1][1]) and res[0][3] == res[1][3]
    np.testing.assert_array_equal(res[0][2], res[1][2])
