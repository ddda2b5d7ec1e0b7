"""LBFGS against torch: float64, a closure over a strongly convex objective, 200 steps, parameters and the
whole optimizer state (directions, curvature pairs, step, counters) within 1e-10 every 10th step."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import ember
from tests.optim._common import config_id, pairwise, to_ember

OPTIONS = {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 3,
           "lr": np.array(0.1), "tolerance_change": 1e-5}
BASE = {"max_iter": 1, "lr": 0.05}
RATIOS = ("ro", "H_diag", "al")


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) * 0.5 for s in ((3, 4), (4,), (2, 3, 2))]
    m = rng.standard_normal((28, 28))
    return init, m @ m.T / 28 + 0.5 * np.eye(28), rng.standard_normal(28)


def _make(lib, init, kwargs):
    ps = [lib.tensor(a, requires_grad=True) for a in init]
    kw = dict(kwargs)
    if isinstance(kw.get("lr"), np.ndarray):
        kw["lr"] = lib.tensor(kw["lr"])
    return ps, lib.optim.LBFGS(ps, **kw)


def _closure(lib, ps, opt, a, b):
    A, B = lib.tensor(a), lib.tensor(b)

    def closure():
        opt.zero_grad()
        x = lib.cat([p.reshape(-1) for p in ps])
        # strongly convex with a quartic term: L-BFGS contracts, so rounding is not amplified
        loss = 0.5 * (x @ (A @ x)) - B @ x + 0.05 * (x ** 4).sum()
        loss.backward()
        return loss
    return closure


def _close(a, b, tol=1e-10, rtol=None):
    if isinstance(a, torch.Tensor):
        assert isinstance(b, ember.Tensor)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=rtol or tol, atol=tol)
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            if x is None:
                assert y is None
            else:
                _close(x, y, tol, rtol)
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
            # 1/(y.s) and (y.s)/(y.y) come from differences of nearly equal gradients near the
            # optimum (cancellation): compare those ratios relatively, everything else to 1e-10
            _close(v, es["state"][k][key], rtol=1e-6 if key in RATIOS else None)
    assert ts["param_groups"][0].keys() == es["param_groups"][0].keys()


@pytest.mark.parametrize("cfg", pairwise(OPTIONS), ids=config_id)
def test_lbfgs_matches_torch(cfg):
    init, a, b = _problem()
    cfg = dict(BASE, **cfg)
    tp, topt = _make(torch, init, cfg)
    ep, eopt = _make(ember, init, cfg)
    tc, ec = _closure(torch, tp, topt, a, b), _closure(ember, ep, eopt, a, b)
    for t in range(1, 201):
        lt = topt.step(tc)
        le = eopt.step(ec)
        assert float(le) == pytest.approx(float(lt), rel=1e-10, abs=1e-12)
        if t % 10 == 0:
            _compare(tp, topt, ep, eopt)


def test_lbfgs_resume_from_torch_state_dict():
    cfg = dict(line_search_fn="strong_wolfe", history_size=5, max_iter=1)
    init, a, b = _problem(seed=1)
    tp, topt = _make(torch, init, cfg)
    for _ in range(20):
        topt.step(_closure(torch, tp, topt, a, b))
    sd = copy.deepcopy(topt.state_dict())
    ep = [ember.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tp]
    eopt = ember.optim.LBFGS(ep, **cfg)
    eopt.load_state_dict(to_ember(sd))
    for _ in range(20):
        topt.step(_closure(torch, tp, topt, a, b))
        eopt.step(_closure(ember, ep, eopt, a, b))
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
