"""Backward on raw arrays (``create_graph=False``) gives the Tensor path's bits.

Derivatives written against the ``K`` namespace run on NumPy arrays in the engine's raw mode; the
same definitions run on Tensors under ``general_path_only`` (which makes backward dispatch every op).
Each case compares the leaves' gradients bit for bit, with dtype and shape, and torch's values.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember._dispatch import general_path_only
from ember._primitives._registry import REGISTRY
from ember.autograd import graph as G


def _leaves(lib, arrays):
    return [lib.tensor(a, requires_grad=True) if isinstance(a, np.ndarray) else a for a in arrays]


def _grads(fn, arrays):
    xs = _leaves(ember, arrays)
    fn(ember, *xs).sum().backward()
    return [x.grad for x in xs if isinstance(x, ember.Tensor)]


def _torch_grads(fn, arrays):
    xs = _leaves(torch, arrays)
    fn(torch, *xs).sum().backward()
    return [x.grad for x in xs if isinstance(x, torch.Tensor)]


R = np.random.default_rng(0)


def _a(*shape, dt=np.float32, pos=False):
    a = R.standard_normal(shape).astype(dt)
    return np.abs(a) + 0.5 if pos else a


CASES = {
    "add": (lambda L, a, b: a + b, [_a(3, 4), _a(4)]),
    "add_alpha": (lambda L, a, b: L.add(a, b, alpha=2.5), [_a(3, 4), _a(3, 1)]),
    "sub": (lambda L, a, b: a - b, [_a(2, 3), _a(3)]),
    "sub_alpha": (lambda L, a, b: L.sub(a, b, alpha=0.5), [_a(2, 3), _a(2, 3)]),
    "mul": (lambda L, a, b: a * b, [_a(2, 3), _a(2, 1)]),
    "mul_scalar": (lambda L, a: a * 0.3, [_a(5)]),
    "div": (lambda L, a, b: a / b, [_a(4, 3), _a(3, pos=True)]),
    "rdiv": (lambda L, a: 2.0 / a, [_a(4, pos=True)]),
    "neg": (lambda L, a: -a, [_a(3)]),
    "abs": (lambda L, a: a.abs(), [_a(6)]),
    "exp": (lambda L, a: a.exp(), [_a(6)]),
    "log": (lambda L, a: a.log(), [_a(6, pos=True)]),
    "sqrt": (lambda L, a: a.sqrt(), [_a(6, pos=True)]),
    "tanh": (lambda L, a: a.tanh(), [_a(2, 5)]),
    "sigmoid": (lambda L, a: a.sigmoid(), [_a(2, 5)]),
    "relu": (lambda L, a: a.relu(), [_a(3, 5)]),
    "sum_dim": (lambda L, a: a.sum(1) * 1.5, [_a(3, 4, 2)]),
    "mean_all": (lambda L, a: a.mean() * a, [_a(3, 4)]),
    "mean_keepdim": (lambda L, a: a.mean((0, 2), keepdim=True) * 2.0, [_a(3, 4, 2)]),
    "mm": (lambda L, a, b: a @ b, [_a(3, 4), _a(4, 5)]),
    "linear": (lambda L, x, w, b: L.nn.functional.linear(x, w, b).tanh(), [_a(5, 4), _a(3, 4), _a(3)]),
    "views": (lambda L, a: a.view(6, 2).t().unsqueeze(0).expand(2, 2, 6).permute(2, 0, 1).squeeze(), [_a(3, 4)]),
    "zero_dim": (lambda L, a, b: (a * b).exp() / b, [_a(), _a(pos=True)]),
    "float64": (lambda L, a, b: (a @ b).sigmoid() * a.sum(), [_a(2, 2, dt=np.float64), _a(2, 2, dt=np.float64)]),
    # mixed dtypes and 0-d operands of another dtype take the Tensor path (torch's promotion)
    "mixed_dtypes": (lambda L, a, b: a * b + a, [_a(3), _a(3, dt=np.float64)]),
    "zero_dim_other_dtype": (lambda L, a, b: a * b, [_a(4), _a(dt=np.float64)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_raw_backward_equals_tensor_path_and_torch(name):
    fn, arrays = CASES[name]
    raw = _grads(fn, arrays)
    with general_path_only():
        ref = _grads(fn, arrays)
    for r, t in zip(raw, ref):
        assert r.dtype == t.dtype and tuple(r.shape) == tuple(t.shape)
        assert np.array_equal(r.numpy(), t.numpy()), name
        assert r.numpy().flags.writeable and r._base is None
    for r, t in zip(raw, _torch_grads(fn, arrays)):
        assert str(r.dtype) == str(t.dtype)
        np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)


def test_raw_mode_runs_k_derivatives_on_arrays(monkeypatch):
    """A graph of ``K`` derivatives never builds a Tensor in backward (no fallback)."""
    calls = []
    orig = G.raw_via_tensors
    monkeypatch.setattr(G, "raw_via_tensors", lambda node, grads: calls.append(node) or orig(node, grads))
    for name in ("add", "mul", "tanh", "relu", "mm", "mean_all", "linear", "views"):
        fn, arrays = CASES[name]
        _grads(fn, arrays)
    assert not calls, [c.name() for c in calls]
    assert all(REGISTRY[n].backward_k for n in ("add", "mul", "mm", "addmm", "relu", "sum", "mean"))


def test_raw_gradients_do_not_alias():
    """``add``'s derivative returns one gradient for both inputs: each ``.grad`` is its own buffer,
    and a gradient accumulated twice leaves the first ``.grad`` object updated in place."""
    a, b = ember.ones(3, requires_grad=True), ember.ones(3, requires_grad=True)
    (a + b).sum().backward()
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    first = a.grad
    (a * 2.0).sum().backward()
    assert a.grad is first and a.grad.tolist() == [3.0, 3.0, 3.0]


def test_raw_backward_checks_saved_versions():
    a = ember.ones(3, requires_grad=True)
    y = a * 2.0
    z = y * y
    with ember.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_raw_zero_dim_gradients_summed_into_one_input():
    """Two 0-d gradients for one tensor add up to a NumPy scalar: the engine keeps an array."""
    x = ember.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    t = torch.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    for lib_x in (x, t):
        y = lib_x[1, 2]
        (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
