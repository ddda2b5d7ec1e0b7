"""complex32 (torch.chalf) against torch op by op: values bit for bit, dtypes, views and storage
sizes, torch's refusals (exception type and message), printing and serialization."""
import pickle

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")


def _rand(shape, seed):
    g = torch.Generator().manual_seed(seed)
    t = torch.complex(torch.randn(shape, generator=g), torch.randn(shape, generator=g)).chalf()
    return t, _to_ember(t)


def _to_ember(t):
    if t.dtype is torch.chalf:
        return ember.from_numpy(torch.view_as_real(t).numpy().copy()).contiguous().view(ember.chalf) \
            .reshape(tuple(t.shape))
    return ember.from_numpy(t.numpy().copy())


def _bits(x):
    """Raw element bits (complex32 as int32) or values, as a NumPy array."""
    m = torch if isinstance(x, torch.Tensor) else ember
    x = x.detach()
    if x.dtype in (m.chalf, m.bfloat16):
        return x.contiguous().view(m.int32 if x.dtype is m.chalf else m.int16).numpy()
    return x.numpy()


def assert_same(e, t):
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            assert_same(a, b)
        return
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_array_equal(_bits(e), _bits(t))


def test_dtype_facts():
    assert ember.complex32 is ember.chalf and ember.chalf.is_complex and not ember.chalf.is_floating_point
    assert ember.chalf.itemsize == 4 and repr(ember.chalf) == "torch.complex32"
    assert ember.chalf.to_real() is ember.float16 and ember.float16.to_complex() is ember.chalf
    assert ember.bfloat16.to_complex() is ember.complex64
    assert repr(ember.finfo(ember.chalf)) == repr(torch.finfo(torch.chalf))
    for d in ("bool", "int64", "float16", "bfloat16", "float32", "float64", "complex64"):
        assert str(ember.promote_types(ember.chalf, getattr(ember, d))) == \
            str(torch.promote_types(torch.chalf, getattr(torch, d)))
        assert ember.can_cast(ember.chalf, getattr(ember, d)) == torch.can_cast(torch.chalf, getattr(torch, d))
    x, ex = _rand((2, 3), 0)
    assert ex.element_size() == x.element_size() == 4
    assert ex.untyped_storage().nbytes() == x.untyped_storage().nbytes() == 24
    assert ex.is_complex() and not ex.is_floating_point() and ex.type() == x.type()
    assert ex.chalf() is ex and x.chalf() is x


def test_arithmetic_matches_torch_bit_for_bit():
    (a, ea), (b, eb), (c, ec) = _rand((300,), 1), _rand((300,), 2), _rand((300,), 3)
    r, er = a.real.contiguous(), ea.real
    cases = [
        (lambda m, x, y, z: x + y), (lambda m, x, y, z: x - y), (lambda m, x, y, z: x * y),
        (lambda m, x, y, z: -x), (lambda m, x, y, z: x.conj_physical()), (lambda m, x, y, z: x.sgn()),
        (lambda m, x, y, z: x.abs()), (lambda m, x, y, z: x.real), (lambda m, x, y, z: x.imag),
        (lambda m, x, y, z: x == y), (lambda m, x, y, z: x != x), (lambda m, x, y, z: x.isnan()),
        (lambda m, x, y, z: x.isfinite()), (lambda m, x, y, z: x.isinf()),
        (lambda m, x, y, z: m.where(x.real > 0, x, y)),
        (lambda m, x, y, z: m.add(x, y, alpha=0.3)), (lambda m, x, y, z: m.sub(x, y, alpha=1.7 + 0.2j)),
        (lambda m, x, y, z: m.addcmul(x, y, z)), (lambda m, x, y, z: m.addcmul(x, y, z, value=0.3)),
        (lambda m, x, y, z: x * 0.3), (lambda m, x, y, z: x + (1.7 + 0.2j)), (lambda m, x, y, z: 2.5 - x),
        (lambda m, x, y, z: x * m.tensor(0.3 + 0.1j)), (lambda m, x, y, z: x * x.real),
        (lambda m, x, y, z: x + x.real.float()), (lambda m, x, y, z: x * m.ones(300, dtype=m.cfloat)),
        (lambda m, x, y, z: x.var()), (lambda m, x, y, z: x.reshape(30, 10).std(0)),
        (lambda m, x, y, z: x.norm()), (lambda m, x, y, z: x.any()),
        (lambda m, x, y, z: x.clone().mul_(y)), (lambda m, x, y, z: x.clone().add_(2)),
    ]
    for f in cases:
        assert_same(f(ember, ea, eb, ec), f(torch, a, b, c))
    assert_same(ember.complex(er, er), torch.complex(r, r))


