"""Reductions beyond the op database's generic checks: second derivatives, NaN and tie rules,
named-tuple results, argument forms, warnings and errors, all compared with torch."""
import math
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(7)


def _pair(a, requires_grad=False):
    a = np.asarray(a, dtype=np.float64)
    return (ember.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def _same(e, t, atol=1e-6):
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), atol=atol, rtol=1e-5,
                               equal_nan=True)


# ----------------------------------------------------------------------------- double backward
GRADGRAD = [
    ("sum", lambda x: x.sum(1) ** 2),
    ("mean", lambda x: x.mean((0, 1)) ** 2),
    ("prod", lambda x: x.prod(1)),
    ("prod zeros", lambda x: (x * (x.abs() > 0.5)).prod(1)),
    ("prod all", lambda x: x.prod()),
    ("amax", lambda x: x.amax(0) ** 2),
    ("max dim", lambda x: x.max(1).values ** 2),
    ("max all", lambda x: x.max() ** 2),
    ("median dim", lambda x: x.median(0).values ** 2),
    ("var", lambda x: x.var(1)),
    ("var all", lambda x: x.var(correction=0)),
    ("std", lambda x: x.std(0)),
    ("cumsum", lambda x: x.cumsum(1) ** 2),
    ("cumprod", lambda x: x.cumprod(1)),
    ("logsumexp", lambda x: x.logsumexp(1)),
    ("norm", lambda x: x.norm()),
    ("norm 3", lambda x: x.norm(p=3, dim=1)),
]


@pytest.mark.parametrize("name,fn", GRADGRAD, ids=[g[0] for g in GRADGRAD])
def test_double_backward_matches_torch(name, fn):
    a = RNG.uniform(-2, 2, (3, 4))
    if "cumprod" in name:
        a[1, 1] = 0.0
        a[2, 0] = a[2, 3] = 0.0
    (e, t) = _pair(a, True)
    results = []
    for lib, x in ((ember, e), (torch, t)):
        y = fn(x)
        cot = lib.tensor(np.linspace(0.5, 1.5, max(y.numel(), 1)).reshape(tuple(y.shape)),
                         dtype=lib.float64)
        (g,) = lib.autograd.grad(y, x, cot, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g, gg))
    _same(results[0][0], results[1][0])
    _same(results[0][1], results[1][1], atol=1e-5)


def test_grad_fn_names():
    x = ember.ones(2, 3, requires_grad=True)
    names = {"sum": x.sum(), "mean": x.mean(), "prod": x.prod(), "amax": x.amax(1),
             "max": x.max(), "maxdim": x.max(1).values, "var": x.var(), "std": x.std(0),
             "cumsum": x.cumsum(0), "cumprod": x.cumprod(1), "lse": x.logsumexp(0), "norm": x.norm()}
    got = {k: type(v.grad_fn).__name__ for k, v in names.items()}
    assert got == {"sum": "SumBackward0", "mean": "MeanBackward0", "prod": "ProdBackward0",
                   "amax": "AmaxBackward0", "max": "MaxBackward1", "maxdim": "MaxBackward0",
                   "var": "VarBackward0", "std": "StdBackward0", "cumsum": "CumsumBackward0",
                   "cumprod": "CumprodBackward0", "lse": "LogsumexpBackward0",
                   "norm": "LinalgVectorNormBackward0"}
    assert x.max(1).indices.grad_fn is None and not x.max(1).indices.requires_grad


# ----------------------------------------------------------------------------- NaN, ties, inf
@pytest.mark.parametrize("call", ["max()", "min()", "amax(0)", "median()", "max(0)", "min(0)",
                                  "argmax()", "argmin()", "median(0)", "logsumexp(0)"])
def test_nan_forward_and_backward(call):
    a = [1.0, math.nan, 3.0, math.nan, 2.0]
    e, t = _pair(a, True)
    re, rt = eval(f"e.{call}"), eval(f"t.{call}")
    if isinstance(rt, tuple):
        _same(re.values, rt.values)
        _same(re.indices, rt.indices)
        re, rt = re.values, rt.values
    else:
        _same(re, rt)
    if rt.requires_grad:
        re.sum().backward()
        rt.sum().backward()
        _same(e.grad, t.grad)


def test_ties_share_gradient_like_torch():
    a = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]
    for call in ("amax(1)", "amin(1)", "max()", "min()", "max(1).values", "norm(p=math.inf, dim=1)"):
        e, t = _pair(a, True)
        re, rt = eval(f"e.{call}"), eval(f"t.{call}")
        re.sum().backward()
        rt.sum().backward()
        _same(e.grad, t.grad)


def test_var_grad_when_degrees_of_freedom_run_out():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a, kw in (([2.0], {}), ([[1.0, 2.0, 3.0]], {"dim": 0}), ([1.0, 1.0], {"correction": 2}),
                      ([1.0, 2.0], {"correction": 3})):
            e, t = _pair(a, True)
            re, rt = e.var(**kw), t.var(**kw)
            _same(re, rt)
            re.sum().backward()
            rt.sum().backward()
            _same(e.grad, t.grad)


