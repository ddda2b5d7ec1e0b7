"""The default path of Adam/AdamW/RMSprop/SGD runs the single-tensor update once over flat buffers
(``_raw.run_flat_update``): bit for bit the per-parameter path, step for step torch's values, with
parameters staying ordinary leaves and state tensors shaped like their parameters."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember.optim import _raw
from ember.optim.optimizer import Optimizer

SHAPES = ((3, 4), (5,), (2, 3, 2), ())

CASES = [("Adam", {}), ("Adam", dict(weight_decay=0.1, amsgrad=True, maximize=True)),
         ("AdamW", dict(weight_decay=0.3)), ("RMSprop", dict(centered=True, momentum=0.5, weight_decay=0.1)),
         ("RMSprop", {}), ("SGD", dict(momentum=0.9, nesterov=True, weight_decay=0.1)),
         ("SGD", dict(momentum=0.9, dampening=0.2, maximize=True))]


def _run(lib, name, cfg, dtype, steps=12):
    rng = np.random.default_rng(0)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    opt = getattr(lib.optim, name)(params, lr=0.01, **cfg)
    for _ in range(steps):
        for p in params:
            p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(dtype))
        opt.step()
    return params, opt


def _state(params, opt):
    return [p.detach().numpy().copy() for p in params] + \
        [v.detach().numpy().copy() for p in params for _, v in sorted(opt.state[p].items())]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,cfg", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_flat_default_path_is_the_per_parameter_path_and_torch(name, cfg, dtype, monkeypatch):
    taken = []
    real = _raw.run_flat_update
    monkeypatch.setattr(_raw, "run_flat_update", lambda *a: taken.append(real(*a)) or taken[-1])
    for mod in ("adam", "rmsprop", "sgd"):
        monkeypatch.setattr(f"ember.optim.{mod}.run_flat_update", _raw.run_flat_update)
    params, opt = _run(ember, name, cfg, dtype)
    assert taken and all(taken[1:]), "the flat default path was not taken"
    flat = _state(params, opt)
    for p in params:  # parameters stay leaves; state keeps each parameter's shape
        assert p._base is None and p.is_leaf
        assert all(tuple(v.shape) == tuple(p.shape) for k, v in opt.state[p].items() if k != "step")
    monkeypatch.setattr(type(opt), "_update_group", Optimizer._update_group)
    per_param = _state(*_run(ember, name, cfg, dtype))
    for a, b in zip(flat, per_param):
        np.testing.assert_array_equal(a, b)
    tparams, topt = _run(torch, name, cfg, dtype)
    for a, b in zip(flat, _state(tparams, topt)):
        np.testing.assert_allclose(a, b, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-7)


def test_flat_path_bumps_each_version_once_per_step():
    params, opt = _run(ember, "Adam", {}, "float32", steps=2)
    before = [p._version for p in params] + [v._version for p in params for v in opt.state[p].values()]
    for p in params:
        p.grad = ember.ones_like(p)
    opt.step()
    after = [p._version for p in params] + [v._version for p in params for v in opt.state[p].values()]
    assert [b - a for a, b in zip(before, after)] == [1] * len(before)
