"""Storage, strides and version counters: views share one storage, ``.data``/``from_numpy`` start fresh
version counters, NumPy interop shares memory, all compared with torch where torch defines it."""
import numpy as np
import pytest
import torch

import ember


def _ver(t) -> int:
    """The version number (torch's ``t._version``, an int in both libraries)."""
    return t._version


def _views(lib):
    x = lib.arange(24.0).reshape(4, 6)
    return x, {
        "slice": x[1:3],
        "col": x[:, 2],
        "step": x[::2, 1::3],
        "t": x.t(),
        "view": x.view(6, 4),
        "unsqueeze": x.unsqueeze(0),
        "select": x[2],
        "expand": x[:1].expand(3, 6),
        "permute": x.view(2, 2, 6).permute(2, 0, 1),
        "diagonal": x.diagonal(),
        "narrow": x.narrow(1, 2, 3),
        "detach": x.detach(),
    }


@pytest.mark.parametrize("name", ["slice", "col", "step", "t", "view", "unsqueeze", "select", "expand",
                                  "permute", "diagonal", "narrow", "detach"])
def test_views_share_storage_and_geometry(name):
    ex, ev = _views(ember)
    tx, tv = _views(torch)
    e, t = ev[name], tv[name]
    assert e.untyped_storage().data_ptr() == ex.untyped_storage().data_ptr()
    assert e.untyped_storage().nbytes() == ex.untyped_storage().nbytes() == 24 * 4
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert e.storage_offset() == t.storage_offset()
    assert e.is_contiguous() == t.is_contiguous()
    assert e.data_ptr() - ex.data_ptr() == (t.data_ptr() - tx.data_ptr())
    # a write into the base shows through the view, at torch's positions
    ex.numpy()[...] = np.arange(24).reshape(4, 6) * 10
    tx.copy_(torch.arange(24).reshape(4, 6) * 10)
    assert e.tolist() == t.tolist()


def test_storage_identity():
    x = ember.zeros(3, 4)
    s = x.untyped_storage()
    assert x[1].untyped_storage() is s and x.t().untyped_storage() is s
    assert x.view(12).untyped_storage() is s
    assert x.clone().untyped_storage() is not s
    assert x.clone().data_ptr() != x.data_ptr()
    assert x.detach().untyped_storage().data_ptr() == s.data_ptr()


def test_storage_offset_and_strides_of_chains():
    for lib in (ember, torch):
        x = lib.arange(60.0).view(3, 4, 5)
        y = x[1:, ::2, 1:4:2].transpose(0, 2)
        z = y[1]
        yield_vals = (tuple(y.shape), y.stride(), y.storage_offset(), z.stride(), z.storage_offset(),
                      y.is_contiguous())
        if lib is ember:
            e_vals = yield_vals
        else:
            assert e_vals == yield_vals


def test_is_contiguous_cases():
    cases = [lambda L: L.zeros(2, 3), lambda L: L.zeros(2, 3).t(), lambda L: L.zeros(3, 1).t(),
             lambda L: L.zeros(2, 0, 3).transpose(0, 2), lambda L: L.zeros(4)[::2],
             lambda L: L.zeros(1, 4)[:, ::2], lambda L: L.zeros(2, 3)[:, :1],
             lambda L: L.zeros(2, 3, 4).permute(0, 2, 1).contiguous()]
    for c in cases:
        assert c(ember).is_contiguous() == c(torch).is_contiguous()
        if c(torch).numel():  # NumPy 2 keeps no strides for empty arrays (all zero)
            assert c(ember).stride() == c(torch).stride()


def test_version_counter_shared_by_views_and_detach():
    x = ember.zeros(4)
    v = x[1:3]
    d = x.detach()
    assert _ver(x) == _ver(v) == _ver(d) == 0
    v.add_(1)
    assert _ver(x) == _ver(v) == _ver(d) == 1
    d.mul_(2)
    assert _ver(x) == _ver(v) == 2
    x[0] = 5
    assert _ver(v) == _ver(d) == 3


def test_version_counter_matches_torch():
    for lib in (ember, torch):
        x = lib.zeros(4)
        v, d = x[1:], x.detach()
        v.add_(1)
        x.copy_(lib.ones(4))
        d.zero_()
        x[0] = 2
        lib.add(lib.ones(4), 1, out=x)
        vals = (_ver(x), _ver(v), _ver(d))
        if lib is ember:
            e_vals = vals
    assert e_vals == vals


