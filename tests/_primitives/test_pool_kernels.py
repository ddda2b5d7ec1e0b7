"""The Numba 2-d max pooling loop against torch: values and indices bitwise (ties keep the first
maximum, NaN wins, all -inf windows, padding, ceil_mode, dilation, non-contiguous input), and the
gradient through the indices."""
import numpy as np
import pytest
import torch

import ember

CASES = [((2, 2), (2, 2), (0, 0), (1, 1), False), ((3, 3), (2, 2), (1, 1), (1, 1), True),
         ((3, 2), (1, 2), (1, 1), (2, 1), False), ((2, 2), (1, 1), (1, 0), (1, 1), True),
         ((3, 3), (3, 3), (1, 1), (1, 1), True), ((2, 3), (2, 1), (0, 1), (1, 2), False)]


@pytest.mark.parametrize("k,s,p,d,ceil", CASES)
@pytest.mark.parametrize("kind", ["random", "ties", "nan", "ninf"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool2d_loop_matches_torch(k, s, p, d, ceil, kind, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 8)).astype(dtype)
    if kind == "ties":
        x = np.round(x)
    elif kind == "nan":
        x[0, 0, 1, 1] = x[1, 2, 3, 3] = x[1, 2, 3, 4] = np.nan
    elif kind == "ninf":
        x[:] = -np.inf
    e = ember.nn.functional.max_pool2d(ember.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    t = torch.nn.functional.max_pool2d(torch.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    np.testing.assert_array_equal(e[0].numpy(), t[0].numpy())
    np.testing.assert_array_equal(e[1].numpy(), t[1].numpy())


def test_max_pool2d_loop_noncontiguous_and_grad():
    x = np.random.default_rng(1).standard_normal((3, 4, 9, 10)).astype(np.float32)
    xe = ember.tensor(x).transpose(2, 3).requires_grad_()
    xt = torch.tensor(x).transpose(2, 3).requires_grad_()
    ye = ember.nn.functional.max_pool2d(xe, 3, 2, 1)
    yt = torch.nn.functional.max_pool2d(xt, 3, 2, 1)
    np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
    g = np.random.default_rng(2).standard_normal(tuple(yt.shape)).astype(np.float32)
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_backward_scatter_adds_overlaps_and_checks_indices(dtype):
    from ember._primitives.pooling import max_pool_backward
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 7)).astype(dtype)
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ye = ember.nn.functional.max_pool2d(xe, 3, 1)  # overlapping windows: one input wins many
    yt = torch.nn.functional.max_pool2d(xt, 3, 1)
    g = np.random.default_rng(4).standard_normal(tuple(yt.shape)).astype(dtype)
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-12)
    bad = np.full((1, 1, 2, 2), 49, np.int64)  # one past a 7x7 plane
    with pytest.raises(IndexError, match="outside the input's plane of 49"):
        max_pool_backward.kernel(np.ones((1, 1, 2, 2), dtype), bad, input_shape=(1, 1, 7, 7))
