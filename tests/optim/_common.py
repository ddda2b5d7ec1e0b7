"""Shared harness: run an ember optimizer and torch's side by side on identical parameters and
injected gradients, and compare parameters and state."""
from __future__ import annotations

import numpy as np
import torch

import ember

SHAPES = ((3, 4), (4,), (2, 3, 2))


def make_run(rng, shapes=SHAPES, steps=100, dtype="float64", none_every=0):
    """Initial values and per-step gradients (None where a parameter gets no gradient that step)."""
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    grads = []
    for t in range(steps):
        row = []
        for i, s in enumerate(shapes):
            if none_every and i == 1 and t % none_every == 0:
                row.append(None)
            else:
                row.append(rng.standard_normal(s).astype(dtype))
        grads.append(row)
    return init, grads


def _lr(lib, kwargs):
    kw = dict(kwargs)
    if isinstance(kw.get("lr"), np.ndarray):
        kw["lr"] = lib.tensor(kw["lr"])
    return kw


def build(lib, name, init, kwargs, groups=None):
    params = [lib.tensor(a, requires_grad=True) for a in init]
    cls = getattr(lib.optim, name)
    if groups is None:
        opt = cls(params, **_lr(lib, kwargs))
    else:
        opt = cls([dict(params=[params[i] for i in idx], **_lr(lib, extra)) for idx, extra in groups],
                  **_lr(lib, kwargs))
    return params, opt


def feed(lib, params, row):
    for p, g in zip(params, row):
        p.grad = None if g is None else lib.tensor(g)


def run_both(name, kwargs, *, steps=100, seed=0, groups=None, none_every=0, dtype="float64"):
    rng = np.random.default_rng(seed)
    init, grads = make_run(rng, steps=steps, none_every=none_every, dtype=dtype)
    tp, topt = build(torch, name, init, kwargs, groups)
    ep, eopt = build(ember, name, init, kwargs, groups)
    for row in grads:
        feed(torch, tp, row)
        feed(ember, ep, row)
        topt.step()
        eopt.step()
    return (tp, topt), (ep, eopt)


def np_of(t):
    return t.detach().numpy()


def assert_params_close(tp, ep, tol=1e-10):
    for a, b in zip(tp, ep):
        assert b.dtype.__repr__() == repr(a.dtype)
        np.testing.assert_allclose(np_of(b), np_of(a), rtol=tol, atol=tol)


def assert_state_close(topt, eopt, tol=1e-10):
    ts, es = topt.state_dict(), eopt.state_dict()
    assert sorted(ts["state"]) == sorted(es["state"])
    for k, tst in ts["state"].items():
        est = es["state"][k]
        assert list(tst) == list(est)
        for key, tv in tst.items():
            ev = est[key]
            if isinstance(tv, torch.Tensor):
                assert repr(ev.dtype) == repr(tv.dtype), key
                assert tuple(ev.shape) == tuple(tv.shape), key
                np.testing.assert_allclose(np_of(ev), np_of(tv), rtol=tol, atol=tol)
            else:
                assert ev == tv
    assert len(ts["param_groups"]) == len(es["param_groups"])
    for tg, eg in zip(ts["param_groups"], es["param_groups"]):
        assert list(tg) == list(eg)
        for key, tv in tg.items():
            ev = eg[key]
            if isinstance(tv, torch.Tensor):
                assert float(ev) == float(tv)
            else:
                assert ev == tv, key


def run_compare(name, kwargs, *, steps=200, every=10, seed=0, groups=None, none_every=7,
                tol=1e-10, dtype="float64"):
    """Run torch's and ember's ``name`` side by side; compare params and state every ``every`` steps."""
    rng = np.random.default_rng(seed)
    init, grads = make_run(rng, steps=steps, none_every=none_every, dtype=dtype)
    tp, topt = build(torch, name, init, kwargs, groups)
    ep, eopt = build(ember, name, init, kwargs, groups)
    for t, row in enumerate(grads, 1):
        feed(torch, tp, row)
        feed(ember, ep, row)
        topt.step()
        eopt.step()
        if t % every == 0:
            assert_params_close(tp, ep, tol)
            assert_state_close(topt, eopt, tol)
    return (tp, topt), (ep, eopt)


def pairwise(options: dict) -> list:
    """The default config, every single option and every pair of options (dicts of kwargs)."""
    import itertools
    items = list(options.items())
    out = [{}] + [dict([kv]) for kv in items]
    out += [dict([a, b]) for a, b in itertools.combinations(items, 2)]
    return out


def config_id(cfg: dict) -> str:
    if not cfg:
        return "default"
    return ",".join(f"{k}={'T' if isinstance(v, np.ndarray) else v}" for k, v in cfg.items())


