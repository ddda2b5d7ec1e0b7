"""swa_utils against torch: AveragedModel (SWA, avg_fn, multi_avg_fn, EMA, use_buffers), SWALR's lr
sequence, update_bn's recomputed BatchNorm statistics."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember


def _model(lib, seed=0, bn=False):
    rng = np.random.default_rng(seed)
    nn = lib.nn
    mid = nn.BatchNorm1d(5) if bn else nn.Identity()
    m = nn.Sequential(nn.Linear(3, 5), mid, nn.ReLU(), nn.Linear(5, 2)).double()
    m.register_buffer("scale", lib.ones(2, dtype=lib.float64))
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    return m


def _perturb(lib, model, rng):
    with lib.no_grad():
        for p in model.parameters():
            p.add_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.1))
        model.scale.mul_(1.1)


AVG = {
    "swa": lambda S: {},
    "avg_fn-ema": lambda S: {"avg_fn": S.get_ema_avg_fn(0.9)},
    "avg_fn-swa": lambda S: {"avg_fn": S.get_swa_avg_fn()},
    "multi_avg_fn-ema": lambda S: {"multi_avg_fn": S.get_ema_multi_avg_fn(0.8)},
    "multi_avg_fn-swa": lambda S: {"multi_avg_fn": S.get_swa_multi_avg_fn()},
    "ema-use_buffers": lambda S: {"multi_avg_fn": S.get_ema_multi_avg_fn(0.8), "use_buffers": True},
    "swa-use_buffers": lambda S: {"use_buffers": True},
}


@pytest.mark.parametrize("key", AVG)
def test_averaged_model_matches_torch(key):
    out = []
    for lib in (torch, ember):
        rng = np.random.default_rng(1)
        model = _model(lib)
        avg = lib.optim.swa_utils.AveragedModel(model, **AVG[key](lib.optim.swa_utils))
        for _ in range(12):
            _perturb(lib, model, rng)
            avg.update_parameters(model)
        out.append({k: v.detach().numpy().copy() for k, v in avg.state_dict().items()})
    assert list(out[0]) == list(out[1])
    for k in out[0]:
        np.testing.assert_allclose(out[1][k], out[0][k], rtol=1e-12, atol=1e-12, err_msg=k)


def test_averaged_model_forward_and_errors():
    model = _model(ember).eval()
    avg = ember.optim.swa_utils.AveragedModel(model).eval()
    x = ember.randn(4, 3, dtype=ember.float64)
    np.testing.assert_array_equal(avg(x).detach().numpy(), model(x).detach().numpy())
    S = ember.optim.swa_utils
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        S.AveragedModel(model, avg_fn=S.get_swa_avg_fn(), multi_avg_fn=S.get_swa_multi_avg_fn())
    for lib in (torch, ember):
        with pytest.raises(ValueError, match=r"Invalid decay value 1.5 provided"):
            lib.optim.swa_utils.get_ema_multi_avg_fn(1.5)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=5,
                                                           anneal_strategy="linear"),
                                    dict(swa_lr=0.02, anneal_epochs=0)], ids=str)
def test_swalr_matches_torch(kwargs):
    seqs = []
    for lib in (torch, ember):
        ps = [lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)]
        opt = lib.optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.3}], lr=0.5)
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        out = []
        for epoch in range(30):
            opt.step()
            sched.step()
            if epoch == 3:
                sd = sched.state_dict()
                sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
                sched.load_state_dict(sd)
            out.append(sched.get_last_lr())
        seqs.append(out)
    np.testing.assert_allclose(seqs[1], seqs[0], rtol=1e-13)


def test_swalr_errors_match_torch():
    for lib in (torch, ember):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
            lib.optim.swa_utils.SWALR(opt, 0.1, anneal_strategy="exp")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
            lib.optim.swa_utils.SWALR(opt, 0.1, anneal_epochs=-1)


def test_update_bn_matches_torch():
    rng = np.random.default_rng(2)
    batches = [rng.standard_normal((8, 3)) * 2 + 1 for _ in range(5)]
    out = []
    for lib in (torch, ember):
        model = _model(lib, bn=True)
        loader = [(lib.tensor(b), lib.zeros(8)) for b in batches]  # (input, target) pairs
        model.eval()
        lib.optim.swa_utils.update_bn(loader, model)
        assert not model.training
        bn = model[1]
        assert bn.momentum == 0.1
        out.append([bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                    int(bn.num_batches_tracked)])
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-12)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12)
    assert out[1][2] == out[0][2]


def test_update_bn_without_batchnorm_is_a_no_op():
    model = ember.nn.Linear(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.optim.swa_utils.update_bn([ember.ones(1, 2)], model)
