"""Randomness: distributions' statistics, reproducibility (manual_seed, generator=), state round trips,
fork_rng, meta shapes, dtypes and errors compared with torch."""
import pickle

import numpy as np
import pytest
import torch

import ember

N = 20000


def _np(t):
    return t.detach().numpy().astype(np.float64)


# ------------------------------------------------------------------ statistics
def test_rand_stats():
    x = _np(ember.rand(N))
    assert 0 <= x.min() and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.01 and abs(x.var() - 1 / 12) < 0.005


def test_randn_stats():
    x = _np(ember.randn(N, dtype=ember.float64))
    assert abs(x.mean()) < 0.03 and abs(x.var() - 1) < 0.05


def test_uniform_normal_inplace_stats():
    x = _np(ember.empty(N).uniform_(-2, 4))
    assert -2 <= x.min() and x.max() < 4 and abs(x.mean() - 1) < 0.06 and abs(x.var() - 3) < 0.1
    x = _np(ember.empty(N).uniform_(**{"from": 1, "to": 2}))
    assert 1 <= x.min() and x.max() < 2
    x = _np(ember.empty(N).normal_(3, 2))
    assert abs(x.mean() - 3) < 0.06 and abs(x.var() - 4) < 0.2
    x = _np(ember.empty(N).normal_(mean=-1, std=0.5))
    assert abs(x.mean() + 1) < 0.02


def test_randint_stats_and_range():
    x = ember.randint(3, 10, (N,))
    assert x.dtype is ember.int64
    a = x.numpy()
    assert a.min() == 3 and a.max() == 9 and abs(a.mean() - 6) < 0.05
    assert ember.randint(5, (4,)).numpy().max() < 5
    assert ember.randint(low=2, high=4, size=(100,)).numpy().min() == 2
    assert ember.randint(0, 5, (3,), dtype=ember.float32).dtype is ember.float32


def test_random_inplace_forms():
    x = ember.empty(N).random_(5)
    assert set(np.unique(x.numpy())) <= set(range(5))
    x = ember.empty(N, dtype=ember.int32).random_(-3, 3)
    assert x.numpy().min() == -3 and x.numpy().max() == 2
    x = ember.empty(N).random_()
    assert x.numpy().max() <= 2 ** 24 and (x.numpy() == np.round(x.numpy())).all()
    assert x.numpy().max() > 2 ** 20
    b = ember.empty(100, dtype=ember.bool).random_()
    assert b.numpy().any() and not b.numpy().all()
    h = ember.empty(N, dtype=ember.float16).random_()
    assert h.dtype is ember.float16 and h.numpy().max() <= 2048


def test_randperm():
    p = ember.randperm(50)
    assert p.dtype is ember.int64 and sorted(p.tolist()) == list(range(50))
    assert ember.randperm(5, dtype=ember.float32).dtype is ember.float32
    assert ember.randperm(0).shape == (0,)


def test_normal_forms():
    m = ember.full((N,), 2.0)
    s = ember.full((N,), 3.0)
    for x in (ember.normal(m, s), ember.normal(m, 3.0), ember.normal(2.0, s),
              ember.normal(2.0, 3.0, (N,))):
        a = _np(x)
        assert x.shape == (N,) and abs(a.mean() - 2) < 0.1 and abs(a.std() - 3) < 0.1
    assert ember.normal(ember.zeros(2, 3), ember.ones(3)).shape == (2, 3)
    assert ember.normal(2.0, 3.0, size=(2,)).dtype is ember.float32
    assert ember.normal(ember.zeros(2, dtype=ember.float64), 1.0).dtype is ember.float64


def test_bernoulli():
    p = ember.full((N,), 0.3)
    x = ember.bernoulli(p)
    assert x.dtype is ember.float32 and set(np.unique(x.numpy())) <= {0.0, 1.0}
    assert abs(x.numpy().mean() - 0.3) < 0.02
    assert abs(ember.bernoulli(ember.zeros(N), 0.7).numpy().mean() - 0.7) < 0.02
    assert abs(p.bernoulli().numpy().mean() - 0.3) < 0.02
    y = ember.empty(N, dtype=ember.int32).bernoulli_(0.25)
    assert y.dtype is ember.int32 and abs(y.numpy().mean() - 0.25) < 0.02
    z = ember.empty(2, N).bernoulli_(ember.tensor([[0.0], [1.0]]))
    assert z.numpy()[0].sum() == 0 and z.numpy()[1].sum() == N
    e = ember.tensor([0.0, 1.0, 1.0, 0.0])
    assert ember.bernoulli(e).tolist() == [0.0, 1.0, 1.0, 0.0]


