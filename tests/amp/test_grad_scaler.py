"""GradScaler against torch's CPU GradScaler: scale, skipped steps on injected infs, state."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _run(lib, steps, inf_at):
    lib.manual_seed(0)
    w = lib.nn.Parameter(lib.tensor([1.0, -2.0, 3.0]))
    opt = lib.optim.SGD([w], lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
    history = []
    for step in range(steps):
        opt.zero_grad()
        loss = (w * w).sum()
        if step in inf_at:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), scaler._get_growth_tracker(), w.detach().numpy().copy()))
    return history, scaler.state_dict()


def test_matches_torch_over_a_run_with_infs():
    he, se = _run(ember, 12, {2, 3, 8})
    ht, st = _run(torch, 12, {2, 3, 8})
    for (s1, g1, w1), (s2, g2, w2) in zip(he, ht):
        assert s1 == s2 and g1 == g2
        np.testing.assert_allclose(w1, w2, rtol=1e-6)
    assert se == st


def test_unscale_and_errors():
    w = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
    opt = ember.optim.SGD([w], lr=0.1)
    scaler = ember.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale((w * w).sum()).backward()
    scaler.unscale_(opt)
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0"):
        ember.amp.GradScaler("cpu", growth_factor=0.5)


def test_disabled_is_a_pass_through_and_cuda_alias_disables():
    scaler = ember.amp.GradScaler("cpu", enabled=False)
    t = ember.tensor(3.0)
    assert scaler.scale(t) is t and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        assert not ember.amp.GradScaler().is_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not ember.cuda.amp.GradScaler().is_enabled()


def test_state_dict_roundtrip():
    a = ember.amp.GradScaler("cpu", init_scale=16.0)
    a.scale(ember.tensor(1.0))
    b = ember.amp.GradScaler("cpu")
    b.load_state_dict(a.state_dict())
    assert b.get_scale() == 16.0 and b.state_dict() == a.state_dict()