def tensor_lr_ok(cfg: dict) -> bool:
    """torch refuses a tensor lr together with foreach=True (capturable=False) for Adam-likes."""
    return not (isinstance(cfg.get("lr"), np.ndarray) and cfg.get("foreach"))


def resume_from_torch(name, kwargs, *, steps=60, cut=30, seed=3):
    """Run torch ``cut`` steps, load its state dict (tensors converted) into a fresh ember optimizer,
    continue both to ``steps``: params and state must still agree."""
    rng = np.random.default_rng(seed)
    init, grads = make_run(rng, steps=steps, none_every=5)
    tp, topt = build(torch, name, init, kwargs)
    for row in grads[:cut]:
        feed(torch, tp, row)
        topt.step()
    sd = copy_sd(topt.state_dict())
    ep = [ember.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tp]
    eopt = getattr(ember.optim, name)(ep, **_lr(ember, kwargs))
    eopt.load_state_dict(to_ember(sd))
    # torch's own reload casts some state (e.g. float32 scalars to the param dtype): do it on both
    tp = [p.detach().clone().requires_grad_() for p in tp]
    topt = getattr(torch.optim, name)(tp, **_lr(torch, kwargs))
    topt.load_state_dict(sd)
    for row in grads[cut:]:
        for lib, ps, opt in ((torch, tp, topt), (ember, ep, eopt)):
            feed(lib, ps, row)
            opt.step()
    assert_params_close(tp, ep)
    assert_state_close(topt, eopt)


def copy_sd(sd):
    import copy
    return copy.deepcopy(sd)


def to_ember(obj):
    """A torch state dict with every tensor replaced by an equal ember tensor."""
    if isinstance(obj, torch.Tensor):
        return ember.tensor(obj.detach().numpy())
    if isinstance(obj, dict):
        return {k: to_ember(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_ember(v) for v in obj)
    return obj


def resume_round_trip(name, kwargs, *, steps=60, cut=30, seed=4):
    """ember optimizer: save its state_dict mid-run, load it into a fresh optimizer on cloned params;
    the continuation equals the uninterrupted run exactly."""
    import copy
    rng = np.random.default_rng(seed)
    init, grads = make_run(rng, steps=steps, none_every=5)
    ep, eopt = build(ember, name, init, kwargs)
    rp, ropt = build(ember, name, init, kwargs)
    for t, row in enumerate(grads):
        feed(ember, ep, row)
        eopt.step()
        if t < cut:
            feed(ember, rp, row)
            ropt.step()
        if t == cut - 1:
            saved = copy.deepcopy(ropt.state_dict())
            rp = [p.detach().clone().requires_grad_() for p in rp]
            ropt = getattr(ember.optim, name)(rp, **_lr(ember, kwargs))
            ropt.load_state_dict(saved)
        elif t >= cut:
            feed(ember, rp, row)
            ropt.step()
    for a, b in zip(ep, rp):
        np.testing.assert_array_equal(b.detach().numpy(), a.detach().numpy())


def standard_suite(name: str, options: dict, base: dict, invalid: list) -> dict:
    """The tests every torch-matching optimizer gets, as module globals for pytest to collect:
    each option and every pair of options against torch (200 float64 steps), per-group options,
    resuming from torch's and from ember's own state dict, defaults/flags, and argument errors
    (``invalid``: ``[(kwargs, message)]``)."""
    import pytest as _pytest
    import torch as _torch

    import ember as _ember

    configs = [c for c in pairwise(options) if tensor_lr_ok(c)]

    @_pytest.mark.parametrize("cfg", configs, ids=config_id)
    def test_matches_torch(cfg):
        run_compare(name, dict(base, **cfg))

    def test_param_groups_match_torch():
        groups = [([0], dict(lr=0.2)), ([1, 2], dict(foreach=True))]
        run_compare(name, base, groups=groups, steps=60)

    @_pytest.mark.parametrize("cfg", [{}, {"foreach": True}], ids=config_id)
    def test_resume_from_torch_state_dict(cfg):
        resume_from_torch(name, dict(base, **cfg))

    def test_resume_round_trip():
        resume_round_trip(name, base)

    def test_flags_accepted_and_defaults_match():
        t = getattr(_torch.optim, name)([_torch.zeros(1, requires_grad=True)]).defaults
        e = getattr(_ember.optim, name)([_ember.zeros(1, requires_grad=True)]).defaults
        assert t == e
        flags = {k: True for k in ("capturable", "differentiable") if k in e}
        opt = getattr(_ember.optim, name)([_ember.zeros(1, requires_grad=True)], **flags)
        assert all(opt.param_groups[0][k] is True for k in flags)

    @_pytest.mark.parametrize("kwargs, msg", invalid)
    def test_invalid_arguments(kwargs, msg):
        for lib in (_torch, _ember):
            with _pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
                getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **kwargs)

    return {k: v for k, v in locals().items() if k.startswith("test_")}
