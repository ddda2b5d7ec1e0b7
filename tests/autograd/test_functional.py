"""ember.autograd.functional and ember.func against torch.autograd.functional / torch.func."""
import numpy as np
import pytest
import torch
import torch.autograd.functional as TF

import ember
import ember.autograd.functional as EF

R = np.random.default_rng(0)
X, Y, V, W = (R.standard_normal(3) for _ in range(4))
M = R.standard_normal((2, 3))


def E(a):
    return ember.tensor(a)


def T(a):
    return torch.tensor(a)


def f1(x):
    return x.exp() * x.sin()


def f2(x, y):
    return (x ** 2 * y.sin()).sum()


def f3(x, y):
    return x * y, (x + y).exp()


def _close(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for p, q in zip(a, b):
            _close(p, q)
        return
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian(vectorize):
    _close(EF.jacobian(f1, E(X), vectorize=vectorize), TF.jacobian(f1, T(X), vectorize=vectorize))
    _close(EF.jacobian(f2, (E(X), E(Y))), TF.jacobian(f2, (T(X), T(Y))))
    _close(EF.jacobian(f3, (E(X), E(Y))), TF.jacobian(f3, (T(X), T(Y))))
    _close(EF.jacobian(lambda m: m @ m.T, E(M)), TF.jacobian(lambda m: m @ m.T, T(M)))


def test_hessian():
    _close(EF.hessian(lambda x: (x ** 3).sum(), E(X)), TF.hessian(lambda x: (x ** 3).sum(), T(X)))
    _close(EF.hessian(f2, (E(X), E(Y))), TF.hessian(f2, (T(X), T(Y))))


def test_vjp_jvp_hvp_vhp():
    _close(EF.vjp(f1, E(X), E(V)), TF.vjp(f1, T(X), T(V)))
    _close(EF.jvp(f1, E(X), E(V)), TF.jvp(f1, T(X), T(V)))
    _close(EF.vjp(f3, (E(X), E(Y)), (E(V), E(W))), TF.vjp(f3, (T(X), T(Y)), (T(V), T(W))))
    _close(EF.jvp(f3, (E(X), E(Y)), (E(V), E(W))), TF.jvp(f3, (T(X), T(Y)), (T(V), T(W))))
    _close(EF.hvp(f2, (E(X), E(Y)), (E(V), E(W))), TF.hvp(f2, (T(X), T(Y)), (T(V), T(W))))
    _close(EF.vhp(f2, (E(X), E(Y)), (E(V), E(W))), TF.vhp(f2, (T(X), T(Y)), (T(V), T(W))))


def test_create_graph_and_errors():
    x = E(X).requires_grad_()
    j = EF.jacobian(lambda t: (t ** 3).sum(), x, create_graph=True)
    j.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X)
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        EF.vjp(f1, E(X))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        EF.jacobian(lambda a, b: a * 2, (E(X), E(Y)), strict=True)


def test_func_grad_vmap_functional_call():
    from ember.func import functional_call, grad, grad_and_value, vmap
    tf = torch.func
    _close(grad(f2, argnums=(0, 1))(E(X), E(Y)), tf.grad(f2, argnums=(0, 1))(T(X), T(Y)))
    _close(grad(grad(lambda x: x.sin() * x))(E(1.3)), tf.grad(tf.grad(lambda x: x.sin() * x))(T(1.3)))
    g, v = grad_and_value(f2)(E(X), E(Y))
    g2, v2 = tf.grad_and_value(f2)(T(X), T(Y))
    _close((g, v), (g2, v2))
    _close(vmap(lambda a, b: a.dot(b), in_dims=(0, None))(E(M), E(X)),
           tf.vmap(lambda a, b: a.dot(b), in_dims=(0, None))(T(M), T(X)))
    _close(vmap(lambda a: (a * 2, a.sum()), in_dims=1)(E(M)), tf.vmap(lambda a: (a * 2, a.sum()), in_dims=1)(T(M)))
    em, tm = ember.nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    params = {"weight": R.standard_normal((2, 3)), "bias": R.standard_normal(2)}
    _close(functional_call(em, {k: E(v) for k, v in params.items()}, (E(M),)),
           tf.functional_call(tm, {k: T(v) for k, v in params.items()}, (T(M),)))
    assert not np.allclose(em.weight.detach().numpy(), params["weight"])  # restored afterwards
