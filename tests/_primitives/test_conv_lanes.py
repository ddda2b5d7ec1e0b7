"""Batch-in-lanes stride-1 convolution loops (moderate input channels, few output channels: LeNet-5's
second conv) against torch: forward, input and weight gradients with padding, dilation, kernel
widths 5 / 3 / other, output channels not a multiple of 4, batches that leave spare lanes or span
several blocks, and a non-finite input (float32 only: float64 convs keep im2col)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember._primitives import _conv_kernels, _conv_lanes

from ._conv_compare import compare

CASES = [
    ((3, 6, 14, 14), (16, 6, 5, 5), {}),                                   # LeNet-5's conv2
    ((5, 7, 9, 8), (6, 7, 3, 3), dict(padding=1)),
    ((2, 5, 9, 11), (3, 5, 5, 5), dict(padding=(2, 1), dilation=(1, 2))),
    ((4, 6, 8, 9), (5, 6, 4, 2), dict(padding=(1, 0), dilation=(2, 1))),   # generic tap loop
]


@pytest.fixture(autouse=True)
def _every_shape(monkeypatch):
    # the loops start at NUMBA_MIN_OUTPUTS output elements and a batch of 16 and take 5-wide (or
    # small 3-wide) kernels; these tests use small shapes and other widths too
    monkeypatch.setattr(_conv_kernels, "NUMBA_MIN_OUTPUTS", 0)
    monkeypatch.setattr(_conv_kernels, "LANES_MIN_BATCH", 1)
    real = _conv_kernels._lanes
    monkeypatch.setattr(_conv_kernels, "_lanes", lambda dtype, k, stride, c, o, size, out_size, n: (
        real(dtype, (k[0], 5), stride, c, o, size, out_size, n)))


def _compare(xs, ws, kw, dtype, x=None, **tol):
    compare(xs, ws, kw, dtype, x=x, w_scale=0.2, **tol)  # outputs of order 1


def test_lanes_run_for_lenet_conv2(monkeypatch):
    calls = []
    for name in ("forward", "transpose", "weight_grad"):
        real = getattr(_conv_lanes, name)
        monkeypatch.setattr(_conv_lanes, name, lambda *a, real=real, **k: calls.append(1) or real(*a, **k))
    x = ember.randn(2, 6, 14, 14, requires_grad=True)
    w = ember.randn(16, 6, 5, 5, requires_grad=True)
    ember.nn.functional.conv2d(x, w).sum().backward()
    assert len(calls) == 3


@pytest.mark.parametrize("xs,ws,kw", CASES)
def test_lanes_match_torch(xs, ws, kw):
    # 100-400 term float32 sums: torch's own weight gradient is further from the exact value than
    # the rtol/atol defaults allow (see test_conv_direct), so float32 compares a little looser
    _compare(xs, ws, kw, np.float32, rtol=1e-5, atol=1e-4)


def test_lanes_spare_lanes_and_several_blocks(monkeypatch):
    # 19 samples: blocks of 16 lanes leave 13 spare lanes in the second block
    monkeypatch.setattr(_conv_lanes, "BLOCK_BYTES", 1)
    _compare((19, 6, 7, 6), (5, 6, 5, 3), dict(padding=(2, 1)), np.float32, rtol=1e-5, atol=1e-4)


def test_lanes_non_finite():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 9, 9)).astype(np.float32)
    x[1, 2, 4, 0] = np.inf
    x[0, 5, 8, 3] = np.nan
    _compare((2, 6, 9, 9), (4, 6, 5, 5), dict(padding=2), np.float32, x=x)


def test_lanes_transposed_conv():
    # conv_transpose2d at stride 1 is the input-gradient loop
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((3, 8, 6, 7)).astype(np.float32), rng.standard_normal((8, 5, 5, 5)).astype(np.float32)
    res = [lib.nn.functional.conv_transpose2d(lib.tensor(x), lib.tensor(w), padding=1) for lib in (ember, torch)]
    torch.testing.assert_close(torch.from_numpy(res[0].numpy()), res[1], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("xs,ws,kw", [
    ((3, 5, 9, 8), (7, 5, 3, 3), dict(stride=2, padding=1)),
    ((2, 4, 11, 10), (6, 4, 2, 3), dict(stride=(3, 2), padding=(0, 2), dilation=(2, 1))),
])
def test_lanes_strided_input_grad(xs, ws, kw):
    # strided float32 input gradients add their columns back on the batch-innermost layout
    _compare(xs, ws, kw, np.float32, rtol=1e-5, atol=1e-4)


def test_lanes_strided_transposed_conv_output_padding():
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((2, 5, 6, 7)).astype(np.float32), rng.standard_normal((5, 3, 3, 3)).astype(np.float32)
    kw = dict(stride=2, padding=1, output_padding=1)
    res = [lib.nn.functional.conv_transpose2d(lib.tensor(x), lib.tensor(w), **kw) for lib in (ember, torch)]
    torch.testing.assert_close(torch.from_numpy(res[0].numpy()), res[1])


def test_lanes_grouped():
    # each group's conv runs on channel slices of the input, output and gradients
    _compare((3, 12, 10, 9), (8, 6, 5, 5), dict(padding=2, groups=2), np.float32, rtol=1e-5, atol=1e-4)
