"""Every lr scheduler against torch: lr sequences over 100 epochs (two param groups), also after a
state_dict reload mid-way, plus ReduceLROnPlateau's modes and torch's call-order warning."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import ember


def _opt(lib, name="SGD"):
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    groups = [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}]
    if name == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return lib.optim.Adam(groups, lr=0.1)


def _lam(e):
    return 0.95 ** e


def _mult(e):
    return 0.97


SCHEDULERS = {
    "LambdaLR": lambda S, o: S.LambdaLR(o, lr_lambda=_lam),
    "LambdaLR-list": lambda S, o: S.LambdaLR(o, lr_lambda=[_lam, lambda e: 1 / (e + 1)]),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lr_lambda=_mult),
    "StepLR": lambda S, o: S.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[10, 30, 30, 60], gamma=0.3),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=12),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=40),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.96),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=70, power=2.0),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=30, eta_min=1e-3),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.5, total_iters=5), S.ExponentialLR(o, gamma=0.97)]),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.2, total_iters=10), S.CosineAnnealingLR(o, T_max=40),
            S.StepLR(o, step_size=5)], milestones=[10, 50]),
    "CyclicLR": lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=7,
                                        step_size_down=5),
    "CyclicLR-triangular2": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="triangular2"),
    "CyclicLR-exp_range": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="exp_range",
                                                  gamma=0.98, cycle_momentum=False),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, max_lr=[0.5, 0.3], total_steps=101),
    "OneCycleLR-3phase-linear": lambda S, o: S.OneCycleLR(o, max_lr=0.5, epochs=11, steps_per_epoch=10,
                                                          three_phase=True, anneal_strategy="linear"),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2,
                                                                              eta_min=1e-4),
}
ADAM = {"CyclicLR-triangular2", "OneCycleLR"}  # cycle betas[0] instead of momentum


def _groups_snapshot(opt):
    out = []
    for g in opt.param_groups:
        m = g["betas"][0] if "betas" in g else g.get("momentum")
        out.append((float(g["lr"]), m))
    return out


def _run(lib, key, epochs=100, reload_at=None):
    opt = _opt(lib, "Adam" if key in ADAM else "SGD")
    sched = SCHEDULERS[key](lib.optim.lr_scheduler, opt)
    seq = []
    for epoch in range(epochs):
        if epoch == reload_at:
            osd, ssd = opt.state_dict(), sched.state_dict()
            # a fresh pair: build the scheduler first (its __init__ rewrites lrs), then load both
            opt = _opt(lib, "Adam" if key in ADAM else "SGD")
            sched = SCHEDULERS[key](lib.optim.lr_scheduler, opt)
            opt.load_state_dict(osd)
            sched.load_state_dict(ssd)
        opt.step()
        sched.step()
        seq.append((list(sched.get_last_lr()), _groups_snapshot(opt)))
    return seq


def _assert_seq(a, b):
    assert len(a) == len(b)
    for (la, ga), (lb, gb) in zip(a, b):
        np.testing.assert_allclose(lb, la, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(np.array(gb, dtype=float), np.array(ga, dtype=float),
                                   rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("key", SCHEDULERS)
def test_lr_sequence_matches_torch(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_seq(_run(torch, key), _run(ember, key))


@pytest.mark.parametrize("key", SCHEDULERS)
def test_lr_sequence_after_reload_matches_torch(key):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _run(torch, key)
        _assert_seq(ref, _run(torch, key, reload_at=50))
        _assert_seq(ref, _run(ember, key, reload_at=50))


def test_scheduler_state_dict_keys_match_torch():
    for key in SCHEDULERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = SCHEDULERS[key](torch.optim.lr_scheduler, _opt(torch, "Adam" if key in ADAM else "SGD"))
            e = SCHEDULERS[key](ember.optim.lr_scheduler, _opt(ember, "Adam" if key in ADAM else "SGD"))
        assert sorted(t.state_dict()) == sorted(e.state_dict()), key


def test_load_torch_scheduler_state_dict():
    topt, eopt = _opt(torch), _opt(ember)
    t = torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=20)
    e = ember.optim.lr_scheduler.CosineAnnealingLR(eopt, T_max=20)
    for _ in range(7):
        topt.step()
        t.step()
    e.load_state_dict(t.state_dict())
    for g, lr in zip(eopt.param_groups, t.get_last_lr()):
        g["lr"] = lr
    for _ in range(20):
        topt.step()
        t.step()
        eopt.step()
        e.step()
        assert e.get_last_lr() == pytest.approx(t.get_last_lr(), rel=1e-13)


def test_tensor_lr_is_filled_in_place():
    seqs = []
    for lib in (torch, ember):
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        out = []
        for _ in range(4):
            opt.step()
            sched.step()
            out.append(float(opt.param_groups[0]["lr"]))
        assert opt.param_groups[0]["lr"] is lr
        seqs.append(out)
    assert seqs[0] == pytest.approx(seqs[1])


PLATEAU = [
    dict(),
    dict(mode="max", factor=0.5, patience=2),
    dict(threshold_mode="abs", threshold=0.05, patience=1, cooldown=2),
    dict(mode="max", threshold_mode="abs", threshold=0.01, patience=0, min_lr=[0.02, 0.01]),
    dict(factor=0.3, patience=3, cooldown=1, min_lr=0.004, eps=1e-3),
]


@pytest.mark.parametrize("kwargs", PLATEAU, ids=str)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    rng = np.random.default_rng(0)
    metrics = [1 / (1 + 0.1 * i) + 0.05 * rng.standard_normal() for i in range(100)]
    seqs = []
    for lib in (torch, ember):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        out = []
        for i, m in enumerate(metrics):
            opt.step()
            sched.step(m if i % 2 else lib.tensor(m))
            if i == 50:
                sd = sched.state_dict()
                sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
                sched.load_state_dict(sd)
            out.append(list(sched.get_last_lr()) + [sched.num_bad_epochs, sched.cooldown_counter])
        seqs.append(out)
    np.testing.assert_allclose(np.array(seqs[1]), np.array(seqs[0]), rtol=1e-13)


@pytest.mark.parametrize("kwargs, exc", [
    (dict(factor=1.0), ValueError), (dict(mode="avg"), ValueError),
    (dict(threshold_mode="pct"), ValueError), (dict(min_lr=[0.1]), ValueError)])
def test_reduce_lr_on_plateau_errors(kwargs, exc):
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(exc) as info:
            lib.optim.lr_scheduler.ReduceLROnPlateau(_opt(lib), **kwargs)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_warning_when_scheduler_steps_first():
    msgs = []
    for lib in (torch, ember):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sched.step()
            opt.step()
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1]
    assert "Detected call of `lr_scheduler.step()` before `optimizer.step()`" in msgs[1][0]


def test_no_warning_in_the_right_order():
    opt = _opt(ember)
    sched = ember.optim.lr_scheduler.StepLR(opt, step_size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()


def test_get_lr_outside_step_warns_like_torch():
    msgs = []
    for lib in (torch, ember):
        sched = lib.optim.lr_scheduler.ExponentialLR(_opt(lib), gamma=0.9)
        with pytest.warns(UserWarning) as w:
            sched.get_lr()
        msgs.append(str(w[0].message))
    assert msgs[0] == msgs[1]


def test_cosine_closed_form_with_epoch():
    seqs = []
    for lib in (torch, ember):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for ep in (3, 7, 12):
                opt.step()
                sched.step(ep)
                out.append(sched.get_last_lr())
        seqs.append(out)
    np.testing.assert_allclose(seqs[1], seqs[0], rtol=1e-13)
    assert not math.isnan(seqs[1][0][0])