def test_exponential_and_others():
    x = _np(ember.empty(N).exponential_(2.0))
    assert x.min() >= 0 and abs(x.mean() - 0.5) < 0.02
    g = _np(ember.empty(N).geometric_(0.25))
    assert g.min() >= 1 and abs(g.mean() - 4) < 0.15
    ln = _np(ember.empty(N, dtype=ember.float64).log_normal_(0.0, 0.5))
    assert abs(np.log(ln).mean()) < 0.02 and abs(np.log(ln).std() - 0.5) < 0.02
    c = _np(ember.empty(N).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1) < 0.1


def test_multinomial_with_replacement():
    p = ember.tensor([0.1, 0.0, 0.6, 0.3])
    x = ember.multinomial(p, N, replacement=True)
    assert x.dtype is ember.int64 and x.shape == (N,)
    freq = np.bincount(x.numpy(), minlength=4) / N
    assert freq[1] == 0 and np.allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.02)
    rows = ember.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 5.0]])
    r = ember.multinomial(rows, 10, True)
    assert r.shape == (2, 10) and (r.numpy()[0] == 0).all() and (r.numpy()[1] == 2).all()


def test_multinomial_without_replacement():
    p = ember.tensor([[1.0, 2.0, 3.0, 4.0]] * 4000)
    x = p.multinomial(2).numpy()
    assert x.shape == (4000, 2) and (x[:, 0] != x[:, 1]).all()
    first = np.bincount(x[:, 0], minlength=4) / 4000
    assert np.allclose(first, [0.1, 0.2, 0.3, 0.4], atol=0.03)
    full = ember.multinomial(ember.ones(6), 6).tolist()
    assert sorted(full) == list(range(6))


def test_complex_and_low_precision_dtypes():
    for dt in (ember.float16, ember.bfloat16, ember.float64):
        assert ember.rand(3, dtype=dt).dtype is dt and ember.randn(3, dtype=dt).dtype is dt
        assert ember.empty(3, dtype=dt).uniform_().dtype is dt
    c = ember.randn(N, dtype=ember.complex64)
    assert c.dtype is ember.complex64
    a = c.numpy()
    assert abs(a.real.var() - 0.5) < 0.03 and abs(a.imag.var() - 0.5) < 0.03


# ------------------------------------------------------------------ reproducibility and state
def test_manual_seed_reproducible():
    ember.manual_seed(123)
    a = ember.rand(5).tolist() + ember.randn(3).tolist() + ember.randint(0, 100, (4,)).tolist()
    ember.manual_seed(123)
    b = ember.rand(5).tolist() + ember.randn(3).tolist() + ember.randint(0, 100, (4,)).tolist()
    assert a == b
    assert ember.initial_seed() == 123
    ember.manual_seed(124)
    assert ember.rand(5).tolist() != a[:5]


def test_generator_kwarg_is_independent_of_default():
    g1 = ember.Generator().manual_seed(7)
    g2 = ember.Generator().manual_seed(7)
    ops = [lambda g: ember.rand(4, generator=g), lambda g: ember.randn(4, generator=g),
           lambda g: ember.randint(0, 9, (4,), generator=g), lambda g: ember.randperm(8, generator=g),
           lambda g: ember.normal(ember.zeros(4), 1.0, generator=g),
           lambda g: ember.bernoulli(ember.full((4,), 0.5), generator=g),
           lambda g: ember.multinomial(ember.ones(5), 3, generator=g),
           lambda g: ember.rand_like(ember.zeros(3), generator=g),
           lambda g: ember.randn_like(ember.zeros(3), generator=g),
           lambda g: ember.randint_like(ember.zeros(3), 10, generator=g),
           lambda g: ember.empty(4).uniform_(generator=g), lambda g: ember.empty(4).normal_(generator=g),
           lambda g: ember.empty(4).random_(generator=g),
           lambda g: ember.empty(4).bernoulli_(0.5, generator=g),
           lambda g: ember.empty(4).exponential_(generator=g)]
    for op in ops:
        ember.rand(3)  # the default generator's use must not matter
        assert op(g1).tolist() == op(g2).tolist()


