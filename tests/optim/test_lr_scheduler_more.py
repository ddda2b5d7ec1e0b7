"""More lr-scheduler checks against torch: resuming with ``last_epoch``, ``step(epoch)`` jumps (closed
forms), fractional warm-restart epochs, error messages, torch state dicts for every scheduler, pickling,
callable-object state and warnings."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch

import ember

from .test_lr_scheduler import ADAM, SCHEDULERS, _groups_snapshot, _opt

_GROUP_KEYS = ("lr", "initial_lr", "momentum", "betas", "max_lr", "min_lr", "max_momentum",
               "base_momentum")


def _one_group(lib, lr=0.5, initial_lr=1.0):
    opt = lib.optim.SGD([lib.zeros(2, requires_grad=True)], lr=lr, momentum=0.9)
    if initial_lr is not None:
        opt.param_groups[0]["initial_lr"] = initial_lr
    return opt


RESUMABLE = {
    "MultiplicativeLR": lambda S, o, le: S.MultiplicativeLR(o, lambda e: 0.9, last_epoch=le),
    "StepLR": lambda S, o, le: S.StepLR(o, 3, 0.5, last_epoch=le),
    "MultiStepLR": lambda S, o, le: S.MultiStepLR(o, [2, 4, 4], 0.5, last_epoch=le),
    "ConstantLR": lambda S, o, le: S.ConstantLR(o, 0.3, 3, last_epoch=le),
    "LinearLR": lambda S, o, le: S.LinearLR(o, 0.3, 0.9, 4, last_epoch=le),
    "ExponentialLR": lambda S, o, le: S.ExponentialLR(o, 0.7, last_epoch=le),
    "PolynomialLR": lambda S, o, le: S.PolynomialLR(o, 4, 2.0, last_epoch=le),
    "CosineAnnealingLR": lambda S, o, le: S.CosineAnnealingLR(o, 4, 0.1, last_epoch=le),
    "CAWR": lambda S, o, le: S.CosineAnnealingWarmRestarts(o, 3, 2, 0.1, last_epoch=le),
    "LambdaLR": lambda S, o, le: S.LambdaLR(o, lambda e: 0.9 ** e, last_epoch=le),
}


@pytest.mark.parametrize("key", RESUMABLE)
@pytest.mark.parametrize("last_epoch", [-1, 0, 2, 3, 5])
def test_resume_with_last_epoch_matches_torch(key, last_epoch):
    seqs = []
    for lib in (torch, ember):
        opt = _one_group(lib)
        sched = RESUMABLE[key](lib.optim.lr_scheduler, opt, last_epoch)
        out = [opt.param_groups[0]["lr"], sched.last_epoch, sched._step_count]
        for _ in range(12):
            opt.step()
            sched.step()
            out.append(opt.param_groups[0]["lr"])
        seqs.append(out)
    np.testing.assert_allclose(seqs[1], seqs[0], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("key", list(RESUMABLE))
def test_step_with_epoch_matches_torch(key):
    seqs = []
    for lib in (torch, ember):
        opt = _one_group(lib, lr=1.0, initial_lr=None)
        sched = RESUMABLE[key](lib.optim.lr_scheduler, opt, -1)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for ep in (1, 2, 5, 3, 4, 9, 10, 10, 0, 7, 20):
                opt.step()
                sched.step(ep)
                out.append(opt.param_groups[0]["lr"])
                opt.step()
                sched.step()
                out.append(opt.param_groups[0]["lr"])
        seqs.append(out)
    np.testing.assert_allclose(seqs[1], seqs[0], rtol=1e-13, atol=1e-15)


def test_warm_restarts_fractional_epochs_match_torch():
    seqs = []
    for lib in (torch, ember):
        for t_mult in (1, 2, 3):
            opt = _one_group(lib, lr=1.0, initial_lr=None)
            sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=t_mult,
                                                                      eta_min=0.01)
            out = []
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                for ep in np.arange(0, 40, 0.7):
                    opt.step()
                    sched.step(float(ep))
                    out += [opt.param_groups[0]["lr"], sched.T_cur, sched.T_i, sched.last_epoch]
            assert not w
            seqs.append(out)
    np.testing.assert_allclose(seqs[3:], seqs[:3], rtol=1e-12)


def _errors(lib):
    S = lib.optim.lr_scheduler

    def o(adam=False):
        ps = [lib.zeros(2, requires_grad=True)]
        return lib.optim.Adam(ps, lr=0.1) if adam else lib.optim.SGD(ps, lr=0.1, momentum=0.9)

    def seq_other():
        op = o()
        return S.SequentialLR(op, [S.StepLR(op, 3), S.StepLR(o(), 3)], [2])

    def seq_counts():
        op = o()
        return S.SequentialLR(op, [S.StepLR(op, 3), S.StepLR(op, 3)], [2, 3])

    def plateau_member():
        op = o()
        return S.ChainedScheduler([S.StepLR(op, 3), S.ReduceLROnPlateau(op)])

    def too_many_steps():
        op = o()
        s = S.OneCycleLR(op, 0.1, total_steps=3)
        for _ in range(5):
            op.step()
            s.step()

    adagrad = lambda: lib.optim.Adagrad([lib.zeros(2, requires_grad=True)])  # noqa: E731
    return [
        lambda: S.StepLR("x", 3), lambda: S.StepLR(o(), 3, last_epoch=4),
        lambda: S.LambdaLR(o(), [lambda e: 1, lambda e: 2]),
        lambda: S.MultiplicativeLR(o(), [lambda e: 1, lambda e: 2]),
        lambda: S.ConstantLR(o(), factor=1.5), lambda: S.LinearLR(o(), start_factor=0),
        lambda: S.LinearLR(o(), end_factor=2), lambda: S.ChainedScheduler([]),
        lambda: S.ChainedScheduler([S.StepLR(o(), 3)], optimizer=o()),
        lambda: S.SequentialLR(o(), [], []), lambda: S.SequentialLR(o(), [3], []),
        seq_other, seq_counts, plateau_member,
        lambda: S.CyclicLR(o(), 0.01, 0.1, mode="foo"), lambda: S.CyclicLR(adagrad(), 0.01, 0.1),
        lambda: S.CyclicLR(o(), [0.01, 0.2], 0.1), lambda: S.CyclicLR(o(), 0.01, 0.1, last_epoch=3),
        lambda: S.OneCycleLR(o(), 0.1), lambda: S.OneCycleLR(o(), 0.1, total_steps=-1),
        lambda: S.OneCycleLR(o(), 0.1, total_steps=1.5),
        lambda: S.OneCycleLR(o(), 0.1, epochs=0, steps_per_epoch=3),
        lambda: S.OneCycleLR(o(), 0.1, epochs=2, steps_per_epoch=0),
        lambda: S.OneCycleLR(o(), 0.1, total_steps=10, pct_start=1.5),
        lambda: S.OneCycleLR(o(), 0.1, total_steps=10, anneal_strategy="x"),
        lambda: S.OneCycleLR(o(), 0.1, total_steps=10, last_epoch=3),
        lambda: S.OneCycleLR(adagrad(), 0.1, total_steps=10), too_many_steps,
        lambda: S.CosineAnnealingWarmRestarts(o(), 0), lambda: S.CosineAnnealingWarmRestarts(o(), 2.0),
        lambda: S.CosineAnnealingWarmRestarts(o(), 2, 0), lambda: S.CosineAnnealingWarmRestarts(o(), 2, 1.5),
        lambda: S.CosineAnnealingWarmRestarts(o(), 2, eta_min="a"),
        lambda: S.CosineAnnealingWarmRestarts(o(), 2).step(-1),
        lambda: S.ExponentialLR(o(), 0.5, last_epoch=-2),
    ]


def test_error_types_and_messages_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (t, e) in enumerate(zip(_errors(torch), _errors(ember))):
            got = []
            for fn in (t, e):
                with pytest.raises(Exception) as info:
                    fn()
                # the optimizer's repr inside some messages is the only lib-specific part
                got.append((type(info.value), str(info.value).replace("ember", "torch")))
            assert got[0] == got[1], i


def _copy_groups(topt, eopt):
    for tg, eg in zip(topt.param_groups, eopt.param_groups):
        for k in _GROUP_KEYS:
            if k in tg:
                eg[k] = tg[k]


@pytest.mark.parametrize("key", SCHEDULERS)
def test_every_torch_state_dict_loads(key):
    name = "Adam" if key in ADAM else "SGD"
    topt, eopt = _opt(torch, name), _opt(ember, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = SCHEDULERS[key](torch.optim.lr_scheduler, topt)
        e = SCHEDULERS[key](ember.optim.lr_scheduler, eopt)
        for _ in range(37):
            topt.step()
            t.step()
        e.load_state_dict(t.state_dict())
        _copy_groups(topt, eopt)
        for _ in range(40):
            topt.step()
            t.step()
            eopt.step()
            e.step()
            np.testing.assert_allclose(e.get_last_lr(), t.get_last_lr(), rtol=1e-13, atol=1e-15)
            np.testing.assert_allclose(np.array(_groups_snapshot(eopt), dtype=float),
                                       np.array(_groups_snapshot(topt), dtype=float), rtol=1e-13)


def test_pickle_round_trip_uses_public_module():
    opt = _opt(ember)
    sched = ember.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    for _ in range(3):
        opt.step()
        sched.step()
    data = pickle.dumps(sched)
    assert b"ember.optim.lr_scheduler" in data
    again = pickle.loads(data)
    assert type(again) is ember.optim.lr_scheduler.MultiStepLR
    assert again.get_last_lr() == sched.get_last_lr() and again.last_epoch == 3


class _Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return 1.0 / (self.k * x + 1.0)


def test_callable_objects_are_saved_by_attributes():
    for lib in (torch, ember):
        S = lib.optim.lr_scheduler
        a = S.LambdaLR(_opt(lib), [_Scale(2.0), lambda e: 1.0])
        b = S.LambdaLR(_opt(lib), [_Scale(5.0), lambda e: 1.0])
        sd = a.state_dict()
        assert sd["lr_lambdas"] == [{"k": 2.0}, None]
        b.load_state_dict(sd)
        assert b.lr_lambdas[0].k == 2.0
        c = S.CyclicLR(_opt(lib), 0.01, 0.1, scale_fn=_Scale(3.0))
        assert c.state_dict()["_scale_fn_custom"] == {"k": 3.0}
        d = S.CyclicLR(_opt(lib), 0.01, 0.1, scale_fn=_Scale(1.0))
        d.load_state_dict(c.state_dict())
        assert d._scale_fn_custom.k == 3.0


def test_overridden_optimizer_step_warns_like_torch():
    msgs = []
    for lib in (torch, ember):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3)
        opt.step = lambda *a, **k: None
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sched.step()
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[1]) == 1


def test_epoch_argument_warns_like_torch():
    msgs = []
    for lib in (torch, ember):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3)
        plateau = lib.optim.lr_scheduler.ReduceLROnPlateau(opt)
        opt.step()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sched.step(4)
            plateau.step(1.0, 2)
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[1]) == 2


def test_sequential_restart_does_not_warn():
    opt = _opt(ember)
    S = ember.optim.lr_scheduler
    sched = S.SequentialLR(opt, [S.StepLR(opt, 2), S.ExponentialLR(opt, 0.9)], milestones=[3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(6):
            opt.step()
            sched.step()


def test_plateau_fills_tensor_lr_in_place():
    vals = []
    for lib in (torch, ember):
        lr = lib.tensor(0.1)
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=lr)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
        for _ in range(3):
            opt.step()
            sched.step(1.0)
        assert opt.param_groups[0]["lr"] is lr
        vals.append(float(lr))
    assert vals[0] == pytest.approx(vals[1])