def test_conversions_match_torch():
    x, ex = _rand((200,), 4)
    for name in ("bool", "uint8", "int64", "float16", "bfloat16", "float32", "float64", "complex64",
                 "complex128"):
        assert_same((ex * 100).to(getattr(ember, name)), (x * 100).to(getattr(torch, name)))
    g = torch.Generator().manual_seed(5)
    sources = [torch.randn(200, dtype=torch.float64, generator=g) * 100,
               torch.randint(-70000, 70000, (200,), generator=g), torch.randn(200, generator=g),
               torch.randn(200, generator=g).half(), torch.tensor([True, False]),
               torch.complex(torch.randn(200, dtype=torch.float64, generator=g), torch.randn(
                   200, dtype=torch.float64, generator=g) * 1e5)]
    for s in sources:
        es = _to_ember(s)
        assert_same(es.chalf(), s.chalf())
        assert_same(es.to(ember.complex32), s.to(torch.complex32))
        assert_same(ember.empty(tuple(s.shape), dtype=ember.chalf).copy_(es),
                    torch.empty(tuple(s.shape), dtype=torch.chalf).copy_(s))
        if s.dtype is not torch.bool:
            assert_same(ember.empty(tuple(s.shape), dtype=es.dtype).copy_(ex[:len(s)] * 10),
                        torch.empty(tuple(s.shape), dtype=s.dtype).copy_(x[:len(s)] * 10))
    vals = [0.1 + 0.2j, 1e5, -3.3e-6j, 1 + 2 ** -11 + 2 ** -40]
    assert_same(ember.tensor(vals, dtype=ember.chalf), torch.tensor(vals, dtype=torch.chalf))
    assert ex[3].item() == x[3].item() and ex[:5].tolist() == x[:5].tolist()
    with pytest.raises(TypeError, match="Got unsupported ScalarType ComplexHalf"):
        ex.numpy()


def test_creation_and_fills_match_torch():
    cases = [
        lambda m: m.zeros(2, 3, dtype=m.chalf), lambda m: m.ones(4, dtype=m.chalf),
        lambda m: m.full((3,), 0.1 + 0.3j, dtype=m.chalf), lambda m: m.empty(5, dtype=m.chalf).shape,
        lambda m: m.tensor(1 + 1j, dtype=m.chalf), lambda m: m.scalar_tensor(2, dtype=m.chalf),
        lambda m: m.zeros(3, dtype=m.chalf).fill_(1.5 + 0.25j), lambda m: m.ones(3, dtype=m.chalf).zero_(),
        lambda m: m.zeros(2, dtype=m.chalf).new_ones(3), lambda m: m.zeros(2, dtype=m.chalf).new_full((2,), 2j),
        lambda m: m.ones_like(m.zeros(2, dtype=m.chalf)), lambda m: m.full_like(m.zeros(2, dtype=m.chalf), 3j),
        lambda m: m.randn(3, dtype=m.chalf).dtype, lambda m: m.empty(3, dtype=m.chalf).uniform_().dtype,
    ]
    for f in cases:
        e, t = f(ember), f(torch)
        if isinstance(t, torch.Tensor):
            assert_same(e, t)
        else:
            assert str(e) == str(t)


def test_movement_and_views_match_torch():
    x, ex = _rand((4, 6), 6)
    y, ey = _rand((4, 6), 7)
    idx = [1, 3, 0]
    cases = [
        lambda m, a, b: m.cat([a, b]), lambda m, a, b: m.stack([a, b], 1), lambda m, a, b: a.clone(),
        lambda m, a, b: m.cat([a, b.real]), lambda m, a, b: m.cat([a.real.float(), b]),
        lambda m, a, b: m.cat([m.ones(1, 6, dtype=m.int64), a]),
        lambda m, a, b: a[1], lambda m, a, b: a[:, 2:5], lambda m, a, b: a[m.tensor(idx)],
        lambda m, a, b: a[a.real > 0], lambda m, a, b: a.index_select(1, m.tensor(idx)),
        lambda m, a, b: a.t(), lambda m, a, b: a.reshape(3, 8), lambda m, a, b: a.permute(1, 0).contiguous(),
        lambda m, a, b: a[0].expand(3, 6), lambda m, a, b: a.unsqueeze(1), lambda m, a, b: a.flatten(),
        lambda m, a, b: a.narrow(1, 1, 2), lambda m, a, b: a.flip(0), lambda m, a, b: a.roll(2, 1),
        lambda m, a, b: a.tril(), lambda m, a, b: a.masked_fill(a.real > 0, 2j),
        lambda m, a, b: a.repeat(2, 1), lambda m, a, b: a.unbind(1), lambda m, a, b: a.split(2),
        lambda m, a, b: m.view_as_real(a), lambda m, a, b: m.view_as_real(a.t()),
        lambda m, a, b: m.view_as_complex(m.view_as_real(a).contiguous()),
        lambda m, a, b: a.view(m.float16), lambda m, a, b: a.view(m.int32), lambda m, a, b: a.view(m.float32),
        lambda m, a, b: a.nonzero(), lambda m, a, b: m.nn.functional.pad(a, (1, 1)),
        lambda m, a, b: m.index_put(a, (m.tensor([0, 2]),), b[1]),
    ]
    for f in cases:
        assert_same(f(ember, ex, ey), f(torch, x, y))
    ea2, ta2 = ex.clone(), x.clone()  # writes through indexing and views
    ea2[1:3], ta2[1:3] = ey[0:2], y[0:2]
    ea2[0, 0], ta2[0, 0] = 1 + 5j, 1 + 5j
    ea2.t()[2], ta2.t()[2] = ey[:, 1], y[:, 1]
    assert_same(ea2, ta2)
    # view_as_real shares memory: writes show through, as in torch
    er, tr = ember.view_as_real(ea2), torch.view_as_real(ta2)
    er[0, 1, 0], tr[0, 1, 0] = 7.0, 7.0
    assert_same(ea2, ta2)
    assert er.stride() == tr.stride() and ember.view_as_real(ea2[:, 1]).storage_offset() == \
        torch.view_as_real(ta2[:, 1]).storage_offset()


