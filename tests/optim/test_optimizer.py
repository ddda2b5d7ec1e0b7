"""Optimizer base class: construction errors, param groups, zero_grad, hooks, state_dict round trips."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch
from torch.optim.optimizer import required as torch_required

import ember
import ember.optim.optimizer

LIBS = [torch, ember]


def _msg(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception itself is what we compare
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("case", [
    lambda lib, p: lib.optim.SGD(p, lr=0.1),
    lambda lib, p: lib.optim.SGD([], lr=0.1),
    lambda lib, p: lib.optim.SGD([p, 1], lr=0.1),
    lambda lib, p: lib.optim.SGD([p * 2], lr=0.1),
    lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1),
    lambda lib, p: lib.optim.SGD([p], lr=0.1).add_param_group([p]),
    lambda lib, p: lib.optim.SGD([p], lr=0.1).add_param_group({"params": {p}}),
    lambda lib, p: lib.optim.SGD([("a", p)], lr=0.1).add_param_group({"params": [lib.zeros(1)]}),
    lambda lib, p: lib.optim.SGD([("a", p), lib.ones(1)], lr=0.1),
])
def test_construction_errors_match_torch(case):
    got = [_msg(lambda: case(lib, lib.zeros(2, requires_grad=True))) for lib in LIBS]
    assert got[0] is not None
    assert got[0] == got[1]


def test_required_hyperparameter():
    class Opt(ember.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=ember.optim.optimizer.required))
    with pytest.raises(ValueError, match="parameter group didn't specify a value of required "
                                         "optimization parameter lr"):
        Opt([ember.zeros(1, requires_grad=True)])
    assert repr(ember.optim.optimizer.required) == repr(torch_required)


def test_duplicate_parameters_warn_like_torch():
    msgs = []
    for lib in LIBS:
        p = lib.zeros(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.optim.SGD([p, p], lr=0.1)
        msgs.append([(x.category, str(x.message)) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1


def test_param_groups_defaults_and_names():
    for_lib = {}
    for lib in LIBS:
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
        opt = lib.optim.SGD([("a", a), ("b", b)], lr=0.1, momentum=0.5)
        opt.add_param_group({"params": [("c", lib.zeros(1, requires_grad=True))], "lr": 0.5})
        for_lib[lib.__name__] = opt.state_dict()["param_groups"]
    assert for_lib["torch"] == for_lib["ember"]


def test_repr_matches_torch():
    reps = [repr(lib.optim.Adam([lib.zeros(2, requires_grad=True)], lr=0.1)) for lib in LIBS]
    assert reps[0] == reps[1]


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    p = ember.ones(3, requires_grad=True)
    (p * 2).sum().backward()
    opt = ember.optim.SGD([p], lr=0.1)
    opt.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert p.grad is None
    else:
        assert p.grad is not None and p.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_step_skips_parameters_without_grad():
    a, b = ember.ones(2, requires_grad=True), ember.ones(2, requires_grad=True)
    opt = ember.optim.Adam([a, b], lr=0.1)
    a.grad = ember.ones(2)
    opt.step()
    assert b.tolist() == [1.0, 1.0] and a.tolist() != [1.0, 1.0]
    assert list(opt.state) == [a]


def test_step_runs_without_grad_mode():
    p = ember.ones(2, requires_grad=True)
    opt = ember.optim.SGD([p], lr=0.1)
    p.grad = ember.ones(2)
    seen = []
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(ember.is_grad_enabled()))
    orig = opt._update

    def spy(*args):
        seen.append(ember.is_grad_enabled())
        return orig(*args)
    opt._update = spy
    opt.step()
    assert seen == [True, False] and ember.is_grad_enabled()
    assert p.grad_fn is None and p.is_leaf


def test_step_hooks_order_and_removal():
    calls = []
    p = ember.ones(2, requires_grad=True)
    p.grad = ember.ones(2)
    opt = ember.optim.SGD([p], lr=0.1)
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt, a[1:], k)))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt)))
    g1 = ember.optim.optimizer.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("gpre"))
    g2 = ember.optim.optimizer.register_optimizer_step_post_hook(lambda o, a, k: calls.append("gpost"))
    try:
        opt.step()
    finally:
        g1.remove()
        g2.remove()
    assert calls == ["gpre", ("pre", True, (), {}), ("post", True), "gpost"]
    h1.remove()
    h2.remove()
    calls.clear()
    opt.step()
    assert calls == []


def test_pre_hook_can_replace_arguments():
    p = ember.ones(1, requires_grad=True)
    opt = ember.optim.SGD([p], lr=0.1)
    opt.register_step_pre_hook(lambda o, a, k: (a, {"closure": lambda: 7.0}))
    assert opt.step() == 7.0
    opt2 = ember.optim.SGD([p], lr=0.1)
    opt2.register_step_pre_hook(lambda o, a, k: 3)
    with pytest.raises(RuntimeError, match="must return None or a tuple of"):
        opt2.step()


def test_custom_subclass_step_gets_hooks():
    class Sign(ember.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, dict(lr=lr, differentiable=False))

        @ember.no_grad()
        def step(self, closure=None):
            for g in self.param_groups:
                for p in g["params"]:
                    if p.grad is not None:
                        p.add_(p.grad.sign(), alpha=-g["lr"])

    p = ember.tensor([1.0, -1.0], requires_grad=True)
    p.grad = ember.tensor([3.0, -0.5])
    opt = Sign([p])
    seen = []
    opt.register_step_post_hook(lambda o, a, k: seen.append(1))
    opt.step()
    assert seen == [1]
    np.testing.assert_allclose(p.detach().numpy(), [0.9, -0.9], rtol=1e-6)


def test_state_dict_hooks():
    p = ember.ones(2, requires_grad=True)
    opt = ember.optim.SGD([p], lr=0.1)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1
    loaded = []
    opt.register_load_state_dict_pre_hook(lambda o, sd: {k: v for k, v in sd.items() if k != "extra"})
    opt.register_load_state_dict_post_hook(lambda o: loaded.append(True))
    opt.load_state_dict(opt.state_dict())
    assert loaded == [True]


@pytest.mark.parametrize("other", [
    lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [lib.zeros(1, requires_grad=True)]}], lr=1),
    lambda lib, p: lib.optim.SGD([p, lib.zeros(1, requires_grad=True)], lr=1),
])
def test_load_state_dict_validation_matches_torch(other):
    got = []
    for lib in LIBS:
        p = lib.zeros(2, requires_grad=True)
        sd = lib.optim.SGD([p], lr=0.1).state_dict()
        got.append(_msg(lambda: other(lib, p).load_state_dict(sd)))
    assert got[0] is not None and got[0] == got[1]


def test_load_state_dict_does_not_alias_groups():
    p = ember.ones(2, requires_grad=True)
    opt = ember.optim.SGD([p], lr=0.1)
    sd = opt.state_dict()
    opt2 = ember.optim.SGD([ember.ones(2, requires_grad=True)], lr=0.5)
    opt2.load_state_dict(sd)
    opt2.param_groups[0]["lr"] = 0.7
    assert sd["param_groups"][0]["lr"] == 0.1 and opt.param_groups[0]["lr"] == 0.1


def test_state_dict_round_trip_through_torch_layout():
    """An ember Adam state_dict has torch's exact nesting, so torch can load its values (as numpy)."""
    rng = np.random.default_rng(0)
    g = rng.standard_normal(4)
    ep = ember.zeros(4, dtype=ember.float64, requires_grad=True)
    tp = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    eopt, topt = ember.optim.Adam([ep], lr=0.1), torch.optim.Adam([tp], lr=0.1)
    for lib, p, opt in ((ember, ep, eopt), (torch, tp, topt)):
        p.grad = lib.tensor(g)
        opt.step()
    esd = eopt.state_dict()
    as_torch = {"state": {k: {n: torch.tensor(v.numpy()) for n, v in st.items()}
                          for k, st in esd["state"].items()},
                "param_groups": copy.deepcopy(esd["param_groups"])}
    tp2 = tp.detach().clone().requires_grad_()
    topt2 = torch.optim.Adam([tp2])
    topt2.load_state_dict(as_torch)
    for lib_p, opt in ((tp, topt), (tp2, topt2)):
        lib_p.grad = torch.tensor(g)
        opt.step()
    np.testing.assert_allclose(tp2.detach().numpy(), tp.detach().numpy(), rtol=1e-12)


def test_pickle_round_trip():
    import pickle
    p = ember.ones(2, requires_grad=True)
    opt = ember.optim.Adam([p], lr=0.1)
    p.grad = ember.ones(2)
    opt.step()
    opt2 = pickle.loads(pickle.dumps(opt))
    assert opt2.param_groups[0]["lr"] == 0.1
    assert float(next(iter(opt2.state.values()))["step"]) == 1.0
    assert opt2._optimizer_step_pre_hooks == {}
