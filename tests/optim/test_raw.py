"""The default CPU path of Adam/AdamW/SGD/RMSprop (``optim/_raw.py``): the update runs on the arrays with
the primitives' own kernels, bit for bit what the Tensor path computes, and equal to torch; it falls back
to the Tensor path wherever arrays cannot stand in for the Tensors."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import ember
from ember.optim import _raw
from tests.optim._common import assert_params_close, assert_state_close, run_both

SHAPES = ((3, 4), (5,), (2, 3, 2))

# every option the shared update touches, alone and in the combinations the algorithm branches on
CONFIGS = {
    "Adam": [{}, dict(weight_decay=0.1), dict(amsgrad=True), dict(maximize=True),
             dict(weight_decay=0.1, amsgrad=True, maximize=True), dict(betas=(0.5, 0.9), eps=1e-3),
             dict(weight_decay=0.1, decoupled_weight_decay=True, amsgrad=True)],
    "AdamW": [{}, dict(amsgrad=True, maximize=True), dict(weight_decay=0.3, amsgrad=True)],
    "SGD": [{}, dict(weight_decay=0.1), dict(maximize=True), dict(momentum=0.9),
            dict(momentum=0.9, dampening=0.3), dict(momentum=0.9, nesterov=True),
            dict(momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)],
    "RMSprop": [{}, dict(centered=True), dict(momentum=0.9), dict(weight_decay=0.1, maximize=True),
                dict(centered=True, momentum=0.5, weight_decay=0.1, maximize=True), dict(alpha=0.5, eps=1e-3)],
}
CASES = [(name, cfg) for name, cfgs in CONFIGS.items() for cfg in cfgs]


def _id(case):
    name, cfg = case
    return name + "-" + (",".join(f"{k}={v}" for k, v in cfg.items()) or "default")


def _run(name, cfg, dtype, steps=30, seed=0):
    rng = np.random.default_rng(seed)
    params = [ember.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    opt = getattr(ember.optim, name)(params, lr=0.01, **cfg)
    for t in range(steps):
        for i, p in enumerate(params):  # parameter 1 misses every 4th gradient
            p.grad = None if (i == 1 and t % 4 == 0) else ember.tensor(rng.standard_normal(p.shape).astype(dtype))
        opt.step()
    return params, opt


def _snapshot(params, opt):
    out = [p.detach().numpy().copy() for p in params]
    for p in params:
        for k, v in sorted(opt.state[p].items()):
            out.append(v.numpy().copy())
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_array_path_is_the_tensor_path_bit_for_bit(case, dtype, monkeypatch):
    name, cfg = case
    calls = []
    real = _raw._arrays
    monkeypatch.setattr(_raw, "_arrays", lambda *a: calls.append(1) or real(*a))
    fast = _snapshot(*_run(name, cfg, dtype))
    assert calls, "the default path did not try the arrays"
    monkeypatch.setattr(_raw, "_arrays", lambda *a: None)  # force every update onto Tensors
    slow = _snapshot(*_run(name, cfg, dtype))
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_array_path_matches_torch(case):
    name, cfg = case
    (tp, topt), (ep, eopt) = run_both(name, dict(cfg, lr=0.01), steps=60, none_every=5)
    assert_params_close(tp, ep)
    assert_state_close(topt, eopt)


def test_array_path_taken_for_plain_float_params():
    p = ember.zeros(3, requires_grad=True)
    p.grad = ember.ones(3)
    opt = ember.optim.Adam([p])
    opt.step()
    st = opt.state[p]
    assert _raw._arrays(p, p.grad, st, opt.param_groups[0]) is not None


@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop"])
def test_params_stay_leaves_and_versions_bump(name):
    p = ember.randn(4, 3, requires_grad=True)
    opt = getattr(ember.optim, name)([p], lr=0.1, momentum=0.9) if name != "Adam" else \
        ember.optim.Adam([p], lr=0.1)
    seen = []
    for _ in range(3):
        p.grad = ember.randn(4, 3)
        v = p._version
        opt.step()
        assert p._version > v
        seen.append({k: t._version for k, t in opt.state[p].items()})
    assert p._base is None and p.is_leaf and p.grad_fn is None and p.requires_grad
    for k in seen[-1]:  # every state tensor is written each step
        assert seen[-1][k] > seen[-2][k]
    y = p * p  # a graph saved before a step sees the write, as torch (``p * 2`` saves no p in torch)
    p.grad = ember.ones(4, 3)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_grad_viewing_a_shared_bucket_is_read_in_place():
    """DDP-style gradients: views into one flat buffer, read where they are and never written."""
    rng = np.random.default_rng(1)
    shapes = [(3, 4), (5,)]
    init = [rng.standard_normal(s) for s in shapes]
    flat = rng.standard_normal(17)
    ep = [ember.tensor(a, requires_grad=True) for a in init]
    tp = [torch.tensor(a, requires_grad=True) for a in init]
    bucket, tbucket = ember.tensor(flat), torch.tensor(flat)
    eopt, topt = ember.optim.Adam(ep, lr=0.1, weight_decay=0.1), torch.optim.Adam(tp, lr=0.1, weight_decay=0.1)
    for ps, b in ((ep, bucket), (tp, tbucket)):
        ps[0].grad, ps[1].grad = b[:12].view(3, 4), b[12:]
    assert ep[0].grad._base is bucket
    for _ in range(3):
        eopt.step()
        topt.step()
    np.testing.assert_array_equal(bucket.numpy(), flat)
    assert_params_close(tp, ep)
    assert_state_close(topt, eopt)


@pytest.mark.parametrize("make", [
    lambda: ember.randn(3, dtype=ember.complex64, requires_grad=True),
    lambda: ember.randn(3, dtype=ember.float16, requires_grad=True),
    lambda: ember.tensor(1.5, requires_grad=True),  # 0-d
], ids=["complex", "float16", "0-d"])
def test_other_params_take_the_tensor_path(make):
    p = make()
    opt = ember.optim.Adam([p], lr=0.1)
    p.grad = ember.ones_like(p)
    opt.step()
    assert _raw._arrays(p, p.grad, opt.state[p], opt.param_groups[0]) is None


@pytest.mark.parametrize("foreach", [False, True], ids=["single", "foreach"])
@pytest.mark.parametrize("name, cfg", [("Adam", dict(amsgrad=True, weight_decay=0.1)), ("AdamW", {}),
                                       ("SGD", dict(momentum=0.9)), ("RMSprop", dict(centered=True, momentum=0.5)),
                                       ("Adagrad", {}), ("ASGD", {}), ("Adamax", {}), ("NAdam", {}),
                                       ("RAdam", {}), ("Adadelta", {})])
def test_complex_params_match_torch(name, cfg, foreach):
    """Complex parameters take the Tensor path, stepping their (real, imag) pairs as torch does."""
    cfg = dict(cfg, foreach=foreach)
    rng = np.random.default_rng(2)
    init = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    grads = [rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2)) for _ in range(10)]
    out = []
    for lib in (torch, ember):
        p = lib.tensor(init, requires_grad=True)
        opt = getattr(lib.optim, name)([p], lr=0.01, **cfg)
        for g in grads:
            p.grad = lib.tensor(g)
            opt.step()
        out.append(p.detach().numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-12, atol=1e-12)


def test_tensor_lr_mode_and_read_only_state_take_the_tensor_path():
    p = ember.ones(3, requires_grad=True)
    p.grad = ember.ones(3)
    opt = ember.optim.Adam([p], lr=ember.tensor(0.1))
    opt.step()
    group, st = opt.param_groups[0], opt.state[p]
    assert _raw._arrays(p, p.grad, st, group) is None
    opt2 = ember.optim.Adam([p], lr=0.1)
    opt2.step()
    group, st = opt2.param_groups[0], opt2.state[p]
    assert _raw._arrays(p, p.grad, st, group) is not None
    st["exp_avg"]._data.flags.writeable = False
    assert _raw._arrays(p, p.grad, st, group) is None
    st["exp_avg"]._data.flags.writeable = True

    seen = []

    class Log(ember._dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    with Log():
        assert _raw._arrays(p, p.grad, st, group) is None
        opt2.step()
    assert seen  # the mode saw the update's ops


def test_both_namespaces_offer_the_same_ops():
    names = [n for n in vars(_raw.TensorOps) if not n.startswith("_")]
    assert names == [n for n in vars(_raw.ArrayOps) if not n.startswith("_")]


def test_combinations_cover_every_branch():
    flags = {"amsgrad", "maximize", "weight_decay", "momentum", "nesterov", "centered", "dampening"}
    seen = set(itertools.chain.from_iterable(cfg for _, cfg in CASES))
    assert flags <= seen
