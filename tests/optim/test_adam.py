"""Adam and AdamW against torch: identical injected gradients, float64, 100 steps."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import ember
from tests.optim._common import assert_params_close, assert_state_close, build, feed, make_run, run_both

CONFIGS = [
    ("Adam", dict(lr=1e-2)),
    ("Adam", dict(lr=1e-2, betas=(0.8, 0.99), eps=1e-6)),
    ("Adam", dict(lr=1e-2, amsgrad=True)),
    ("Adam", dict(lr=1e-2, weight_decay=0.1)),
    ("Adam", dict(lr=1e-2, weight_decay=0.1, maximize=True, amsgrad=True)),
    ("Adam", dict(lr=np.array(0.01))),
    ("Adam", dict(lr=np.array(0.01, dtype=np.float32), weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=1e-2, fused=True)),
    ("AdamW", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, weight_decay=0.3, amsgrad=True)),
    ("AdamW", dict(lr=1e-2, maximize=True)),
]


def _id(c):
    return c if isinstance(c, str) else ",".join(f"{a}={b}" for a, b in c.items())


@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=_id)
@pytest.mark.parametrize("foreach", [False, True], ids=["single", "foreach"])
def test_adam_matches_torch(name, kwargs, foreach):
    if foreach and (isinstance(kwargs.get("lr"), np.ndarray) or kwargs.get("fused")):
        foreach = None  # torch refuses a tensor lr with foreach; fused has its own path
    kwargs = dict(kwargs, foreach=foreach)
    (tp, topt), (ep, eopt) = run_both(name, kwargs, none_every=9)
    assert_params_close(tp, ep)
    assert_state_close(topt, eopt)


def test_adam_param_groups():
    groups = [([0], dict(lr=0.1, amsgrad=True)), ([1, 2], dict(betas=(0.5, 0.9), foreach=True))]
    (tp, topt), (ep, eopt) = run_both("Adam", dict(lr=0.01), groups=groups)
    assert_params_close(tp, ep)
    assert_state_close(topt, eopt)


def test_adam_state_layout():
    (_, topt), (_, eopt) = run_both("Adam", dict(lr=1e-3, amsgrad=True), steps=2)
    es = eopt.state_dict()
    assert list(es) == ["state", "param_groups"]
    assert list(es["state"][0]) == list(topt.state_dict()["state"][0]) == [
        "step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    step = es["state"][0]["step"]
    assert step.dim() == 0 and step.dtype == ember.float32 and float(step) == 2.0
    assert isinstance(es["param_groups"][0]["lr"], float)
    assert es["param_groups"][0]["params"] == [0, 1, 2]


def test_adam_float32_end_to_end():
    """A small MLP trained 50 full-batch steps in float32: parameters within 1e-5 of torch's."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((64, 5)).astype("float32"), rng.standard_normal((64, 1)).astype("float32")
    shapes = [(5, 16), (16,), (16, 1), (1,)]
    init = [(rng.standard_normal(s) * 0.3).astype("float32") for s in shapes]
    results = []
    for lib in (torch, ember):
        w1, b1, w2, b2 = ps = [lib.tensor(a, requires_grad=True) for a in init]
        opt = lib.optim.Adam(ps, lr=1e-2)
        X, Y = lib.tensor(x), lib.tensor(y)
        for _ in range(50):
            opt.zero_grad()
            loss = ((((X @ w1 + b1).relu() @ w2 + b2) - Y) ** 2).mean()
            loss.backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in ps] + [np.array(loss.item())])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_resume_equals_uninterrupted(name):
    rng = np.random.default_rng(5)
    kwargs = dict(lr=1e-2, amsgrad=True, weight_decay=0.01)
    init, grads = make_run(rng, steps=40)
    ep, eopt = build(ember, name, init, kwargs)
    for row in grads:
        feed(ember, ep, row)
        eopt.step()
    rp, ropt = build(ember, name, init, kwargs)
    for row in grads[:25]:
        feed(ember, rp, row)
        ropt.step()
    saved = copy.deepcopy(ropt.state_dict())
    params = [p.detach().clone().requires_grad_() for p in rp]
    opt2 = getattr(ember.optim, name)(params)
    opt2.load_state_dict(saved)
    for row in grads[25:]:
        feed(ember, params, row)
        opt2.step()
    for a, b in zip(ep, params):
        np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())
    assert float(opt2.state[params[0]]["step"]) == 40.0


def test_adam_load_state_dict_casts_like_torch():
    """State saved from float64 params, loaded for float32 params: moments follow the param dtype,
    'step' keeps its own."""
    out = []
    for lib in (torch, ember):
        p64 = lib.ones(3, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adam([p64])
        p64.grad = lib.ones(3, dtype=lib.float64)
        opt.step()
        p32 = lib.ones(3, requires_grad=True)
        opt32 = lib.optim.Adam([p32])
        opt32.load_state_dict(opt.state_dict())
        st = opt32.state[p32]
        out.append({k: repr(v.dtype) for k, v in st.items()})
    assert out[0] == out[1]


@pytest.mark.parametrize("kwargs, msg", [
    (dict(lr=-1.0), "Invalid learning rate: -1.0"),
    (dict(eps=-1.0), "Invalid epsilon value: -1.0"),
    (dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (dict(weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    (dict(betas=(0.9, 1)), "Invalid beta parameter at index 1: 1"),
])
def test_adam_invalid_arguments(kwargs, msg):
    for lib in (torch, ember):
        with pytest.raises(ValueError, match=msg.replace("(", r"\(")):
            lib.optim.Adam([lib.zeros(2, requires_grad=True)], **kwargs)


def test_adam_tensor_lr_with_foreach_rejected():
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="lr as a Tensor is not supported for capturable=False and "
                                             "foreach=True"):
            lib.optim.Adam([lib.zeros(2, requires_grad=True)], lr=lib.tensor(0.1), foreach=True)


def test_adamw_defaults_match_torch():
    t = torch.optim.AdamW([torch.zeros(1, requires_grad=True)]).defaults
    e = ember.optim.AdamW([ember.zeros(1, requires_grad=True)]).defaults
    assert t == e
