"""The fused cross_entropy primitive (log_softmax + nll in one kernel, one backward) against torch:
values, first and second derivatives, ignore_index, reductions and errors."""
import numpy as np
import pytest
import torch

import ember


def _pair(a):
    return ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [None, 2, -100])
def test_fused_cross_entropy_matches_torch(dtype, tol, reduction, ignore):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 5)).astype(dtype) * 3
    t = rng.integers(0, 5, 7)
    kw = {"reduction": reduction}
    if ignore is not None:
        t[[1, 4]] = ignore
        kw["ignore_index"] = ignore
    (xe, xt) = _pair(x)
    le = ember.nn.functional.cross_entropy(xe, ember.tensor(t), **kw)
    lt = torch.nn.functional.cross_entropy(xt, torch.tensor(t), **kw)
    assert le.grad_fn.name() == lt.grad_fn.name() == "NllLossBackward0"
    np.testing.assert_allclose(le.detach().numpy(), lt.detach().numpy(), rtol=tol, atol=tol)
    g = rng.standard_normal(tuple(lt.shape)).astype(dtype)
    le.backward(ember.tensor(g))
    lt.backward(torch.tensor(g))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol)


def test_fused_cross_entropy_double_backward():
    x = np.random.default_rng(1).standard_normal((4, 6))
    t = np.array([0, 5, 2, 2])
    res = []
    for lib in (ember, torch):
        xx = lib.tensor(x, requires_grad=True)
        (gx,) = lib.autograd.grad(lib.nn.functional.cross_entropy(xx, lib.tensor(t)) * 3, xx,
                                  create_graph=True)
        (gx * lib.arange(24.0, dtype=lib.float64).reshape(4, 6)).sum().backward()
        res.append(xx.grad.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-10, atol=1e-12)


def test_fused_cross_entropy_edges():
    x = ember.randn(3, 4, requires_grad=True)
    every = ember.tensor([-100, -100, -100])
    loss = ember.nn.functional.cross_entropy(x, every)
    assert loss.isnan().item()  # 0 / 0, as torch
    loss.backward()
    assert (x.grad == 0).all().item()
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        ember.nn.functional.cross_entropy(x, ember.tensor([0, 4, 1]))
    with pytest.raises(ValueError, match="Expected input batch_size"):
        ember.nn.functional.cross_entropy(x, ember.tensor([0, 1]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [-100, 1])
def test_fused_cross_entropy_is_bitwise_the_composite(reduction, ignore):
    # compiled graphs (make_fx) keep the composite: eager and compiled training must agree exactly
    rng = np.random.default_rng(2)
    x = rng.standard_normal((9, 6)).astype(np.float32) * 4
    t = rng.integers(0, 6, 9)
    t[[2, 5]] = ignore
    F = ember.nn.functional
    res = []
    for fn in (lambda a: F.cross_entropy(a, ember.tensor(t), reduction=reduction, ignore_index=ignore),
               lambda a: F.nll_loss(F.log_softmax(a, 1), ember.tensor(t), reduction=reduction,
                                    ignore_index=ignore)):
        a = ember.tensor(x, requires_grad=True)
        loss = fn(a)
        loss.backward(ember.ones_like(loss) * 0.7)
        res.append((loss.detach().numpy(), a.grad.numpy()))
    for e, c in zip(*res):
        np.testing.assert_array_equal(e, c)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_cross_entropy_row_loops_are_bitwise_the_composite(reduction, dtype):
    # small (N, C) inputs with no ignored target take the per-row Numba loops (forward and, for
    # mean/sum, backward); the composite's log_softmax takes the same loop
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((33, 7)) * 5).astype(dtype)
    t = ember.tensor(rng.integers(0, 7, 33))
    F = ember.nn.functional
    res = []
    for fn in (lambda a: F.cross_entropy(a, t, reduction=reduction),
               lambda a: F.nll_loss(F.log_softmax(a, 1), t, reduction=reduction)):
        a = ember.tensor(x, requires_grad=True)
        loss = fn(a)
        loss.backward(ember.ones_like(loss) * 0.3)
        res.append((loss.detach().numpy(), a.grad.numpy()))
    for e, c in zip(*res):
        np.testing.assert_array_equal(e, c)
    xt = torch.tensor(x, requires_grad=True)
    lt = torch.nn.functional.cross_entropy(xt, torch.tensor(t.numpy()), reduction=reduction)
    lt.backward(torch.ones_like(lt) * 0.3)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(res[0][0], lt.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(res[0][1], xt.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dim", [1, -1])
def test_small_log_softmax_rows_match_torch_with_nonfinite_rows(dim):
    x = np.random.default_rng(4).standard_normal((6, 9)).astype(np.float32) * 10
    x[1, 3] = np.nan
    x[2, 0] = np.inf
    x[3, :] = -np.inf
    x[4, 5] = -np.inf
    for a in (x, x.T.copy().T):  # contiguous and a transposed layout
        e = ember.nn.functional.log_softmax(ember.tensor(a), dim).numpy()
        t = torch.nn.functional.log_softmax(torch.tensor(a), dim).numpy()
        np.testing.assert_allclose(e, t, rtol=1e-5, atol=1e-5, equal_nan=True)


def test_fused_cross_entropy_bad_target_through_row_loops():
    x = ember.randn(5, 3, requires_grad=True)
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        ember.nn.functional.cross_entropy(x, ember.tensor([0, 1, 3, 2, 0]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        ember.nn.functional.cross_entropy(x, ember.tensor([0, 1, -1, 2, 0]))
