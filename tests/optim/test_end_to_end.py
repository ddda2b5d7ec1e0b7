"""Every optimizer trains a small ember.nn model in float32 like torch's (within 1e-5 after 50
full-batch steps), with a scheduler attached; and SparseAdam refuses clearly."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

OPTIMS = {
    "SGD": dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "Adam": dict(lr=1e-2, amsgrad=True),
    "AdamW": dict(lr=1e-2),
    "NAdam": dict(lr=1e-2, decoupled_weight_decay=True, weight_decay=1e-2),
    "RAdam": dict(lr=1e-2),
    "Adamax": dict(lr=1e-2),
    "Adagrad": dict(lr=5e-2, lr_decay=1e-3),
    "Adadelta": dict(lr=1.0),
    "RMSprop": dict(lr=1e-3, momentum=0.5, centered=True),
    "Rprop": dict(lr=1e-3),
    "ASGD": dict(lr=1e-2, t0=10.0),
}


def _train(lib, name, kwargs, foreach):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 5)).astype("float32")
    y = rng.standard_normal((64, 1)).astype("float32")
    nn = lib.nn
    model = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor((rng.standard_normal(tuple(p.shape)) * 0.3).astype("float32")))
    kw = dict(kwargs)
    if foreach:
        kw["foreach"] = True
    opt = getattr(lib.optim, name)(model.parameters(), **kw)
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.99)
    X, Y = lib.tensor(x), lib.tensor(y)
    loss_fn = nn.MSELoss()
    for _ in range(50):
        opt.zero_grad()
        loss = loss_fn(model(X), Y)
        loss.backward()
        opt.step()
        sched.step()
    return [p.detach().numpy().copy() for p in model.parameters()] + [np.array(loss.item(), "float32")]


@pytest.mark.parametrize("foreach", [False, True], ids=["single", "foreach"])
@pytest.mark.parametrize("name", OPTIMS)
def test_float32_training_matches_torch(name, foreach):
    a = _train(torch, name, OPTIMS[name], foreach)
    b = _train(ember, name, OPTIMS[name], foreach)
    for u, v in zip(a, b):
        assert v.dtype == np.float32
        np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-5)


def test_lbfgs_float32_training_matches_torch():
    out = []
    for lib in (torch, ember):
        rng = np.random.default_rng(1)
        X = lib.tensor(rng.standard_normal((32, 4)).astype("float32"))
        Y = lib.tensor(rng.standard_normal((32, 1)).astype("float32"))
        model = lib.nn.Linear(4, 1)
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor((rng.standard_normal(tuple(p.shape)) * 0.3).astype("float32")))
        opt = lib.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe", max_iter=5)

        def closure():
            opt.zero_grad()
            loss = ((model(X) - Y) ** 2).mean()
            loss.backward()
            return loss
        for _ in range(5):
            opt.step(closure)
        out.append([p.detach().numpy().copy() for p in model.parameters()])
    for u, v in zip(*out):
        np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-5)


def test_sparse_adam_refuses_clearly():
    with pytest.raises(NotImplementedError, match="SparseAdam needs sparse gradients"):
        ember.optim.SparseAdam([ember.zeros(2, requires_grad=True)])
    with pytest.raises(ValueError, match="Invalid learning rate: 0.0"):
        ember.optim.SparseAdam([ember.zeros(2, requires_grad=True)], lr=0.0)
