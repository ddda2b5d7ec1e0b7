"""``ember._foreach_*``: in-place variants against ``torch._foreach_*`` on lists of differently-shaped
tensors, version counters, memory identity, the no-grad optimizer path and errors (the out-of-place
forms are in the op database, tests/ops/opdb/foreach.py)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

SHAPES = [(3,), (2, 3), (), (4, 1, 2)]
RNG = np.random.default_rng(0)


def arrays(dtype="float32", low=-3.0, high=3.0, shapes=SHAPES):
    if dtype in ("int64", "int32"):
        return [RNG.integers(int(low), int(high) + 1, size=s).astype(dtype) for s in shapes]
    return [RNG.uniform(low, high, s).astype(dtype) for s in shapes]


def both(arrs, dtype=None):
    """The same values as an ember list and a torch list (fresh copies)."""
    e = [ember.tensor(a.copy()) for a in arrs]
    t = [torch.tensor(a.copy()) for a in arrs]
    if dtype is not None:
        e = [x.to(getattr(ember, dtype)) for x in e]
        t = [x.to(getattr(torch, dtype)) for x in t]
    return e, t


def assert_lists(e, t, atol=1e-6, rtol=1e-5):
    assert len(e) == len(t)
    for a, b in zip(e, t):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
        bn = b.float().numpy() if b.dtype == torch.bfloat16 else b.numpy()
        an = a.float().numpy() if a.dtype == ember.bfloat16 else a.numpy()
        np.testing.assert_allclose(an, bn, atol=atol, rtol=rtol)


def _other(kind, dtype="float32"):
    """Second operand of binary ops in both libraries."""
    if kind == "scalar":
        return 0.75, 0.75
    if kind == "scalars":
        return [0.5, 2.0, -1.0, 3.0], [0.5, 2.0, -1.0, 3.0]
    if kind == "tensor":
        a = np.array(1.25, dtype=dtype)
        return ember.tensor(a), torch.tensor(a)
    return both(arrays(dtype, 0.5, 3.0))


BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("kind", ["scalar", "scalars", "tensor", "tensors"])
def test_binary_inplace_matches_torch(name, kind):
    low = 0.5 if name == "pow" else -3.0
    es, ts = both(arrays(low=low))
    eo, to = _other(kind)
    ptrs = [t.data_ptr() for t in es]
    versions = [t._version for t in es]
    r_t = getattr(torch, f"_foreach_{name}_")(ts, to)
    r_e = getattr(ember, f"_foreach_{name}_")(es, eo)
    assert r_e is es and r_t is ts  # in-place foreach returns the list it was given
    assert_lists(es, ts)
    assert [t.data_ptr() for t in es] == ptrs  # written into each tensor's own memory
    assert all(t._version > v for t, v in zip(es, versions))


@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha(name):
    es, ts = both(arrays())
    eo, to = _other("tensors")
    getattr(torch, f"_foreach_{name}_")(ts, to, alpha=-0.1)
    getattr(ember, f"_foreach_{name}_")(es, eo, alpha=-0.1)
    assert_lists(es, ts)
    if name == "add":  # torch's sub has no (TensorList, Tensor, alpha) overload
        e0, t0 = _other("tensor")
        assert_lists(ember._foreach_add(es, e0, alpha=3), torch._foreach_add(ts, t0, alpha=3))
    else:
        with pytest.raises(TypeError):
            ember._foreach_sub(es, _other("tensor")[0], alpha=3)


@pytest.mark.parametrize("name", ["sqrt", "exp", "neg", "abs", "sign", "reciprocal"])
def test_unary_inplace_matches_torch(name):
    low = 0.5 if name in ("sqrt", "reciprocal") else -3.0
    es, ts = both(arrays(low=low))
    getattr(torch, f"_foreach_{name}_")(ts)
    r = getattr(ember, f"_foreach_{name}_")(es)
    assert r is es
    assert_lists(es, ts)
    out_e = getattr(ember, f"_foreach_{name}")(es)
    assert isinstance(out_e, tuple) and all(a is not b for a, b in zip(out_e, es))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", [1, 0.3, [0.5, 2.0, -1.0, 3.0], "tensor"])
def test_addc_inplace_matches_torch(name, value):
    es, ts = both(arrays())
    e1, t1 = both(arrays())
    e2, t2 = both(arrays(low=0.5))
    ev = tv = value
    if value == "tensor":
        ev, tv = ember.tensor([0.5, 2.0, -1.0, 3.0]), torch.tensor([0.5, 2.0, -1.0, 3.0])
    getattr(torch, f"_foreach_{name}_")(ts, t1, t2, tv)
    getattr(ember, f"_foreach_{name}_")(es, e1, e2, ev)
    assert_lists(es, ts)


@pytest.mark.parametrize("weight", [0.1, 0.9, [0.1, 0.9, 0.5, -0.2], "tensors"])
def test_lerp_inplace_matches_torch(weight):
    es, ts = both(arrays())
    ee, te = both(arrays())
    ew = tw = weight
    if weight == "tensors":
        ew, tw = both(arrays(low=0.0, high=1.0))
    torch._foreach_lerp_(ts, te, tw)
    ember._foreach_lerp_(es, ee, ew)
    assert_lists(es, ts)


def test_zero_copy_norm():
    es, ts = both(arrays())
    srcs_e, srcs_t = both(arrays())
    ember._foreach_copy_(es, srcs_e)
    torch._foreach_copy_(ts, srcs_t)
    assert_lists(es, ts)
    for ord_ in (2, 1, float("inf"), 3):
        assert_lists(ember._foreach_norm(es, ord_), torch._foreach_norm(ts, ord_))
    assert_lists(ember._foreach_norm(es, dtype=ember.float64), torch._foreach_norm(ts, dtype=torch.float64))
    v = es[0]._version
    assert ember._foreach_zero_(es) is es
    assert all(float(t.abs().sum()) == 0 for t in es) and es[0]._version > v


def test_copy_casts_and_broadcasts():
    es = [ember.zeros(2, 3), ember.zeros(3, dtype=ember.float64)]
    ts = [torch.zeros(2, 3), torch.zeros(3, dtype=torch.float64)]
    ember._foreach_copy_(es, [ember.arange(3), ember.ones(1)])
    torch._foreach_copy_(ts, [torch.arange(3), torch.ones(1)])
    assert_lists(es, ts)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision(dtype):
    es, ts = both(arrays(), dtype)
    e1, t1 = both(arrays(), dtype)
    e2, t2 = both(arrays(low=0.5), dtype)
    torch._foreach_addcdiv_(ts, t1, t2, 0.3)
    ember._foreach_addcdiv_(es, e1, e2, 0.3)
    torch._foreach_mul_(ts, 0.9)
    ember._foreach_mul_(es, 0.9)
    assert_lists(es, ts, atol=2e-2, rtol=2e-2)
    assert_lists(ember._foreach_sqrt(e2), torch._foreach_sqrt(t2), atol=2e-2, rtol=2e-2)


def test_integer_promotion():
    es, ts = both(arrays("int64"))
    assert_lists(ember._foreach_add(es, 1.5), torch._foreach_add(ts, 1.5))
    assert_lists(ember._foreach_div(es, 2), torch._foreach_div(ts, 2))
    pos_e, pos_t = both(arrays("int64", 0, 5))
    assert_lists(ember._foreach_sqrt(pos_e), torch._foreach_sqrt(pos_t))
    ember._foreach_mul_(es, 3)
    torch._foreach_mul_(ts, 3)
    assert_lists(es, ts)


def test_mixed_dtypes_in_list():
    es = [ember.ones(2), ember.ones(3, dtype=ember.float64)]
    ts = [torch.ones(2), torch.ones(3, dtype=torch.float64)]
    eo = [ember.ones(2, dtype=ember.float64), ember.ones(3)]
    to = [torch.ones(2, dtype=torch.float64), torch.ones(3)]
    assert_lists(ember._foreach_add(es, eo), torch._foreach_add(ts, to))
    ember._foreach_add_(es, eo)
    torch._foreach_add_(ts, to)
    assert_lists(es, ts)


def test_pow_scalar_base():
    es, ts = both(arrays())
    assert_lists(ember._foreach_pow(2.0, es), torch._foreach_pow(2.0, ts))


def test_optimizer_path_no_grad_on_leaves():
    """The SGD step: params are leaves requiring grad, updated under no_grad."""
    ps = [ember.ones(3, requires_grad=True), ember.ones(2, 2, requires_grad=True)]
    (ps[0].sum() * 2 + (ps[1] * 3).sum()).backward()
    with ember.no_grad():
        ember._foreach_add_(ps, [p.grad for p in ps], alpha=-0.1)
    np.testing.assert_allclose(ps[0].detach().numpy(), 0.8, rtol=1e-6)
    np.testing.assert_allclose(ps[1].detach().numpy(), 0.7, rtol=1e-6)
    assert ps[0].requires_grad and ps[0].grad_fn is None


def test_leaf_requiring_grad_with_grad_mode_raises():
    ts = [torch.ones(2, requires_grad=True)]
    es = [ember.ones(2, requires_grad=True)]
    with pytest.raises(RuntimeError) as terr:
        torch._foreach_add_(ts, 1)
    with pytest.raises(RuntimeError) as eerr:
        ember._foreach_add_(es, 1)
    assert str(eerr.value) == str(terr.value)


def test_autograd_through_out_of_place_and_non_leaf():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    ember._foreach_mul_([y], 3.0)  # a non-leaf: recorded like y.mul_(3)
    (r,) = ember._foreach_add([y], [x], alpha=2)
    r.sum().backward()
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    ty = tx * 1
    torch._foreach_mul_([ty], 3.0)
    (tr,) = torch._foreach_add([ty], [tx], alpha=2)
    tr.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_meta_tensors():
    ms = [ember.empty(3, device="meta"), ember.empty(2, 3, device="meta")]
    out = ember._foreach_add(ms, 1.0)
    assert [tuple(o.shape) for o in out] == [(3,), (2, 3)] and all(o.is_meta for o in out)
    assert ember._foreach_mul_(ms, 2.0) is ms
    norms = ember._foreach_norm(ms)
    assert all(tuple(n.shape) == () for n in norms)


ERRORS = [
    ("int add float in place", lambda lib: lib._foreach_add_([lib.ones(2, dtype=lib.int64)], 1.5)),
    ("complex into float", lambda lib: lib._foreach_add_([lib.ones(2)], 1.5j)),
    ("broadcast in place", lambda lib: lib._foreach_add_([lib.ones(2)], [lib.ones(3, 2)])),
    ("shape mismatch", lambda lib: lib._foreach_mul([lib.ones(2)], [lib.ones(3)])),
    ("list lengths", lambda lib: lib._foreach_add([lib.ones(2), lib.ones(3)], [lib.ones(2)])),
    ("scalar list length", lambda lib: lib._foreach_add([lib.ones(2), lib.ones(3)], [1.0])),
    ("empty", lambda lib: lib._foreach_add([], 1.0)),
    ("1-d other", lambda lib: lib._foreach_add([lib.ones(2)], lib.ones(2))),
    ("bool sub", lambda lib: lib._foreach_sub([lib.ones(2, dtype=lib.bool)], True)),
    ("bool neg", lambda lib: lib._foreach_neg([lib.ones(2, dtype=lib.bool)])),
    ("int negative pow", lambda lib: lib._foreach_pow([lib.ones(2, dtype=lib.int64)], -1)),
    ("int norm", lambda lib: lib._foreach_norm([lib.ones(2, dtype=lib.int64)])),
    ("int sqrt in place", lambda lib: lib._foreach_sqrt_([lib.ones(2, dtype=lib.int64)])),
    ("int addcdiv", lambda lib: lib._foreach_addcdiv([lib.ones(2, dtype=lib.int64)],
                                                     [lib.ones(2, dtype=lib.int64)],
                                                     [lib.ones(2, dtype=lib.int64)])),
    ("packed scalars 0-d", lambda lib: lib._foreach_addcmul([lib.ones(2)], [lib.ones(2)], [lib.ones(2)],
                                                            lib.tensor(0.3))),
    ("int lerp", lambda lib: lib._foreach_lerp([lib.ones(2, dtype=lib.int64)],
                                               [lib.ones(2, dtype=lib.int64)], 0.5)),
    ("copy shapes", lambda lib: lib._foreach_copy_([lib.ones(2)], [lib.ones(3, 2)])),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn):
    with pytest.raises(Exception) as terr:
        fn(torch)
    with pytest.raises(terr.type) as eerr:
        fn(ember)
    assert str(eerr.value) == str(terr.value)


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError):
        ember._foreach_add(ember.ones(2), 1)
    with pytest.raises(TypeError):
        ember._foreach_add([ember.ones(2)], "a")
    with pytest.raises(TypeError):
        ember._foreach_mul([ember.ones(2)], [ember.ones(2)], alpha=2)
