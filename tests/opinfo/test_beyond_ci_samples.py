"""Behaviour found by the every-sample OpInfo run (``tools/opinfo_report.py``) on samples beyond the
3 that CI runs per OpInfo: each case compared with torch directly."""
from __future__ import annotations

import numpy as np
import torch

import ember


def _e(t):
    return ember.tensor(t.numpy())


def test_histogram_of_empty_input_spans_zero_to_one():
    for bins in (1, 3):
        t = torch.histogram(torch.zeros(0, 2), bins)
        e = ember.histogram(ember.zeros(0, 2), bins)
        np.testing.assert_array_equal(e.bin_edges.numpy(), t.bin_edges.numpy())
        np.testing.assert_array_equal(e.hist.numpy(), t.hist.numpy())
    t = torch.histogramdd(torch.zeros(0, 2), [2, 3])
    e = ember.histogramdd(ember.zeros(0, 2), [2, 3])
    for a, b in zip(e.bin_edges, t.bin_edges):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_histogramdd_with_unsorted_edges_bins_like_torch():
    # torch bins with an upper-bound binary search, which on unsorted edges differs from a sorted
    # search; in range means edges[0] <= x <= edges[-1]
    rng = np.random.default_rng(0)
    for _ in range(40):
        edges = [torch.from_numpy(rng.uniform(-9, 9, int(rng.integers(2, 7))).astype(np.float32))
                 for _ in range(2)]
        x = torch.from_numpy(rng.uniform(-10, 10, (25, 2)).astype(np.float32))
        x[:4, 0] = edges[0][:4].repeat(2)[:4]  # values on edges
        t = torch.histogramdd(x, edges)
        e = ember.histogramdd(_e(x), [_e(b) for b in edges])
        np.testing.assert_array_equal(e.hist.numpy(), t.hist.numpy())
        th = torch.histogram(x[:, 1], edges[1])
        eh = ember.histogram(_e(x[:, 1]), _e(edges[1]))
        np.testing.assert_array_equal(eh.hist.numpy(), th.hist.numpy())


def test_cumulative_trapezoid_multiplies_in_the_integer_dtype_first():
    y = torch.tensor([[5, 1, 6], [5, 6, 4]], dtype=torch.uint8)
    x = torch.tensor([[2, 5, 5], [9, 3, 1]], dtype=torch.uint8)  # x's steps wrap around in uint8
    t = torch.cumulative_trapezoid(y, x)
    e = ember.cumulative_trapezoid(_e(y), _e(x))
    assert str(e.dtype) == str(t.dtype)
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    for dx in (3, 0.5):
        np.testing.assert_array_equal(ember.cumulative_trapezoid(_e(y), dx=dx).numpy(),
                                      torch.cumulative_trapezoid(y, dx=dx).numpy())