def test_state_round_trip():
    g = ember.Generator().manual_seed(5)
    ember.rand(3, generator=g)
    s = g.get_state()
    assert s.dtype is ember.uint8 and s.dim() == 1
    a = ember.randn(7, generator=g).tolist()
    g.set_state(s)
    assert ember.randn(7, generator=g).tolist() == a
    # odd-sized float32 draws leave part of a Philox block unread: state still replays exactly
    ember.rand(1, generator=g)
    s2 = g.get_state()
    b = ember.rand(3, generator=g).tolist()
    assert ember.rand(3, generator=g.set_state(s2)).tolist() == b
    g3 = ember.Generator().set_state(s2)
    assert ember.rand(3, generator=g3).tolist() == b
    assert g3.initial_seed() == 5


def test_default_state_functions():
    st = ember.get_rng_state()
    a = ember.rand(4).tolist()
    ember.set_rng_state(st)
    assert ember.rand(4).tolist() == a
    assert ember.random.get_rng_state is ember.get_rng_state
    assert isinstance(ember.default_generator, ember.Generator)


def test_fork_rng_restores():
    ember.manual_seed(0)
    before = ember.get_rng_state()
    with ember.random.fork_rng():
        ember.rand(10)
        ember.manual_seed(99)
    assert (ember.get_rng_state() == before).all()
    expected = ember.rand(3).tolist()
    ember.set_rng_state(before)
    with ember.random.fork_rng(enabled=False):
        ember.rand(3)
    assert ember.rand(3).tolist() != expected
    ember.set_rng_state(before)
    with pytest.raises(ValueError):
        with ember.random.fork_rng(devices=[]):
            ember.rand(2)
            raise ValueError
    assert ember.rand(3).tolist() == expected


def test_seed_and_offset():
    g = ember.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    s = g.seed()
    assert g.initial_seed() == s
    assert g.manual_seed(-1).initial_seed() == torch.Generator().manual_seed(-1).initial_seed()
    assert g.get_offset() == 0
    ember.rand(8, dtype=ember.float64, generator=g)
    assert g.get_offset() > 0
    assert g.device == ember.device("cpu")


def test_generator_pickle_and_clone():
    g = ember.Generator().manual_seed(11)
    ember.rand(3, generator=g)
    h = pickle.loads(pickle.dumps(g))
    c = g.clone_state()
    a = ember.rand(4, generator=g).tolist()
    assert ember.rand(4, generator=h).tolist() == a
    assert ember.rand(4, generator=c).tolist() == a


# ------------------------------------------------------------------ meta, autograd, errors
def test_meta_shapes_only():
    g = ember.Generator().manual_seed(1)
    off = g.get_offset()
    assert ember.rand(2, 3, device="meta", generator=g).shape == (2, 3)
    assert ember.randn(4, device="meta").is_meta
    assert ember.randint(0, 5, (2,), device="meta").dtype is ember.int64
    assert ember.randperm(4, device="meta").shape == (4,)
    x = ember.empty(3, 2, device="meta")
    assert x.uniform_().is_meta and x.normal_().shape == (3, 2)
    assert ember.multinomial(ember.empty(2, 5, device="meta"), 3).shape == (2, 3)
    assert ember.bernoulli(ember.empty(4, device="meta")).is_meta
    assert ember.rand_like(x).is_meta
    assert g.get_offset() == off


def test_grad_of_random_ops_is_zero():
    for name in ("uniform_", "normal_", "bernoulli_", "exponential_", "random_"):
        x = ember.ones(3, requires_grad=True)
        t = torch.ones(3, requires_grad=True)
        y, z = x * 2, t * 2
        getattr(y, name)()
        getattr(z, name)()
        assert type(y.grad_fn).__name__ == type(z.grad_fn).__name__
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
    m = ember.zeros(3, requires_grad=True)
    s = ember.ones(3, requires_grad=True)
    y = ember.normal(m, s)
    assert type(y.grad_fn).__name__ == "NormalBackward3"
    y.sum().backward()
    assert m.grad.tolist() == [0.0] * 3 and s.grad.tolist() == [0.0] * 3
    assert ember.rand(2, requires_grad=True).requires_grad
    assert not ember.rand_like(m).requires_grad
    with pytest.raises(RuntimeError, match="leaf Variable"):
        ember.ones(2, requires_grad=True).uniform_()


