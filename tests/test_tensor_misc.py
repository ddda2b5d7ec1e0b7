"""ember/_tensor_methods/misc.py against torch: result_type, predicates, trace/inner, in-place views,
resize_/set_."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("make", [
    lambda lib: (lib.tensor([1, 2]), 1.5),
    lambda lib: (2, 3.0),
    lambda lib: (lib.tensor(1, dtype=lib.int8), lib.tensor([1], dtype=lib.uint8)),
    lambda lib: (lib.tensor([1], dtype=lib.int32), lib.tensor(5)),
    lambda lib: (lib.tensor([True]), 2),
    lambda lib: (lib.tensor([1.0], dtype=lib.float16), lib.tensor(2.0, dtype=lib.float64)),
])
def test_result_type_matches_torch(make):
    assert repr(ember.result_type(*make(ember))) == repr(torch.result_type(*make(torch)))


def test_predicates_trace_inner():
    a = np.arange(12.0).reshape(3, 4).astype(np.float32)
    for fn in (lambda lib, x: lib.trace(x[:, :3]), lambda lib, x: lib.inner(x, x),
               lambda lib, x: lib.inner(x[0], x[1])):
        np.testing.assert_allclose(fn(ember, ember.tensor(a)).numpy(), fn(torch, torch.tensor(a)).numpy())
    assert ember.trace(ember.arange(9).view(3, 3)).dtype == torch_dtype_name("int64")
    assert ember.is_same_size(ember.ones(2), ember.zeros(2))
    assert ember.tensor([3]).is_nonzero() and not ember.tensor(0.0).is_nonzero()
    with pytest.raises(RuntimeError):
        ember.ones(2).is_nonzero()
    assert ember.typename(ember.ones(1)) == torch.typename(torch.ones(1)) == "torch.FloatTensor"


def torch_dtype_name(name):
    return getattr(ember, name)


@pytest.mark.parametrize("op", ["t_", "transpose_", "squeeze_", "unsqueeze_"])
def test_inplace_view_ops(op):
    args = {"t_": (), "transpose_": (0, 1), "squeeze_": (), "unsqueeze_": (1,)}[op]
    a = np.arange(6.0).reshape(2, 3)
    if op == "squeeze_":
        a = a.reshape(1, 2, 3)
    e, t = ember.tensor(a), torch.tensor(a)
    assert getattr(e, op)(*args) is e
    getattr(t, op)(*args)
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_resize_keeps_storage_when_it_fits_and_grows_otherwise():
    for lib in (ember, torch):
        a = lib.arange(6.0)
        v = a[:2]
        a.resize_(2, 2)
        assert a.tolist() == [[0.0, 1.0], [2.0, 3.0]]
        assert a.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()
        a.resize_(10)
        assert a.shape == (10,) and a[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError):
        ember.ones(2, requires_grad=True).resize_(3)


def test_set_shares_the_source_storage():
    src = ember.arange(6.0)
    t = ember.empty(0)
    t.set_(src)
    t[0] = 7.0
    assert src[0].item() == 7.0
    assert t.untyped_storage().data_ptr() == src.untyped_storage().data_ptr()


def test_share_memory_is_seen_by_a_forked_child():
    import multiprocessing as mp
    t = ember.zeros(4)
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared()

    def child(x):
        x.add_(3.0)

    p = mp.get_context("fork").Process(target=child, args=(t,))
    p.start()
    p.join(30)
    assert p.exitcode == 0
    assert t.tolist() == [3.0, 3.0, 3.0, 3.0]
    m = ember.nn.Linear(2, 2).share_memory()
    assert all(p.is_shared() for p in m.parameters())