def test_var_warns_like_torch():
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        ember.tensor([1.0]).var()
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        ember.tensor([1.0, 2.0]).std(correction=2)


def test_std_zero_gets_zero_grad():
    e, t = _pair([[1.0, 1.0], [2.0, 3.0]], True)
    e.std(1).sum().backward()
    t.std(1).sum().backward()
    _same(e.grad, t.grad)


def test_logsumexp_infinities():
    for a in ([-math.inf, -math.inf], [math.inf, 1.0], [math.inf, math.inf], [-math.inf, 0.0]):
        e, t = _pair(a, True)
        _same(e.logsumexp(0), t.logsumexp(0))


# ----------------------------------------------------------------------------- named tuples
def test_return_types():
    x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
    r = x.max(1)
    values, indices = r
    assert r.values is values and r[1] is indices and len(r) == 2 and isinstance(r, tuple)
    assert type(r)((values, indices)).values is values
    tr = torch.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1)
    assert repr(r) == repr(tr)
    assert repr(x.aminmax()) == repr(torch.tensor([[1.0, 5.0], [3.0, 2.0]]).aminmax())
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and back.indices.tolist() == [1, 0]
    assert type(ember.min(x, 0)).__name__ == "min" and ember.return_types.median is type(x.median(0))


def test_max_forms():
    e, t = _pair([[1.0, 5.0], [3.0, 2.0]])
    e2, t2 = _pair([[0.0, 9.0], [4.0, 1.0]])
    _same(ember.max(e, e2), torch.max(t, t2))
    _same(e.min(e2), t.min(t2))
    _same(ember.max(e, other=e2), torch.max(t, other=t2))
    _same(ember.max(e, 1, True).values, torch.max(t, 1, True).values)
    _same(e.max(dim=-1, keepdim=True).indices, t.max(dim=-1, keepdim=True).indices)
    with pytest.raises(TypeError):
        e.max(1.5)
    vals, idx = ember.empty(0), ember.empty(0, dtype=ember.int64)
    r = ember.max(e, 0, out=(vals, idx))
    assert r.values is vals and vals.tolist() == [3.0, 5.0] and idx.tolist() == [1, 0]


# ----------------------------------------------------------------------------- argument forms
def test_dims_and_keepdim_forms():
    a = RNG.uniform(-1, 1, (2, 3, 4))
    e, t = _pair(a)
    for kw in ({"dim": [2, 0]}, {"dim": (-1,)}, {"dim": -2, "keepdim": True}, {"dim": []}):
        _same(e.sum(**kw), t.sum(**kw))
        _same(e.amax(**kw), t.amax(**kw))
        _same(e.any(**kw), t.any(**kw))
    _same(e.var(1, True, True), t.var(1, True, True))
    _same(e.var(False), t.var(False))
    _same(e.std(dim=(0, 2), correction=0.5), t.std(dim=(0, 2), correction=0.5))
    for bad in ({"dim": 3}, {"dim": (0, 0)}, {"dim": 1.0}):
        for call in ("sum", "mean", "amax"):
            with pytest.raises(Exception) as te:
                getattr(t, call)(**bad)
            with pytest.raises(te.type):
                getattr(e, call)(**bad)
    _same(e.sum(None, True), t.sum(None, True))
    _same(e.mean(dim=None, keepdim=True), t.mean(dim=None, keepdim=True))
    with pytest.raises(TypeError):
        e.var(0, unbiased=False, correction=1)
    with pytest.raises(TypeError):
        e.cumsum((0,))
    with pytest.raises(TypeError):
        e.argmax(dim=(0, 1))


def test_zero_dim_inputs():
    e, t = _pair(3.0)
    for call in ("sum(0)", "sum(-1)", "mean(0, keepdim=True)", "amax(0)", "argmax(0, keepdim=True)",
                 "cumsum(0)", "cumprod(-1)", "prod(0)", "logsumexp(0)", "any(0)", "norm(dim=0)",
                 "max(0).values", "max(0).indices", "median(0).indices", "var(0, correction=0)"):
        _same(eval(f"e.{call}"), eval(f"t.{call}"))
    with pytest.raises(IndexError):
        e.sum(1)


def test_empty_reductions():
    e, t = _pair(np.zeros((0, 3)))
    for call in ("sum()", "sum(0)", "mean()", "mean(0)", "prod(0)", "amax(1)", "logsumexp(0)",
                 "all()", "any(1)", "cumsum(0)", "norm(dim=1)", "max(1).values", "argmax(1)"):
        _same(eval(f"e.{call}"), eval(f"t.{call}"))
    for call in ("amax()", "max()", "min()", "amin(0)", "argmax()", "max(0)", "argmin(0)"):
        with pytest.raises(Exception) as te:
            eval(f"t.{call}")
        with pytest.raises(te.type) as ee:
            eval(f"e.{call}")
        assert str(ee.value) == str(te.value)