def test_matrix_rank_with_per_matrix_tolerances():
    a = torch.diag_embed(torch.tensor([[1.0, 1e-8, 0.5], [1.0, 1e-9, 1e-3]], dtype=torch.float64))
    cases = [{}, {"atol": 0.0}, {"atol": torch.tensor([0.0, 1e-10])}, {"rtol": torch.tensor([0.6, 1e-4])},
             {"atol": torch.tensor([0.0, 0.0]), "rtol": torch.tensor([0.6, 0.0])}]
    for kw in cases:
        ek = {k: (_e(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
        assert ember.linalg.matrix_rank(_e(a), **ek).tolist() == torch.linalg.matrix_rank(a, **kw).tolist(), kw
    empty = torch.zeros(0, 5, 5)
    assert tuple(ember.linalg.matrix_rank(_e(empty), rtol=ember.zeros(0)).shape) == (0,)


def test_norm_subgradients_of_a_zero_matrix_are_finite():
    for shape in ((5, 5), (3, 5), (5, 2)):
        for ord in ("nuc", 2, -2):
            t = torch.zeros(shape, requires_grad=True)
            torch.linalg.norm(t, ord).backward()
            e = ember.zeros(shape, requires_grad=True)
            ember.linalg.norm(e, ord).backward()
            # the subgradient is U V^H for some singular vectors of 0: any orthonormal pair is valid,
            # so compare the finite/shape property and the norm of the subgradient
            assert np.isfinite(e.grad.numpy()).all(), (shape, ord)
            np.testing.assert_allclose(np.linalg.norm(e.grad.numpy()), np.linalg.norm(t.grad.numpy()),
                                       rtol=1e-6)


def test_logcumsumexp_float32_accumulates_in_double():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 50, generator=g) * 20
    x[0, :10] = 1e4  # extremal values: the gradient's cancellation amplifies any rounding difference
    np.testing.assert_array_equal(ember.logcumsumexp(_e(x), 1).numpy(), torch.logcumsumexp(x, 1).numpy())
    w = torch.randn(x.shape, generator=g)
    xt = x.clone().requires_grad_()
    torch.logcumsumexp(xt, 1).backward(w)
    xe = ember.tensor(x.numpy(), requires_grad=True)
    ember.logcumsumexp(xe, 1).backward(_e(w))
    torch.testing.assert_close(torch.from_numpy(xe.grad.numpy()), xt.grad)


def test_cov_normaliser_in_the_weights_dtype_and_clamped():
    # float32 aweights on a float64 input: torch's normaliser (w_sum - c * sum(w * a) / w_sum) stays
    # float32; dyadic weights keep the sums exact, so only that rounding is tested
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 5, generator=g, dtype=torch.float64) * 10
    aw = torch.tensor([0.25, 0.5, 1.0, 0.75, 0.125])
    fw = torch.tensor([1, 0, 0, 1, 2])
    for kw in ({"correction": 2, "aweights": aw}, {"correction": 1, "aweights": aw, "fweights": fw},
               {"correction": 2, "aweights": aw.double(), "fweights": fw}, {"correction": 5, "fweights": fw}):
        t = torch.cov(x, **kw)
        e = ember.cov(_e(x), **{k: _e(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()})
        torch.testing.assert_close(torch.from_numpy(np.asarray(e.numpy())), t, equal_nan=True)


def test_native_norms_statistics_and_running_stats():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 6, 5, generator=g)
    w, b = torch.randn(6, generator=g), torch.randn(6, generator=g)
    rm_t, rv_t = torch.zeros(6), torch.ones(6)
    rm_e, rv_e = ember.zeros(6), ember.ones(6)
    t = torch.native_batch_norm(x, w, b, rm_t, rv_t, True, 0.3, 1e-5)
    e = ember.native_batch_norm(_e(x), _e(w), _e(b), rm_e, rv_e, True, 0.3, 1e-5)
    for a, c in zip(e + (rm_e, rv_e), t + (rm_t, rv_t)):
        torch.testing.assert_close(torch.from_numpy(a.numpy()), c)
    assert [tuple(a.shape) for a in ember.native_batch_norm(_e(x), None, None, rm_e, rv_e, False, 0.1, 1e-5)] \
        == [tuple(a.shape) for a in torch.native_batch_norm(x, None, None, rm_t, rv_t, False, 0.1, 1e-5)]
    for n in (4, 0):  # an empty batch too
        xs = x[:n]
        t = torch.native_group_norm(xs, w, b, n, 6, 5, 3, 1e-5)
        e = ember.native_group_norm(_e(xs), _e(w), _e(b), n, 6, 5, 3, 1e-5)
        for a, c in zip(e, t):
            torch.testing.assert_close(torch.from_numpy(a.detach().numpy()), c)
    t = torch.native_layer_norm(x, (6, 5), None, None, 1e-5)
    e = ember.native_layer_norm(_e(x), (6, 5), None, None, 1e-5)
    for a, c in zip(e, t):
        torch.testing.assert_close(torch.from_numpy(a.numpy()), c)


def test_householder_product_without_reflectors_stays_in_the_graph():
    a = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    tau = torch.zeros(0, dtype=torch.float64, requires_grad=True)
    t = torch.linalg.householder_product(a, tau)
    ae = ember.tensor(a.detach().numpy(), requires_grad=True)
    e = ember.linalg.householder_product(ae, ember.zeros(0, dtype=ember.float64, requires_grad=True))
    assert e.requires_grad and t.requires_grad
    np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())
    w = torch.randn(t.shape, dtype=torch.float64)
    assert torch.autograd.grad(t, a, w, allow_unused=True)[0] is None  # torch: no gradient, i.e. 0
    assert not ember.autograd.grad(e, ae, _e(w))[0].numpy().any()


def test_istft_of_two_sided_spectra_and_complex_windows():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(10, 3, dtype=torch.complex128, generator=g)  # two-sided, not Hermitian
    np.testing.assert_allclose(ember.istft(_e(x), 10).numpy(), torch.istft(x, 10).numpy(), atol=1e-12)
    x = torch.randn(2, 10, 6, dtype=torch.complex128, generator=g)
    w = torch.rand(10, dtype=torch.complex128, generator=g) + 0.5  # the envelope is w * w, not |w|^2
    t = torch.istft(x, 10, window=w, return_complex=True)
    np.testing.assert_allclose(ember.istft(_e(x), 10, window=_e(w), return_complex=True).numpy(), t.numpy(),
                               atol=1e-12)
