"""Activation checkpointing gives the gradients of the plain run (dropout masks replay)."""
import numpy as np
import pytest

import ember
from ember.utils.checkpoint import checkpoint, checkpoint_sequential


def _net():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.Dropout(0.5), ember.nn.Tanh(),
                               ember.nn.Linear(8, 8), ember.nn.Dropout(0.3), ember.nn.GELU(),
                               ember.nn.Linear(8, 2))


def _grads(net, x):
    return [p.grad.clone() for p in net.parameters()] + ([x.grad.clone()] if x.grad is not None else [])


def _zero(net, x):
    for p in net.parameters():
        p.grad = None
    x.grad = None


@pytest.mark.parametrize("use_reentrant", [False, True])
@pytest.mark.parametrize("how", ["checkpoint", "sequential"])
def test_same_outputs_and_gradients_as_without(use_reentrant, how):
    net = _net()
    x = ember.randn(5, 4, requires_grad=True)
    ember.manual_seed(7)
    ref = net(x)
    ref.pow(2).sum().backward()
    want = _grads(net, x)
    _zero(net, x)
    ember.manual_seed(7)
    if how == "checkpoint":
        out = checkpoint(net, x, use_reentrant=use_reentrant)
    else:
        out = checkpoint_sequential(net, 3, x, use_reentrant=use_reentrant)
    ember.rand(10)  # the RNG moves on before backward: recomputation must not depend on it
    out.pow(2).sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    for g, w in zip(_grads(net, x), want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-7)


def test_non_reentrant_with_autograd_grad_and_kwargs():
    net = _net().eval()
    x = ember.randn(3, 4)
    out = checkpoint(lambda t, scale: net(t) * scale, x, scale=2.0, use_reentrant=False)
    g = ember.autograd.grad(out.sum(), list(net.parameters()))
    want = ember.autograd.grad((net(x) * 2.0).sum(), list(net.parameters()))
    for a, b in zip(g, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_warnings_and_errors_as_torch():
    x = ember.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda t: t * 2, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint(lambda t: t, x, use_reentrant=True, foo=1)
