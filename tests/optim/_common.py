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