def test_refused_ops_raise_torchs_error():
    x, ex = _rand((2, 2), 8)
    cases = [
        lambda m, a: a / a, lambda m, a: a.exp(), lambda m, a: a.log(), lambda m, a: a.sqrt(),
        lambda m, a: a.sin(), lambda m, a: a.tanh(), lambda m, a: a.reciprocal(), lambda m, a: a ** 2,
        lambda m, a: a.angle(), lambda m, a: a.sum(), lambda m, a: a.mean(), lambda m, a: a.prod(),
        lambda m, a: a @ a, lambda m, a: a.mm(a), lambda m, a: m.bmm(a[None], a[None]),
        lambda m, a: a[0].dot(a[0]), lambda m, a: a.cumsum(0), lambda m, a: a.gather(0, m.tensor([[0, 1]])),
        lambda m, a: a.max(), lambda m, a: a.take(m.tensor([0])), lambda m, a: a.unique(),
        lambda m, a: a.logical_not(), lambda m, a: a.nan_to_num(), lambda m, a: a.softmax(0),
        lambda m, a: a.sign(), lambda m, a: a.clamp(0, 1), lambda m, a: m.maximum(a, a),
        lambda m, a: a.equal(a), lambda m, a: a.masked_scatter(a.real > 9, a),
        lambda m, a: m.arange(3, dtype=m.chalf), lambda m, a: m.linspace(0, 1, 3, dtype=m.chalf),
        lambda m, a: m.eye(2, dtype=m.chalf), lambda m, a: m.randint(3, (2,), dtype=m.chalf),
    ]
    for f in cases:
        with pytest.raises(Exception) as want:
            f(torch, x)
        with pytest.raises(type(want.value)) as got:
            f(ember, ex)
        assert str(got.value) == str(want.value)


def test_repr_matches_torch():
    vals = [[1 + 2j, 3.3 - 1e-4j, 70000], [-2 + 0.5j, 0.1 + 0.2j, float("nan")]]
    assert repr(ember.tensor(vals, dtype=ember.chalf)) == repr(torch.tensor(vals, dtype=torch.chalf))
    assert repr(ember.tensor(1 + 1j, dtype=ember.chalf)) == repr(torch.tensor(1 + 1j, dtype=torch.chalf))
    assert repr(ember.zeros(0, dtype=ember.chalf)) == repr(torch.zeros(0, dtype=torch.chalf))


def test_half_and_complex_promotion_gives_complex32():
    h, eh = torch.ones(2, dtype=torch.half), ember.ones(2, dtype=ember.half)
    assert str((eh * 1j).dtype) == str((h * 1j).dtype) == "torch.complex32"
    assert_same(eh + ember.tensor(1j), h + torch.tensor(1j))


def test_serialization_round_trips_with_torch(tmp_path):
    x, ex = _rand((3, 4), 9)
    torch.save({"a": x, "b": x[:, 1]}, tmp_path / "t.pt")
    for weights_only in (False, True):
        d = ember.load(tmp_path / "t.pt", weights_only=weights_only)
        assert_same(d["a"], x)
        assert_same(d["b"], x[:, 1])
        assert d["b"].storage_offset() == 1
    for m, a in ((torch, x), (ember, ex)):  # .real is a float16 view of the same storage
        with pytest.raises(RuntimeError, match="view the same data as different types"):
            m.save({"a": a, "c": a.real}, tmp_path / "bad.pt")
    ember.save({"a": ex, "b": ex[:, 1], "c": ex.real.clone()}, tmp_path / "e.pt")
    for weights_only in (False, True):
        d = torch.load(tmp_path / "e.pt", weights_only=weights_only)
        assert_same(ex, d["a"])
        assert_same(ex[:, 1], d["b"])
        assert d["b"].untyped_storage().data_ptr() == d["a"].untyped_storage().data_ptr()
    assert_same(ember.load(tmp_path / "e.pt")["a"], x)
    assert_same(pickle.loads(pickle.dumps(ex)), x)


def test_assert_close_on_complex32():
    x, ex = _rand((5,), 10)
    ember.testing.assert_close(ex, ex.clone())
    for m, a in ((torch, x), (ember, ex)):
        with pytest.raises(AssertionError, match="Tensor-likes are not close"):
            m.testing.assert_close(a, a + 0.01)
