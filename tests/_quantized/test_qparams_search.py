"""ember.choose_qparams_optimized against torch.choose_qparams_optimized: exact float32 values."""
import numpy as np
import pytest
import torch

import ember


def _both(x: torch.Tensor, *args):
    want = torch.choose_qparams_optimized(x, *args)
    got = ember.choose_qparams_optimized(ember.from_numpy(x.numpy().copy()), *args)
    return got, want


def _assert_same(got, want):
    assert len(got) == 2
    for g, w in zip(got, want):
        assert g.dtype is ember.float32 and tuple(g.shape) == tuple(w.shape) == (1,)
        np.testing.assert_array_equal(g.numpy(), w.numpy())  # bit for bit (NaN == NaN)


def test_random_inputs_match_torch_exactly():
    gen = torch.Generator().manual_seed(22)
    for trial in range(60):
        n = int(torch.randint(1, 200, (), generator=gen))
        kind = trial % 3
        if kind == 0:
            x = torch.randn(n, generator=gen) * float(torch.rand((), generator=gen) * 10)
        elif kind == 1:
            x = torch.rand(n, generator=gen) * 5
        else:
            x = torch.randn(n, generator=gen).exp()
        n_bins = int(torch.randint(1, 200, (), generator=gen))
        ratio = float(torch.rand((), generator=gen)) * (0.5 if trial % 4 else 1.0)
        bit_width = int(torch.randint(1, 9, (), generator=gen))
        numel = n if trial % 2 else int(torch.randint(1, n + 1, (), generator=gen))
        _assert_same(*_both(x, numel, n_bins, ratio, bit_width))


@pytest.mark.parametrize("values,args", [
    ([1.0] * 10, (10, 200, 0.16, 8)),                      # constant input: scale 1.0 branch
    ([2.5], (1, 200, 0.16, 8)),
    ([0.0, 1.0, 2.0, 3.0, 10.0], (5, 10, 3.0, 2)),         # ratio > 1: the range crosses over
    ([0.0, 1.0, 2.0, 3.0, 10.0], (0, 10, 0.5, 2)),         # numel 0 reads the first element
    ([0.0, 1.0, 2.0, 3.0, 10.0], (5, 0, 0.5, 2)),          # no bins: infinite step, no search
    ([0.0, 1.0, 2.0, 3.0, 10.0], (5, 10, 0.5, 0)),         # bit_width 0 / 31 / 32: C int shifts
    ([0.0, 1.0, 2.0, 3.0, 10.0], (5, 10, 0.5, 31)),
    ([0.0, 1.0, 2.0, 3.0, 10.0], (5, 10, 0.5, 32)),
    ([float("nan"), 1.0, 2.0], (3, 10, 0.5, 2)),           # NaN first: the range stays NaN
    ([1.0, float("nan"), -2.0], (3, 10, 0.5, 2)),          # NaN later: skipped by min/max
    ([1.0, float("-inf"), -2.0], (3, 10, 0.9, 2)),
    ([1.0, float("inf"), 3.0], (3, 200, 0.16, 8)),
])
def test_edge_cases_match_torch(values, args):
    _assert_same(*_both(torch.tensor(values), *args))


def test_non_contiguous_input_reads_raw_memory_as_torch():
    gen = torch.Generator().manual_seed(3)
    base = torch.randn(40, generator=gen)
    eb = ember.from_numpy(base.numpy().copy())
    for view in (lambda t: t[::2]), (lambda t: t.reshape(8, 5).t()), (lambda t: t[3:][::3]):
        ev, tv = view(eb), view(base)
        for numel in (1, 5, tv.numel()):
            want = torch.choose_qparams_optimized(tv, numel, 50, 0.4, 3)
            _assert_same(ember.choose_qparams_optimized(ev, numel, 50, 0.4, 3), want)


def test_errors_match_torch():
    cases = [
        (lambda m: m.choose_qparams_optimized(m.ones(3, dtype=m.float64), 3, 10, 0.5, 2), RuntimeError,
         "expected scalar type Float but found Double"),
        (lambda m: m.choose_qparams_optimized(m.ones(3, dtype=m.int64), 3, 10, 0.5, 2), RuntimeError,
         "expected scalar type Float but found Long"),
        (lambda m: m.choose_qparams_optimized(m.empty(0), 1, 10, 0.5, 2), ValueError,
         "input tensor is empty and has no data"),
        (lambda m: m.choose_qparams_optimized(m.ones(3), 4, 10, 0.5, 2), RuntimeError,
         "numel is out of the bound of input tensor"),
        (lambda m: m.choose_qparams_optimized(m.ones(3), -1, 10, 0.5, 2), RuntimeError,
         "numel is out of the bound of input tensor"),
        (lambda m: m.choose_qparams_optimized(m.ones(3), 2.5, 10, 0.5, 2), TypeError,
         "argument 'numel'"),
        (lambda m: m.choose_qparams_optimized(m.ones(3), 3, 10, 0.5, 2.0), TypeError,
         "argument 'bit_width'"),
        (lambda m: m.choose_qparams_optimized([0.0, 1.0], 2, 10, 0.5, 2), TypeError,
         "argument 'input' (position 1) must be Tensor, not list"),
    ]
    for call, exc, msg in cases:
        with pytest.raises(exc) as want:
            call(torch)
        with pytest.raises(exc) as got:
            call(ember)
        assert msg in str(want.value) and msg in str(got.value)


def test_keywords_tensor_numel_and_grad_input():
    x = torch.randn(30, generator=torch.Generator().manual_seed(1))
    ex = ember.from_numpy(x.numpy().copy()).requires_grad_()
    want = torch.choose_qparams_optimized(input=x.requires_grad_(), numel=torch.tensor(30), n_bins=40,
                                          ratio=0.3, bit_width=3)
    got = ember.choose_qparams_optimized(input=ex, numel=ember.tensor(30), n_bins=40, ratio=0.3,
                                         bit_width=3)
    _assert_same(got, want)
    assert not got[0].requires_grad and not want[0].requires_grad


def test_negative_search_length_raises_instead_of_looping():
    # torch 2.13 loops (practically) forever here; ember refuses
    with pytest.raises(RuntimeError, match="negative number of search steps"):
        ember.choose_qparams_optimized(ember.ones(4), 4, -5, 0.16, 8)
