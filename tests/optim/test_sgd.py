"""SGD against torch: identical injected gradients, float64, 100 steps, parameters and state."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import ember
from tests.optim._common import assert_params_close, assert_state_close, build, feed, make_run, run_both

CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3),
    dict(lr=0.05, momentum=0.8, nesterov=True),
    dict(lr=0.05, momentum=0.9, weight_decay=0.01),
    dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True),
    dict(lr=0.02, weight_decay=0.05, maximize=True),
    dict(lr=np.array(0.05), momentum=0.5),
    dict(lr=0.05, momentum=0.9, fused=True),
]


@pytest.mark.parametrize("foreach", [False, True], ids=["single", "foreach"])
@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_sgd_matches_torch(kwargs, foreach):
    if not kwargs.get("fused"):
        kwargs = dict(kwargs, foreach=foreach)
    # torch's fused SGD cannot take a step where only some parameters have gradients
    (tp, topt), (ep, eopt) = run_both("SGD", kwargs, none_every=0 if kwargs.get("fused") else 7)
    assert_params_close(tp, ep)
    assert_state_close(topt, eopt)


def test_sgd_param_groups():
    groups = [([0, 2], dict(lr=0.1, momentum=0.9, foreach=True)), ([1], dict(nesterov=True, momentum=0.5))]
    (tp, topt), (ep, eopt) = run_both("SGD", dict(lr=0.01), groups=groups)
    assert_params_close(tp, ep)
    assert_state_close(topt, eopt)


def test_sgd_no_momentum_has_no_state():
    (_, topt), (_, eopt) = run_both("SGD", dict(lr=0.1), steps=3)
    assert eopt.state_dict()["state"] == topt.state_dict()["state"] == {}


def test_sgd_float32_end_to_end():
    (tp, _), (ep, _) = run_both("SGD", dict(lr=0.01, momentum=0.9), dtype="float32")
    assert_params_close(tp, ep, tol=1e-5)


def test_sgd_resume_equals_uninterrupted():
    rng = np.random.default_rng(3)
    kwargs = dict(lr=0.05, momentum=0.9, nesterov=True)
    init, grads = make_run(rng, steps=40)
    ep, eopt = build(ember, "SGD", init, kwargs)
    for row in grads:
        feed(ember, ep, row)
        eopt.step()
    rp, ropt = build(ember, "SGD", init, kwargs)
    for row in grads[:20]:
        feed(ember, rp, row)
        ropt.step()
    saved = copy.deepcopy(ropt.state_dict())
    params = [p.detach().clone().requires_grad_() for p in rp]
    opt2 = ember.optim.SGD(params, lr=1.0)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == 0.05 and opt2.param_groups[0]["nesterov"]
    for row in grads[20:]:
        feed(ember, params, row)
        opt2.step()
    for a, b in zip(ep, params):
        np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())


@pytest.mark.parametrize("kwargs, msg", [
    (dict(lr=-0.1), "Invalid learning rate: -0.1"),
    (dict(lr=0.1, momentum=-1), "Invalid momentum value: -1"),
    (dict(lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1"),
    (dict(lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
])
def test_sgd_invalid_arguments(kwargs, msg):
    for lib in (torch, ember):
        with pytest.raises(ValueError, match=msg):
            lib.optim.SGD([lib.zeros(2, requires_grad=True)], **kwargs)


def test_sgd_closure_and_default_lr():
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    opt = ember.optim.SGD([w])
    assert opt.defaults["lr"] == torch.optim.SGD([torch.zeros(1, requires_grad=True)]).defaults["lr"]

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert float(loss) == 5.0
    np.testing.assert_allclose(w.detach().numpy(), [1.0 - 2e-3, 2.0 - 4e-3], rtol=1e-6)


def test_functional_sgd():
    from ember.optim.sgd import sgd
    p = ember.tensor([1.0, 2.0])
    bufs = [None]
    sgd([p], [ember.tensor([1.0, 1.0])], bufs, weight_decay=0.0, momentum=0.9, lr=0.1,
        dampening=0.0, nesterov=False, maximize=False)
    np.testing.assert_allclose(p.numpy(), [0.9, 1.9], rtol=1e-6)
    assert bufs[0] is not None
