"""``tensor[index]`` / ``tensor[index] = value`` beyond the op database: views vs copies, autograd
through writes into views, gradient accumulation for duplicate indices, meta behaviour, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember


def pair(a, requires_grad=False):
    return (ember.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def same(e, t):
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype) == str(t.dtype)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("index", [1, (slice(None), 2), (slice(1, None, 2),), (Ellipsis, None, 0), ()])
def test_basic_index_is_view(index):
    x = ember.arange(12.).view(3, 4)
    y = x[index]
    assert y._base is x._base
    assert np.shares_memory(y.numpy(), x.numpy())
    assert y is not x


@pytest.mark.parametrize("index", [[0, 2], (slice(None), [1, 1]), (ember.tensor([True, False, True]),)])
def test_advanced_index_copies(index):
    x = ember.arange(12.).view(3, 4)
    y = x[index]
    assert y._base is None
    assert not np.shares_memory(y.numpy(), x.numpy())


def test_duplicate_indices_accumulate_grad():
    (e, t) = pair(np.arange(4.), True)
    for lib, x in ((ember, e), (torch, t)):
        (x[[0, 0, 3, 0]] * lib.tensor([1., 2., 3., 4.], dtype=x.dtype)).sum().backward()
    same(e.grad, t.grad)


def test_mask_and_list_grad():
    a = np.random.default_rng(0).standard_normal((3, 4))
    e, t = pair(a, True)
    outs = [x[x > 0].sum() + x[:, [3, 0, 3]].pow(2).sum() + x[[0, 2], 1:].sum() for x in (e, t)]
    for o in outs:
        o.backward()
    same(e.grad, t.grad)


def test_setitem_on_view_rewrites_history():
    a = np.random.default_rng(1).standard_normal((3, 4))
    e, t = pair(a, True)
    res = []
    for lib, x in ((ember, e), (torch, t)):
        y = x * 2
        v = lib.tensor([1., 2., 3.], dtype=x.dtype, requires_grad=True)
        y[:, 1] = v * 3          # basic: copy_ into a view
        z = x * 1
        z[[0, 2], 2] = v[:2]     # advanced: index_put_ into a view (the int selects first)
        ((y * y).sum() + (z * z).sum()).backward()
        res.append((y, v))
    same(res[0][0], res[1][0])
    same(e.grad, t.grad)
    same(res[0][1].grad, res[1][1].grad)


def test_setitem_bumps_version_and_writes_base():
    x = ember.zeros(3, 4)
    base_view = x[1]
    v0 = x._version
    x[1, [0, 2]] = 5.
    assert x._version > v0
    assert base_view.tolist() == [5., 0., 5., 0.]
    x[..., -1] = ember.tensor([1., 2., 3.])
    assert x[:, 3].tolist() == [1., 2., 3.]


def test_setitem_leaf_errors():
    for lib in (ember, torch):
        x = lib.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="view of a leaf Variable"):
            x[0] = 1.
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x[[0]] = 1.


def test_index_double_backward():
    x = ember.tensor([1., 2., 3.], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda t: t[[0, 2, 0]] ** 2, (x,))
    assert ember.autograd.gradgradcheck(lambda t: t.gather(0, ember.tensor([2, 2])) ** 2, (x,))


@pytest.mark.parametrize("fn", [
    lambda lib, x, m: x.nonzero(),
    lambda lib, x, m: x[m],
    lambda lib, x, m: x.masked_select(m),
    lambda lib, x, m: lib.argwhere(x),
])
def test_data_dependent_ops_refuse_meta(fn):
    for lib in (ember, torch):
        x = lib.ones(3, 4, device="meta")
        m = lib.ones(3, 4, dtype=lib.bool, device="meta")
        with pytest.raises(NotImplementedError):
            fn(lib, x, m)


def test_meta_shapes_of_shape_dependent_indexing():
    x = ember.ones(3, 4, 5, device="meta")
    i = ember.zeros(2, 6, dtype=ember.long, device="meta")
    assert x[:, i].shape == (3, 2, 6, 5)
    assert x[i, :, i].shape == (2, 6, 4)
    assert x[1:, None, i].shape == (2, 1, 2, 6, 5)
    y = x.clone()
    y[:, i] = 1.
    assert y.shape == (3, 4, 5)


@pytest.mark.parametrize("index", [5, (0, 7), ([0, 7],), ([-5],), (0, 0, 0), (1.5,),
                                   (ember.tensor([1.]),), ([0, 1], [0, 1, 2])])
def test_index_errors_match_torch(index):
    def conv(lib, i):
        return tuple(lib.tensor(v.tolist()) if isinstance(v, ember.Tensor) else v for v in i) \
            if isinstance(i, tuple) else i
    with pytest.raises(Exception) as terr:
        torch.zeros(3, 4)[conv(torch, index)]
    with pytest.raises(terr.type) as eerr:
        ember.zeros(3, 4)[index]
    assert str(eerr.value) == str(terr.value)


def test_setitem_value_shape_error():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape"):
            lib.zeros(3, 4)[lib.tensor([0, 1])] = lib.ones(3)
        with pytest.raises(RuntimeError, match="The expanded size of the tensor"):
            lib.zeros(3, 4)[:] = lib.ones(2, 4)


def test_zero_dim_bool_and_int_tensor_indices():
    e, t = pair(np.arange(6.).reshape(2, 3))
    for idx in (True, False, (1, True), (Ellipsis, False)):
        same(e[idx], t[idx])
    same(e[ember.tensor(1)], t[torch.tensor(1)])
    same(e[ember.tensor(True)], t[torch.tensor(True)])
    assert e[ember.tensor(1)]._base is not None  # a 0-dim integer tensor selects (a view)


def test_setitem_with_mask_grad():
    a = np.random.default_rng(3).standard_normal((3, 4))
    e, t = pair(a, True)
    for x in (e, t):
        y = x * 2
        y[y.detach() > 1] = 0.
        (y * y).sum().backward()
    same(e.grad, t.grad)


def test_cat_promotion_and_skipped_empty():
    e = ember.cat([ember.zeros(0, dtype=ember.float64), ember.ones(2, 3, dtype=ember.int32)])
    t = torch.cat([torch.zeros(0, dtype=torch.float64), torch.ones(2, 3, dtype=torch.int32)])
    same(e, t)
    x = ember.ones(2, 3, requires_grad=True)
    ember.cat([ember.zeros(0), x, x], 1).sum().backward()
    assert x.grad.tolist() == [[2.] * 3] * 2


def test_flip_is_a_positive_stride_copy():
    x = ember.arange(6.).view(2, 3)
    y = x.flip(1)
    assert all(s > 0 for s in y.stride()) and y._base is None
    assert y.tolist() == [[2., 1., 0.], [5., 4., 3.]]


def test_inplace_variants_share_self():
    x = ember.zeros(3, 4)
    idx = ember.tensor([[0, 1, 2, 0]])
    for call in (lambda: x.scatter_(0, idx, 1.), lambda: x.scatter_add_(0, idx, ember.ones(1, 4)),
                 lambda: x.masked_fill_(x > 1, -1.), lambda: x.index_fill_(1, ember.tensor([0]), 3.),
                 lambda: x.index_add_(0, ember.tensor([1]), ember.ones(1, 4)),
                 lambda: x.tril_(), lambda: x.index_put_((ember.tensor([2]),), ember.tensor(9.))):
        v = x._version
        assert call() is x
        assert x._version > v
    t = torch.zeros(3, 4)
    ti = torch.tensor([[0, 1, 2, 0]])
    t.scatter_(0, ti, 1.).scatter_add_(0, ti, torch.ones(1, 4)).masked_fill_(t > 1, -1.)
    t.index_fill_(1, torch.tensor([0]), 3.).index_add_(0, torch.tensor([1]), torch.ones(1, 4)).tril_()
    t.index_put_((torch.tensor([2]),), torch.tensor(9.))
    same(x, t)


def test_masked_fill_tensor_value_grad():
    a = np.random.default_rng(2).standard_normal(4)
    e, t = pair(a, True)
    ve, vt = pair(np.array(2.0), True)
    for x, v in ((e, ve), (t, vt)):
        (x.masked_fill(x > 0, v) * 3).sum().backward()
    same(e.grad, t.grad)
    same(ve.grad, vt.grad)


# ---- the int / slice fast path of ``x[i]`` and ``x[a:b:c]`` against the general path and torch
_FAST_INDICES = [0, 2, -1, -4, slice(1, 3), slice(None, 2), slice(1, None), slice(-3, -1), slice(5, 1),
                 slice(-9, 9), slice(None, None, 2), slice(1, None, 3), slice(0, 4, 1), slice(3, 3),
                 (1, 0), (-1, 1, 0), (slice(None), 1), (2, slice(None, None, 2)), (slice(1, 3), -1, 1),
                 (0, slice(5, 1))]


@pytest.mark.parametrize("index", _FAST_INDICES, ids=str)
@pytest.mark.parametrize("base_view", [False, True], ids=["root", "view"])
def test_fast_index_equals_general_path_and_torch(index, base_view):
    from ember._indexing import _basic_view, _expand_ellipsis, _normalize
    a = np.arange(24.).reshape(4, 3, 2)
    e, t = ember.tensor(a), torch.tensor(a)
    if base_view:
        e, t = e[:, 1:], t[:, 1:]
    fast = e[index]
    slow, _ = _basic_view(e, _expand_ellipsis(_normalize(index, e), e.dim()))
    same(fast, t[index])
    assert fast.shape == slow.shape and fast.stride() == slow.stride()
    assert fast.storage_offset() == slow.storage_offset()
    if fast.numel():  # ember reports offset 0 for an empty view, torch the clamped start (both paths)
        assert fast.storage_offset() == t[index].storage_offset()
    root = e if e._base is None else e._base
    assert fast._base is root and fast._vc is e._vc
    v = e._version
    fast.add_(1)  # writes through to the tensor and bumps the shared counter
    assert e._version == fast._version == v + 1
    t[index].add_(1)
    same(e, t)


@pytest.mark.parametrize("index", [1, -2, slice(0, 2), slice(1, None, 2), (1, 2), (slice(None), 0)], ids=str)
def test_fast_index_records_autograd(index):
    a = np.random.default_rng(5).standard_normal((3, 4))
    e, t = pair(a, True)
    ye, yt = e[index], t[index]
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    (ye * ye).sum().backward()
    (yt * yt).sum().backward()
    same(e.grad, t.grad)
    with ember.no_grad():
        assert e[index].grad_fn is None and not e[index].requires_grad


def test_fast_index_errors_and_fallbacks():
    x, t = ember.zeros(3, 2), torch.zeros(3, 2)
    for lib_x in (x, t):
        with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
            lib_x[3]
        with pytest.raises(ValueError, match="step must be greater than zero"):
            lib_x[::-1]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        ember.tensor(1.)[0]
    same(x[True:2], t[True:2])  # bool slice bounds and np ints take the general path
    same(x[np.int64(1)], t[np.int64(1)])
    for idx in ((0, 2), (3, 0), (0, 0, 0)):
        with pytest.raises(IndexError) as ee:
            x[idx]
        with pytest.raises(IndexError) as te:
            t[idx]
        assert str(ee.value) == str(te.value)
    assert x[()]._base is x
    assert x[:]._base is x and x[0:]._base is x
    m = ember.zeros(3, 2, device="meta")
    assert m[1].shape == (2,) and m[1:].shape == (2, 2)


# ---- the fast path of ``x[idx]`` (int64 tensor) and ``x[mask]`` (bool tensor over leading dims)
_TENSOR_INDICES = [[3, 1, 2, 1], [-1, 0], [[0, 2], [1, 1]], [], [True, False, True, True],
                   [[True, False], [False, True], [True, True], [False, False]]]


@pytest.mark.parametrize("index", _TENSOR_INDICES, ids=str)
@pytest.mark.parametrize("base_view", [False, True], ids=["root", "view"])
def test_fast_tensor_index_equals_torch(index, base_view):
    a = np.arange(24.).reshape(4, 2, 3)
    e, t = ember.tensor(a), torch.tensor(a)
    if base_view:
        e, t = e[:, :, 1:], t[:, :, 1:]
    ie = ember.tensor(index, dtype=ember.int64) if not index or type(np.ravel(index)[0]) is not np.bool_ \
        else ember.tensor(index)
    it = torch.tensor(np.array(ie.numpy()))
    ye, yt = e[ie], t[it]
    same(ye, yt)
    assert ye._base is None and not np.shares_memory(ye.numpy(), e.numpy())
    ye.add_(1)  # a copy: the indexed tensor is unchanged
    same(e, t)


def test_fast_tensor_index_errors_grad_and_fallbacks():
    x, t = ember.zeros(3, 2), torch.zeros(3, 2)
    for xe, xt in ((x, t), (x[:, 0], t[:, 0])):
        for idx in ([3], [-4], [[0], [5]]):
            with pytest.raises(IndexError) as ee:
                xe[ember.tensor(idx)]
            with pytest.raises(IndexError) as te:
                xt[torch.tensor(idx)]
            assert str(ee.value) == str(te.value)
        with pytest.raises(IndexError) as ee:
            xe[ember.tensor([True, False])]
        with pytest.raises(IndexError) as te:
            xt[torch.tensor([True, False])]
        assert str(ee.value) == str(te.value)
    same(x[ember.tensor(1)], t[torch.tensor(1)])  # 0-d: a select (a view), general path
    assert x[ember.tensor(1)]._base is x
    same(x[ember.tensor([1, 0], dtype=ember.int32)], t[torch.tensor([1, 0], dtype=torch.int32)])
    e, g = pair(np.arange(6.).reshape(3, 2), True)
    ye, yg = e[ember.tensor([2, 2, 0])], g[torch.tensor([2, 2, 0])]
    assert type(ye.grad_fn).__name__ == type(yg.grad_fn).__name__
    ye.sum().backward()
    yg.sum().backward()
    same(e.grad, g.grad)
    m = ember.zeros(3, 2, device="meta")
    assert m[ember.tensor([0, 2], device="meta")].shape == (2, 2)


_SETITEM_CASES = [  # (dtype name, index, value): the number fast path and its neighbours
    ("float32", 0, 1.5), ("float32", -1, 2), ("float32", slice(1, 3), 0.25), ("float32", (1, 2), -7.0),
    ("float32", slice(None, None, 2), 3.0), ("float32", (slice(0, 2), 1), 9.0), ("int32", (0, 1), 2.7),
    ("int64", 1, -3), ("uint8", 0, -1), ("uint8", 1, 255), ("int8", 0, 127.9), ("bool", 1, 2),
    ("float16", 0, 70000.0), ("float64", 2, float("nan")), ("complex64", 0, 1.5), ("float32", 5, 1.0),
    ("uint8", 0, 300), ("int16", (0, 9), 1),
]


@pytest.mark.parametrize("dtype,index,value", _SETITEM_CASES)
def test_setitem_number_matches_torch(dtype, index, value):
    """``t[index] = number`` (the fast path where it applies): values, errors, and one version bump
    on the tensor and a view sharing its memory, against torch."""
    results = []
    for lib in (ember, torch):
        t = lib.arange(12).reshape(3, 4).to(getattr(lib, dtype))
        view = t[1:]
        v0, w0 = t._version, view._version
        try:
            view[index] = value
        except Exception as e:  # noqa: BLE001 (compared with torch's)
            results.append((type(e), str(e)))
            continue
        results.append((t.tolist(), t._version - v0, view._version - w0))
    e, t = results
    if isinstance(t[0], list):
        np.testing.assert_equal(np.array(e[0]), np.array(t[0]))
        assert e[1:] == t[1:]
    else:
        assert e[0] is t[0] and e[1] == t[1]


def test_setitem_number_in_modes_and_autograd():
    """The number fast path steps aside for autograd (CopySlices recorded) and dispatch modes."""
    from ember.utils._python_dispatch import TorchDispatchMode

    class Log(TorchDispatchMode):
        def __init__(self):
            self.log = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.log.append(func.name)
            return func(*args, **(kwargs or {}))

    x = ember.ones(3, requires_grad=True)
    y = x * 2
    y[0] = 5.0
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]
    t = ember.zeros(3)
    with Log() as mode:
        t[1] = 4.0
    assert mode.log and t.tolist() == [0.0, 4.0, 0.0]