def test_dtype_results():
    for dt in ("bool", "uint8", "int8", "int32", "int64"):
        a = np.array([[1, 0, 1], [1, 1, 0]], dtype=dt)
        e, t = ember.tensor(a), torch.tensor(a)
        for call in ("sum()", "sum(0)", "prod(1)", "cumsum(1)", "any()", "all(0)", "count_nonzero()",
                     "amax(1)", "nansum()", "sum(dtype=LIB.float64)", "mean(dtype=LIB.float32)"):
            re = eval(f"e.{call}".replace("LIB", "ember"))
            rt = eval(f"t.{call}".replace("LIB", "torch"))
            _same(re, rt)
    e, t = ember.tensor([1, 2]), torch.tensor([1, 2])
    for call in ("mean()", "mean(dtype=LIB.int32)", "var()", "std(0)", "nanmean()", "norm()"):
        with pytest.raises(Exception) as te:
            eval(f"t.{call}".replace("LIB", "torch"))
        with pytest.raises(te.type) as ee:
            eval(f"e.{call}".replace("LIB", "ember"))
        assert str(ee.value) == str(te.value)
    _same(ember.logsumexp(e, 0), torch.logsumexp(t, 0))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_low_precision_computes_in_float32(dt):
    a = RNG.uniform(0, 1, (64, 33)).astype(np.float32)
    e, t = ember.tensor(a).to(getattr(ember, dt)), torch.tensor(a).to(getattr(torch, dt))
    for call in ("sum()", "mean(1)", "var(0)", "std()", "amax(0)", "cumsum(1)", "logsumexp(1)",
                 "norm()", "prod(0)", "max(1).values"):
        re, rt = eval(f"e.{call}"), eval(f"t.{call}")
        assert str(re.dtype) == str(rt.dtype), call
        np.testing.assert_allclose(re.float().numpy(), rt.float().numpy(), rtol=2e-2, atol=1e-2,
                                   err_msg=call)
    _same(e.sum(dtype=ember.float32), t.sum(dtype=torch.float32), atol=1e-3)


def test_norm_forms():
    e, t = _pair(RNG.uniform(-1, 1, (3, 4)))
    for call in ("norm()", "norm(1)", "norm(2, 1, True)", "norm('fro', (0, 1))", "norm(p=math.inf)",
                 "norm(p=0.5, dim=0)"):
        _same(eval(f"e.{call}".replace("LIB", "ember")), eval(f"t.{call}".replace("LIB", "torch")))
    _same(ember.norm(e, p=3), torch.norm(t, p=3))
    e32, t32 = e.float(), t.float()
    _same(e32.norm(dtype=ember.float64), t32.norm(dtype=torch.float64))
    with pytest.raises(RuntimeError, match="without narrowing"):
        e.norm(dtype=ember.float32)
    _same(e.norm("nuc"), t.norm("nuc"))  # the sum of singular values (issue 22)


def test_var_mean_std_mean_and_nan_ops():
    a = RNG.uniform(-1, 1, (3, 4))
    a[0, 1] = a[2, 2] = math.nan
    e, t = _pair(a)
    for fn in ("var_mean", "std_mean"):
        for kw in ({}, {"dim": 1}, {"dim": 0, "unbiased": False, "keepdim": True}):
            for x, y in zip(getattr(ember, fn)(e, **kw), getattr(torch, fn)(t, **kw)):
                _same(x, y)
    _same(e.nansum(1), t.nansum(1))
    _same(ember.nanmean(e, 0, keepdim=True), torch.nanmean(t, 0, keepdim=True))


def test_out_and_inplace():
    e, t = _pair(RNG.uniform(-1, 1, (3, 4)))
    eo, to = ember.empty(0, dtype=ember.float64), torch.empty(0, dtype=torch.float64)
    assert ember.sum(e, 1, out=eo) is eo
    torch.sum(t, 1, out=to)
    _same(eo, to)
    e2, t2 = e.clone(), t.clone()
    e2.cumsum_(1)
    t2.cumsum_(1)
    _same(e2, t2)


def test_meta_device():
    m = ember.empty(2, 3, 4, device="meta")
    assert m.sum((0, 2)).shape == (3,) and m.sum().device.type == "meta"
    v, i = m.max(1, keepdim=True)
    assert v.shape == (2, 1, 4) and i.dtype == ember.int64
    assert m.var(1).shape == (2, 4) and m.cumsum(2).shape == (2, 3, 4)
    assert m.argmax().shape == () and m.any(0).dtype == ember.bool
    with pytest.raises(RuntimeError, match="mean"):
        ember.empty(2, dtype=ember.int64, device="meta").mean()


def test_sum_to_size():
    x = ember.ones(2, 3, 4)
    assert x.sum_to_size(3, 1).tolist() == [[8.0]] * 3
    assert x.sum_to_size((1, 3, 4)).shape == (1, 3, 4)
    assert x.sum_to_size(2, 3, 4) is x
    with pytest.raises(RuntimeError):
        x.sum_to_size(5)


def test_torch_function_routing():
    class Sub(ember.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    s = ember.ones(2, 3).as_subclass(Sub)
    s.sum(), ember.max(s, 1), s.var(0), ember.logsumexp(s, 1)
    assert Sub.calls[:4] == ["sum", "max", "var", "logsumexp"]
