"""The convolution kernels' paths (blocked im2col, cached columns, 1x1, depthwise, groups, transposed)
against torch: values and gradients of input, weight and bias, forward and double backward."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember._primitives import _conv_kernels

F, TF = ember.nn.functional, torch.nn.functional

# (x shape, w shape, kwargs): every kernel path
CASES = [
    ((4, 3, 9, 9), (5, 3, 3, 3), dict(padding=1)),                              # im2col, whole batch
    ((3, 4, 7, 8), (6, 4, 1, 1), {}),                                           # 1x1
    ((3, 4, 7, 8), (6, 4, 1, 1), dict(stride=2)),                               # 1x1 strided: im2col
    ((2, 4, 8, 8), (6, 2, 3, 3), dict(groups=2, padding=1)),                    # groups
    ((2, 6, 9, 9), (6, 1, 3, 3), dict(groups=6, padding=1)),                    # depthwise
    ((2, 3, 9, 10), (6, 1, 3, 2), dict(groups=3, padding=(2, 1), stride=(2, 1), dilation=(1, 2))),
    ((2, 4, 11, 11), (4, 1, 5, 5), dict(groups=4, stride=3, padding=2)),        # depthwise strided
    ((3, 2, 10, 9), (4, 2, 3, 2), dict(stride=(2, 3), padding=(1, 0), dilation=(2, 1))),
    ((2, 3, 12), (4, 3, 3), dict(padding=2, dilation=2)),                       # 1-d
    ((2, 2, 5, 6, 4), (3, 2, 2, 3, 2), dict(padding=1, stride=(1, 2, 1))),      # 3-d
]


def _pair(shape, seed, dtype=np.float64):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _conv(lib, x, w, b, kw):
    return getattr(lib.nn.functional, f"conv{x.dim() - 2}d")(x, w, b, **kw)


def _check(xs, ws, kw, dtype, tol, block=None):
    (xe, xt), (we, wt), (be, bt) = _pair(xs, 0, dtype), _pair(ws, 1, dtype), _pair(ws[:1], 2, dtype)
    ye, yt = _conv(ember, xe, we, be, kw), _conv(torch, xt, wt, bt, kw)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(3).standard_normal(tuple(yt.shape)).astype(dtype)
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    for a, b_ in ((xe, xt), (we, wt), (be, bt)):
        np.testing.assert_allclose(a.grad.numpy(), b_.grad.numpy(), rtol=tol, atol=tol)
    assert we.grad.is_contiguous()


@pytest.mark.parametrize("cache", [0, 1 << 25])
@pytest.mark.parametrize("xs,ws,kw", CASES)
def test_conv_values_and_grads(monkeypatch, xs, ws, kw, cache):
    monkeypatch.setattr(_conv_kernels, "CACHE_BYTES", cache)  # forward columns reused or not
    _check(xs, ws, kw, np.float64, 1e-10)
    _check(xs, ws, kw, np.float32, 2e-4)


@pytest.mark.parametrize("xs,ws,kw", CASES[:2] + CASES[4:6])
def test_blocked_paths(monkeypatch, xs, ws, kw):
    # one sample per block and nothing cached: the per-block GEMMs and accumulations
    monkeypatch.setattr(_conv_kernels, "BLOCK_BYTES", 1)
    monkeypatch.setattr(_conv_kernels, "CACHE_BYTES", 0)
    _check(xs, ws, kw, np.float64, 1e-10)
    monkeypatch.setattr(_conv_kernels, "BLOCK_BYTES", 3 * 4 * 81 * 8)  # blocks of 2, last one short
    _check(xs, ws, kw, np.float64, 1e-10)


@pytest.mark.parametrize("xs,ws,kw", [CASES[0], CASES[3], CASES[4]])
def test_double_backward(xs, ws, kw):
    (xe, xt), (we, wt) = _pair(xs, 0), _pair(ws, 1)
    res = []
    for lib, x, w in ((ember, xe, we), (torch, xt, wt)):
        y = _conv(lib, x, w, None, kw)
        gx, gw = lib.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        (gx.square().sum() + (gw * gw).sum()).backward()
        res.append((x.grad.detach().numpy(), w.grad.detach().numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 6, 5, 5), (6, 1, 3, 3), dict(groups=6, stride=2, padding=1, output_padding=1)),  # depthwise
    ((2, 4, 5, 5), (4, 3, 3, 3), dict(groups=2, stride=2, padding=1, dilation=2)),
    ((2, 4, 5, 6), (4, 3, 1, 1), {}),
])
def test_conv_transpose(xs, ws, kw):
    (xe, xt), (we, wt), (be, bt) = _pair(xs, 0), _pair(ws, 1), _pair((ws[1] * kw.get("groups", 1),), 2)
    ye, yt = F.conv_transpose2d(xe, we, be, **kw), TF.conv_transpose2d(xt, wt, bt, **kw)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-10)
    ye.square().sum().backward()
    yt.square().sum().backward()
    for a, b in ((xe, xt), (we, wt), (be, bt)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_cached_columns_are_dropped(monkeypatch):
    # (9 input channels: im2col, not the direct loops of few channels)
    # the forward's column buffer serves one weight gradient, then is gone; a dead input drops it
    monkeypatch.setattr(_conv_kernels, "CACHE_BYTES", 1 << 25)
    x = ember.randn(2, 9, 6, 6)
    w = ember.randn(4, 9, 3, 3, requires_grad=True)
    F.conv2d(x, w, padding=1).sum().backward()
    assert not _conv_kernels._CACHE
    y = F.conv2d(ember.randn(2, 9, 6, 6), w, padding=1)
    assert len(_conv_kernels._CACHE) == 1  # the graph holds the input until backward
    del y
    assert not _conv_kernels._CACHE
