"""LBFGS against torch: float64, a closure over fresh data each step (a well-conditioned objective,
so rounding differences of the summation order are not amplified), 200 steps, parameters and the
whole optimizer state (directions, curvature pairs, step, counters) within 1e-10 every 10th step."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import ember
from tests.optim._common import config_id, pairwise, to_ember

OPTIONS = {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 4,
           "lr": np.array(0.5), "tolerance_change": 1e-5}


def _problem(seed=0, steps=200):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) * 0.5 for s in ((3, 4), (4,), (4,))]
    data = [(rng.standard_normal((8, 3)), rng.standard_normal((8, 4))) for _ in range(steps)]
    return init, data


def _make(lib, init, kwargs):
    ps = [lib.tensor(a, requires_grad=True) for a in init]
    kw = dict(kwargs)
    if isinstance(kw.get("lr"), np.ndarray):
        kw["lr"] = lib.tensor(kw["lr"])
    return ps, lib.optim.LBFGS(ps, **kw)


def _closure(lib, ps, opt, x, y):
    X, Y = lib.tensor(x), lib.tensor(y)

    def closure():
        opt.zero_grad()
        w, b, c = ps
        pred = X @ w + b
        # strongly convex (ridge) with a quartic term: well conditioned, yet not a quadratic
        loss = ((pred - Y) ** 2).mean() + ((c - pred.mean(0)) ** 2).sum() + 0.05 * (w ** 4).sum() \
            + 0.1 * ((w ** 2).sum() + (b ** 2).sum() + (c ** 2).sum())
        loss.backward()
        return loss
    return closure


def _close(a, b, tol=1e-10):
    if isinstance(a, torch.Tensor):
        assert isinstance(b, ember.Tensor)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            if x is None:
                assert y is None
            else:
                _close(x, y, tol)
    elif isinstance(a, float):
        assert float(b) == pytest.approx(a, rel=tol, abs=tol)
    else:
        assert a == b


def _compare(tp, topt, ep, eopt):
    for a, b in zip(tp, ep):
        _close(a, b)
    ts, es = topt.state_dict(), eopt.state_dict()
    assert list(ts["state"]) == list(es["state"])
    for k in ts["state"]:
        assert sorted(ts["state"][k]) == sorted(es["state"][k])
        for key, v in ts["state"][k].items():
            _close(v, es["state"][k][key])
    assert ts["param_groups"][0].keys() == es["param_groups"][0].keys()


@pytest.mark.parametrize("cfg", pairwise(OPTIONS), ids=config_id)
def test_lbfgs_matches_torch(cfg):
    init, data = _problem()
    tp, topt = _make(torch, init, cfg)
    ep, eopt = _make(ember, init, cfg)
    for t, (x, y) in enumerate(data, 1):
        lt = topt.step(_closure(torch, tp, topt, x, y))
        le = eopt.step(_closure(ember, ep, eopt, x, y))
        assert float(le) == pytest.approx(float(lt), rel=1e-10, abs=1e-12)
        if t % 10 == 0:
            _compare(tp, topt, ep, eopt)


def test_lbfgs_resume_from_torch_state_dict():
    cfg = dict(line_search_fn="strong_wolfe", history_size=5)
    init, data = _problem(seed=1, steps=40)
    tp, topt = _make(torch, init, cfg)
    for x, y in data[:20]:
        topt.step(_closure(torch, tp, topt, x, y))
    sd = copy.deepcopy(topt.state_dict())
    ep = [ember.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tp]
    eopt = ember.optim.LBFGS(ep, **cfg)
    eopt.load_state_dict(to_ember(sd))
    for x, y in data[20:]:
        topt.step(_closure(torch, tp, topt, x, y))
        eopt.step(_closure(ember, ep, eopt, x, y))
    _compare(tp, topt, ep, eopt)


def test_lbfgs_errors_match_torch():
    for lib in (torch, ember):
        p = lib.zeros(2, requires_grad=True)
        with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
            lib.optim.LBFGS([{"params": [p]}, {"params": [lib.zeros(1, requires_grad=True)]}])
        with pytest.raises(ValueError, match="Invalid learning rate: -1"):
            lib.optim.LBFGS([p], lr=-1)
        opt = lib.optim.LBFGS([p], line_search_fn="bogus")

        def closure():
            opt.zero_grad()
            loss = ((p - 1) ** 2).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)
    assert ember.optim.LBFGS([ember.zeros(1, requires_grad=True)]).defaults == \
        torch.optim.LBFGS([torch.zeros(1, requires_grad=True)]).defaults
