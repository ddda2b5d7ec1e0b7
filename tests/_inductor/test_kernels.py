"""Generated kernels against torch: softmax / log-softmax / layer norm / cross-entropy values and
gradients, kernel counts of known graphs, NaN propagation, the debug listing and the NumPy
fallback of a kernel Numba cannot compile."""
import numpy as np
import pytest
import torch

import ember
from ember._functorch.aot_autograd import aot_function
from ember._inductor import codecache, config, metrics
from ember._inductor.compile_fx import compile_fx_inner


def _both(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _check(fe, ft, *shapes, tol=2e-5):
    pairs = [_both(s, i) for i, s in enumerate(shapes)]
    ce = aot_function(fe, compile_fx_inner)
    out_e = ce(*[p[0] for p in pairs])
    out_t = ft(*[p[1] for p in pairs])
    np.testing.assert_allclose(out_e.detach().numpy(), out_t.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(9).standard_normal(tuple(out_t.shape)).astype(np.float32)
    out_e.backward(ember.tensor(g))
    out_t.backward(torch.tensor(g))
    for e, t in pairs:
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


def test_softmax_log_softmax_layer_norm_cross_entropy_match_torch():
    _check(lambda x: ember.softmax(x * 2, -1), lambda x: torch.softmax(x * 2, -1), (6, 33))
    _check(lambda x: ember.log_softmax(x, -1), lambda x: torch.log_softmax(x, -1), (6, 33))
    _check(lambda x, w, b: ember.nn.functional.layer_norm(x, (33,), w, b),
           lambda x, w, b: torch.nn.functional.layer_norm(x, (33,), w, b), (2, 6, 33), (33,), (33,))
    t = np.random.default_rng(3).integers(0, 33, (6,))
    _check(lambda x: ember.nn.functional.cross_entropy(x, ember.tensor(t)).reshape(1),
           lambda x: torch.nn.functional.cross_entropy(x, torch.tensor(t)).reshape(1), (6, 33))


def _count(fn, *args, **kw):
    metrics.reset()
    with ember.no_grad():
        out = aot_function(fn, compile_fx_inner)(*args)
    return out, metrics.generated_kernel_count, metrics.ufunc_call_count


def test_elementwise_chain_is_one_kernel():
    x, a, b = ember.randn(64, 32), ember.randn(32), ember.randn(64, 1)
    out, k, u = _count(lambda x, a, b: ((x * a + b).relu() * 3 - x).clamp(-1, 1), x, a, b)
    assert (k, u) == (1, 0)
    torch.testing.assert_close(out.numpy(), ((x * a + b).relu() * 3 - x).clamp(-1, 1).numpy())


def test_row_softmax_and_layer_norm_are_one_kernel(monkeypatch):
    x = ember.randn(128, 64)  # 8192 elements: over transcendental_min_numel
    monkeypatch.setattr(config, "fuse_transcendentals", True)
    out, k, u = _count(lambda x: ember.softmax(x, -1), x)
    assert (k, u) == (1, 0)
    torch.testing.assert_close(out.numpy(), ember.softmax(x, -1).numpy())
    # by default a big exp runs as a NumPy ufunc between two kernels (Numba's exp is slower here)
    monkeypatch.setattr(config, "fuse_transcendentals", False)
    out, k, u = _count(lambda x: ember.softmax(x, -1), x)
    assert (k, u) == (2, 1)
    torch.testing.assert_close(out.numpy(), ember.softmax(x, -1).numpy())
    w, b = ember.randn(64), ember.randn(64)
    out, k, u = _count(lambda x, w, b: ember.nn.functional.layer_norm(x, (64,), w, b), x, w, b)
    assert (k, u) == (1, 0)


def test_max_propagates_nan_and_float32_sums_are_accurate():
    x = ember.ones(3, 1000) * 0.1
    x[1, 500] = float("nan")
    out, k, _ = _count(lambda x: (x.amax(-1), x.sum(-1)), x)
    assert k == 1
    assert np.isnan(out[0][1].item()) and out[0][0].item() == pytest.approx(0.1)
    want = np.float32(0.1) * 1000
    assert abs(out[1][0].item() - want) < 1e-5 * want


def test_debug_listing_shows_wrapper_and_kernels(monkeypatch, capsys):
    monkeypatch.setattr(config, "debug", True)
    _count(lambda x: (x * 2).sum(-1), ember.randn(3, 4))
    text = capsys.readouterr().out
    assert "def call(args):" in text and "@nb.njit(" in text and "for r in range(R):" in text


def test_kernel_numba_cannot_compile_falls_back_to_numpy_with_one_warning():
    bad = ("import numba as nb\n\n@nb.njit\ndef kernel(x, out):\n"
           "    out[0] = undefined_name_here(x)\n")
    good = "def kernel(x, out):\n    out[0] = x.sum()\n"
    k = codecache.load_kernel("kernel", bad, good)
    out = np.zeros(1)
    with pytest.warns(RuntimeWarning, match="running its NumPy version"):
        k(np.ones(3), out)
    assert out[0] == 3
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k(np.ones(4), out)  # no second warning
    assert out[0] == 4