def test_data_and_from_numpy_get_fresh_version_counters():
    for lib in (ember, torch):
        x = lib.zeros(3)
        x.add_(1)
        data = x.data
        assert _ver(data) == 0
        data.add_(1)
        if lib is torch:
            t_vals = (_ver(x), _ver(data))
        else:
            e_vals = (_ver(x), _ver(data))
    assert e_vals == t_vals
    a = np.zeros(3, np.float32)
    e, t = ember.from_numpy(a), torch.from_numpy(np.zeros(3, np.float32))
    assert _ver(e) == _ver(t) == 0
    e.add_(1)
    assert _ver(e) == 1


def test_data_shares_memory_but_not_autograd():
    p = ember.ones(3, requires_grad=True)
    d = p.data
    assert not d.requires_grad and d.data_ptr() == p.data_ptr()
    d.mul_(3)
    assert p.tolist() == [3.0, 3.0, 3.0]
    y = p * p  # saves p
    p.data.add_(1)  # .data writes are invisible to the saved-tensor check, as in torch
    y.sum().backward()
    assert p.grad is not None


def test_from_numpy_and_numpy_share_memory():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = ember.from_numpy(a)
    assert t.dtype is ember.float64 and np.shares_memory(t.numpy(), a)
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    t.add_(1)
    assert a[1, 2] == 6
    x = ember.arange(4.0)
    n = x.numpy()
    n[0] = 7
    assert x[0].item() == 7
    assert np.shares_memory(x[1:].numpy(), n)
    ft = ember.from_numpy(a.T)
    assert ft.stride() == torch.from_numpy(a.T).stride()
    assert ft.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()


def test_from_numpy_refuses_negative_strides():
    a = np.arange(5.0)[::-1]
    with pytest.raises(ValueError) as te:
        torch.from_numpy(a)
    with pytest.raises(ValueError) as ee:
        ember.from_numpy(a)
    assert str(ee.value) == str(te.value)
    with pytest.raises(TypeError):
        ember.from_numpy([1, 2])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                   "uint8", "bool", "complex64", "complex128"])
def test_from_numpy_dtypes(dtype):
    a = np.ones(3, dtype=dtype)
    assert str(ember.from_numpy(a).dtype) == str(torch.from_numpy(a).dtype)


def test_from_numpy_unsupported_dtype():
    a = np.ones(2, dtype=np.uint32)
    with pytest.raises(TypeError):
        ember.from_numpy(a)


def test_numpy_requires_grad_error():
    with pytest.raises(RuntimeError) as te:
        torch.ones(2, requires_grad=True).numpy()
    with pytest.raises(RuntimeError) as ee:
        ember.ones(2, requires_grad=True).numpy()
    assert str(ee.value) == str(te.value)
    assert ember.ones(2, requires_grad=True).detach().numpy().tolist() == [1.0, 1.0]


def test_storage_of_meta_tensor():
    m = ember.empty(2, 3, device="meta")
    s = m.untyped_storage()
    assert s.device == ember.device("meta") and s.nbytes() == 24 == \
        torch.empty(2, 3, device="meta").untyped_storage().nbytes()
    assert m.t().stride() == (1, 3)


def test_element_size_and_nbytes():
    for name in ("float16", "float32", "float64", "int64", "bool", "complex128"):
        e = ember.zeros(3, 2, dtype=getattr(ember, name))
        t = torch.zeros(3, 2, dtype=getattr(torch, name))
        assert e.element_size() == t.element_size() and e.nbytes == t.nbytes
        assert e.untyped_storage().nbytes() == t.untyped_storage().nbytes()


def test_numpy_ufuncs_return_tensors_as_torch():
    for lib in (torch, ember):
        t = lib.ones(3)
        out = np.exp(t)
        assert type(out).__name__ == "Tensor"
        assert np.greater(t, 0).dtype == lib.uint8  # torch's workaround: bool results as uint8
        assert type(np.float32(0.5) * t).__name__ == "Tensor"
    np.testing.assert_allclose(np.exp(ember.ones(3)).numpy(), np.exp(torch.ones(3)).numpy())
