"""Small torch.* functions (issue 22): in-place function forms, slice_inverse, nonzero_static,
empty_permuted, get_device_module, set_anomaly_enabled, histogramdd, geqrf/ormqr, svd/pca_lowrank,
and the Tensor methods attached above layer 2."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)


def _close(e, t, **kw):
    torch.testing.assert_close(torch.from_numpy(np.array(e.detach().numpy())), t.detach(), **kw)


def test_inplace_function_forms():
    a, m, v = RNG.standard_normal(3), RNG.standard_normal((3, 4)), RNG.standard_normal(4)
    e, t = ember.tensor(a), torch.tensor(a)
    assert ember.addmv_(e, ember.tensor(m), ember.tensor(v), beta=0.5, alpha=2) is e
    torch.addmv_(t, torch.tensor(m), torch.tensor(v), beta=0.5, alpha=2)
    _close(e, t)
    e, t = ember.arange(12.), torch.arange(12.)
    assert ember.as_strided_(e, (3, 2), (2, 3), 1) is e
    torch.as_strided_(t, (3, 2), (2, 3), 1)
    assert e.stride() == t.stride() and e.tolist() == t.tolist()
    e = ember.zeros(3)
    assert ember.resize_as_(e, ember.zeros(2, 2)) is e and tuple(e.shape) == (2, 2)


def test_slice_inverse_rebuilds_the_base_view():
    xe, xt = ember.arange(24.).reshape(4, 6), torch.arange(24.).reshape(4, 6)
    re_ = ember.slice_inverse(xe[:, 1:5:2], xe, 1, 1, 5, 2)
    rt = torch.slice_inverse(xt[:, 1:5:2], xt, 1, 1, 5, 2)
    assert re_.stride() == rt.stride() and re_.storage_offset() == rt.storage_offset()
    assert re_.tolist() == rt.tolist()
    ye, yt = ember.arange(10.)[2:7], torch.arange(10.)[2:7]
    r1 = ye.slice_inverse(ember.zeros(10), 0, 2, 7)
    r2 = torch.slice_inverse(yt, torch.zeros(10), 0, 2, 7)
    assert r1.storage_offset() == r2.storage_offset() and r1.tolist() == r2.tolist()


def test_nonzero_static():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    for size, fill in ((0, -1), (2, -1), (3, -1), (6, 9)):
        e = ember.nonzero_static(ember.tensor(a), size=size, fill_value=fill)
        t = torch.nonzero_static(torch.tensor(a), size=size, fill_value=fill)
        assert e.tolist() == t.tolist() and str(e.dtype) == str(t.dtype)
        assert ember.tensor(a).nonzero_static(size=size).tolist() == \
            torch.tensor(a).nonzero_static(size=size).tolist()


def test_empty_permuted():
    for size, order in (((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((5,), (0,))):
        e = ember.empty_permuted(size, order, dtype=ember.float64)
        t = torch.empty_permuted(size, order, dtype=torch.float64)
        assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
        assert str(e.dtype) == str(t.dtype)


def test_device_module_and_anomaly_switch():
    assert ember.get_device_module() is ember.cpu and ember.get_device_module("cpu") is ember.cpu
    assert ember.get_device_module(ember.device("cpu")) is ember.cpu
    try:
        ember.set_anomaly_enabled(True)
        assert ember.is_anomaly_enabled() and ember.is_anomaly_check_nan_enabled()
        ember.set_anomaly_enabled(True, False)
        assert not ember.is_anomaly_check_nan_enabled()
    finally:
        ember.set_anomaly_enabled(False)
    assert not ember.is_anomaly_enabled()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd(dtype):
    x = RNG.standard_normal((3, 20, 3))
    w = RNG.random((3, 20))
    cases = [([2, 3, 4], {}), (5, {"range": [-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]}),
             ([3, 3, 3], {"density": True}), ([2, 2, 2], {"weight": w}),
             ([2, 4, 3], {"weight": w, "density": True})]
    for bins, kw in cases:
        ke = {k: (ember.tensor(v, dtype=getattr(ember, dtype)) if k == "weight" else v)
              for k, v in kw.items()}
        kt = {k: (torch.tensor(v, dtype=getattr(torch, dtype)) if k == "weight" else v)
              for k, v in kw.items()}
        e = ember.histogramdd(ember.tensor(x, dtype=getattr(ember, dtype)), bins, **ke)
        t = torch.histogramdd(torch.tensor(x, dtype=getattr(torch, dtype)), bins, **kt)
        _close(e.hist, t.hist)
        assert len(e.bin_edges) == len(t.bin_edges)
        for a, b in zip(e.bin_edges, t.bin_edges):
            _close(a, b)
    edges = [np.array([-3.0, 0.0, 0.5, 3.0]), np.array([-1.0, 1.0]), np.array([-2.0, 0.0, 2.0])]
    e = ember.histogramdd(ember.tensor(x, dtype=getattr(ember, dtype)),
                          [ember.tensor(v, dtype=getattr(ember, dtype)) for v in edges])
    t = torch.histogramdd(torch.tensor(x, dtype=getattr(torch, dtype)),
                          [torch.tensor(v, dtype=getattr(torch, dtype)) for v in edges])
    _close(e.hist, t.hist)
    same = ember.histogramdd(ember.ones(4, 2, dtype=getattr(ember, dtype)), [2, 2])
    ref = torch.histogramdd(torch.ones(4, 2, dtype=getattr(torch, dtype)), [2, 2])
    _close(same.hist, ref.hist)
    _close(same.bin_edges[0], ref.bin_edges[0])


def test_histogramdd_errors_match_torch():
    calls = [lambda m: m.histogramdd(m.ones(3), [2]),
             lambda m: m.histogramdd(m.ones(3, 2), [2, 2, 2]),
             lambda m: m.histogramdd(m.ones(3, 2), [m.ones(2)] * 3),
             lambda m: m.histogramdd(m.ones(3, 2), [2, 0]),
             lambda m: m.histogramdd(m.ones(3, 2), [2, 2], range=[0.0, 1.0]),
             lambda m: m.histogramdd(m.ones(3, 2), [2, 2], range=[1.0, 0.0, 0.0, 1.0]),
             lambda m: m.histogramdd(m.ones(3, 2, dtype=m.float64), [2, 2], weight=m.ones(3))]
    for call in calls:
        with pytest.raises(RuntimeError) as te:
            call(torch)
        with pytest.raises(RuntimeError) as ee:
            call(ember)
        assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
def test_geqrf_and_ormqr(shape):
    for dtype in ("float64", "complex128", "float32"):
        A = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if "complex" in dtype else 0)
        te, tt = torch.geqrf(torch.tensor(A, dtype=getattr(torch, dtype)))
        ea, et = ember.geqrf(ember.tensor(A, dtype=getattr(ember, dtype)))
        kw = {"atol": 1e-4, "rtol": 1e-4} if dtype == "float32" else {}
        _close(ea, te, **kw)
        _close(et, tt, **kw)
        assert ember.tensor(A, dtype=getattr(ember, dtype)).geqrf().tau.shape == tt.shape
        if shape[-2] < shape[-1]:
            continue
        m = shape[-2]
        for left in (True, False):
            for transpose in (True, False):
                C = RNG.standard_normal(shape[:-2] + ((m, 2) if left else (2, m)))
                ce = ember.tensor(C, dtype=getattr(ember, dtype), requires_grad=True)
                ct = torch.tensor(C, dtype=getattr(torch, dtype), requires_grad=True)
                ae = ea.detach().requires_grad_(True)
                at = te.detach().requires_grad_(True)
                re_ = ember.ormqr(ae, et, ce, left, transpose)
                rt = torch.ormqr(at, tt, ct, left, transpose)
                _close(re_, rt, **kw)
                assert ea.ormqr(et, ce, left, transpose).shape == rt.shape
                if dtype == "float64":
                    re_.sum().backward()
                    rt.sum().backward()
                    _close(ce.grad, ct.grad)
                    _close(ae.grad, at.grad)


def test_geqrf_errors_and_no_gradient():
    for make in (lambda m: m.ones(3), lambda m: m.ones(3, 3, dtype=m.int64)):
        with pytest.raises(RuntimeError) as te:
            torch.geqrf(make(torch))
        with pytest.raises(RuntimeError) as ee:
            ember.geqrf(make(ember))
        assert str(ee.value) == str(te.value)
    x = ember.ones(3, 3, requires_grad=True)
    assert not ember.geqrf(x)[0].requires_grad
    assert ember.geqrf(ember.ones(0, 3))[1].shape == torch.geqrf(torch.ones(0, 3))[1].shape


def test_svd_and_pca_lowrank():
    rng = np.random.default_rng(5)
    for shape, q in (((8, 6), 3), ((6, 9), 3), ((2, 7, 5), 2)):
        base = rng.standard_normal(shape[:-1] + (q,)) @ rng.standard_normal(shape[:-2] + (q, shape[-1]))
        U, S, V = ember.svd_lowrank(ember.tensor(base), q=q)
        St = torch.svd_lowrank(torch.tensor(base), q=q)[1]
        _close(S, St)
        assert U.shape == torch.Size(shape[:-1] + (q,)) and V.shape == torch.Size(shape[:-2] + (shape[-1], q))
        _close((U * S.unsqueeze(-2)) @ V.mT, torch.tensor(base), atol=1e-8, rtol=1e-8)
    A = rng.standard_normal((10, 3)) @ rng.standard_normal((3, 5)) + 2.0
    _close(ember.pca_lowrank(ember.tensor(A), q=3)[1], torch.pca_lowrank(torch.tensor(A), q=3)[1])
    A0 = A - 2.0  # rank 3: q=4 captures it exactly whatever the random draw
    _close(ember.pca_lowrank(ember.tensor(A0), q=4, center=False)[1][:3],
           torch.pca_lowrank(torch.tensor(A0), q=4, center=False)[1][:3])
    M = rng.standard_normal((10, 5))
    _close(ember.svd_lowrank(ember.tensor(A0 + M), q=3, M=ember.tensor(M))[1],
           torch.svd_lowrank(torch.tensor(A0 + M), q=3, M=torch.tensor(M))[1])
    with pytest.raises(ValueError) as te:
        torch.pca_lowrank(torch.ones(6, 5), q=7)
    with pytest.raises(ValueError) as ee:
        ember.pca_lowrank(ember.ones(6, 5), q=7)
    assert str(ee.value) == str(te.value)
    x = ember.tensor(A, requires_grad=True)
    ember.svd_lowrank(x, q=3)[1].sum().backward()  # differentiable like torch's
    assert x.grad.shape == x.shape


def test_late_methods_match_torch():
    a = RNG.standard_normal((3, 4))
    e, t = ember.tensor(a), torch.tensor(a)
    _close(e.hardshrink(0.3), t.hardshrink(0.3))
    _close(e.prelu(ember.tensor([0.2])), t.prelu(torch.tensor([0.2], dtype=torch.float64)))
    b1, b2 = RNG.standard_normal((2, 3, 5)), RNG.standard_normal((2, 5, 4))
    assert e.addbmm_(ember.tensor(b1), ember.tensor(b2), beta=0.5, alpha=2.0) is e
    t.addbmm_(torch.tensor(b1), torch.tensor(b2), beta=0.5, alpha=2.0)
    _close(e, t)
    A = RNG.standard_normal((4, 3))
    ae, te = ember.geqrf(ember.tensor(A)), torch.geqrf(torch.tensor(A))
    _close(ae.a.orgqr(ae.tau), te.a.orgqr(te.tau))
    sig = RNG.standard_normal(64)
    se = ember.tensor(sig).stft(16, window=ember.hann_window(16, dtype=ember.float64),
                                return_complex=True)
    st = torch.tensor(sig).stft(16, window=torch.hann_window(16, dtype=torch.float64),
                                return_complex=True)
    _close(se, st)
    _close(se.istft(16, window=ember.hann_window(16, dtype=ember.float64), length=64),
           st.istft(16, window=torch.hann_window(16, dtype=torch.float64), length=64))


def test_dim_order_matches_torch():
    def cases(m):
        return [m.empty(2, 3, 4), m.empty(2, 3, 4).permute(2, 0, 1), m.empty(1, 3, 1, 4),
                m.empty(3, 1).expand(3, 4), m.empty(2, 1, 3).permute(1, 0, 2), m.empty(()),
                m.empty(4, 3)[:, ::2], m.empty(2, 3, 4, 5).permute(0, 2, 3, 1)]
    for e, t in zip(cases(ember), cases(torch)):
        assert e.stride() == t.stride()
        assert e.dim_order() == t.dim_order()
        try:
            expected = t.dim_order(ambiguity_check=True)
        except RuntimeError as err:
            with pytest.raises(RuntimeError) as got:
                e.dim_order(ambiguity_check=True)
            assert str(got.value) == str(err)
        else:
            assert e.dim_order(ambiguity_check=True) == expected