ERRORS = [
    lambda L: L.rand(3, dtype=L.int64),
    lambda L: L.randn(3, dtype=L.int64),
    lambda L: L.empty(3, dtype=L.int64).uniform_(),
    lambda L: L.empty(3, dtype=L.int64).normal_(),
    lambda L: L.empty(2).uniform_(1, 0),
    lambda L: L.empty(2).normal_(0, -1),
    lambda L: L.normal(L.zeros(2), -1.0),
    lambda L: L.normal(L.tensor([1, 2]), 1.0),
    lambda L: L.normal(L.zeros(2), L.tensor([1.0, -1.0])),
    lambda L: L.randint(3, 2, (3,)),
    lambda L: L.randint(5, 3),
    lambda L: L.randint(0, 300, (2,), dtype=L.uint8),
    lambda L: L.randperm(-1),
    lambda L: L.randperm(3, dtype=L.bool),
    lambda L: L.multinomial(L.tensor([1.0, -1.0, 0.0]), 2),
    lambda L: L.multinomial(L.tensor([0.0, 0.0, 0.0]), 2, True),
    lambda L: L.multinomial(L.tensor([1.0, 1.0, 0.0]), 4),
    lambda L: L.multinomial(L.ones(2, 2, 2), 1),
    lambda L: L.multinomial(L.ones(3), 0),
    lambda L: L.multinomial(L.ones(3, dtype=L.int64), 1),
    lambda L: L.bernoulli(L.tensor([1.5])),
    lambda L: L.bernoulli(L.zeros(2, dtype=L.int64)),
    lambda L: L.empty(3).bernoulli_(1.5),
    lambda L: L.empty(2).exponential_(-1),
    lambda L: L.empty(2, dtype=L.int64).exponential_(),
    lambda L: L.empty(2).geometric_(1.5),
    lambda L: L.empty(2).log_normal_(1, -1),
    lambda L: L.empty(3, dtype=L.bool).uniform_(),
    lambda L: L.rand(2, device="cuda"),
    lambda L: L.Generator().manual_seed(1.5),
    lambda L: L.manual_seed(2 ** 64),
    lambda L: L.Generator().set_state(L.zeros(3)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    with pytest.raises(Exception) as te:
        ERRORS[i](torch)
    with pytest.raises(type(te.value)) as ee:
        ERRORS[i](ember)
    msg = str(te.value)
    if "CUDA" not in msg:
        assert str(ee.value) == msg


def test_set_state_wrong_size():
    with pytest.raises(RuntimeError, match="RNG state size"):
        ember.Generator().set_state(ember.zeros(3, dtype=ember.uint8))


def test_dtypes_match_torch():
    cases = [lambda L: L.rand(2), lambda L: L.randn(2, dtype=L.float64), lambda L: L.randint(3, (2,)),
             lambda L: L.randperm(3), lambda L: L.normal(2.0, 1.0, (2,)),
             lambda L: L.bernoulli(L.zeros(2, dtype=L.float64)),
             lambda L: L.multinomial(L.ones(3), 2), lambda L: L.rand_like(L.zeros(2, dtype=L.float16)),
             lambda L: L.randint_like(L.zeros(2), 2, 5),
             lambda L: L.randint_like(L.zeros(2, dtype=L.int32), 5),
             lambda L: L.empty(2, dtype=L.int32).bernoulli_(0.5),
             lambda L: L.empty(2, dtype=L.uint8).random_()]
    for c in cases:
        e, t = c(ember), c(torch)
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)


def test_thread_safe_generator_outside_thread_workers():
    # torch: None in the main process and in process workers (ember's only kind of worker)
    assert torch.thread_safe_generator() is None
    assert ember.thread_safe_generator() is None and ember.random.thread_safe_generator() is None
