"""Normalisation functions and the softmax/log_softmax/nll/layer_norm primitives against torch."""
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

from ._helpers import assert_close, to_ember

TF = torch.nn.functional


def _run(fe, ft, tensors, rtol=1e-5, atol=1e-6, **kw):
    """Forward and backward of ``fe``/``ft`` on copies of ``tensors`` (those requiring grad)."""
    tt = [t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t for t in tensors]
    et = [to_ember(t) if isinstance(t, torch.Tensor) else t for t in tt]
    out_t, out_e = ft(*tt, **kw), fe(*et, **kw)
    assert_close(out_e, out_t, rtol, atol)
    g = torch.randn(out_t.shape, dtype=out_t.dtype)
    if out_t.requires_grad:
        out_t.backward(g)
        out_e.backward(to_ember(g))
        for a, b in zip(et, tt):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                assert_close(a.grad, b.grad, rtol, atol)
    return et, tt


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax(dtype, dim):
    x = torch.randn(4, 5, 3, dtype=dtype, requires_grad=True)
    _run(F.softmax, TF.softmax, [x], dim=dim)
    _run(F.log_softmax, TF.log_softmax, [x], dim=dim)
    _run(F.softmin, TF.softmin, [x], dim=dim)


def test_softmax_extremes_and_errors():
    x = torch.tensor([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4]], requires_grad=True)
    _run(F.log_softmax, TF.log_softmax, [x], dim=1)
    _run(F.softmax, TF.softmax, [x], dim=1)
    assert_close(F.softmax(ember.tensor(2.0), 0), TF.softmax(torch.tensor(2.0), 0))
    assert_close(F.softmax(to_ember(torch.ones(2, 3)), 1, dtype=ember.float64),
                 TF.softmax(torch.ones(2, 3), 1, dtype=torch.float64))
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.softmax(ember.ones(2, 3), 2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.softmax(ember.tensor([1, 2]), 0)
    assert type(F.softmax(ember.ones(2, requires_grad=True), 0).grad_fn).__name__ == "SoftmaxBackward0"


def test_softmax_gradgrad():
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    for f in (F.softmax, F.log_softmax):
        assert gradcheck(lambda t: f(t, 1), (x,))
        assert gradgradcheck(lambda t: f(t, 0), (x,))


def _log_softmax_ref(x, dim):
    """The composite the primitive replaced: x - logsumexp(x)."""
    return x - x.logsumexp(dim, keepdim=True)


def test_log_softmax_matches_composite():
    x = ember.randn(6, 7, dtype=ember.float64, requires_grad=True)
    a, b = F.log_softmax(x, 1), _log_softmax_ref(x, 1)
    assert_close(a, b.detach() if False else b)
    ga, = ember.autograd.grad(a.sin().sum(), x)
    gb, = ember.autograd.grad(b.sin().sum(), x)
    assert_close(ga, gb)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(dtype, affine):
    x = torch.randn(4, 3, 5, dtype=dtype, requires_grad=True)
    w = torch.randn(3, 5, dtype=dtype, requires_grad=True) if affine else None
    b = torch.randn(3, 5, dtype=dtype, requires_grad=True) if affine else None
    _run(F.layer_norm, TF.layer_norm, [x, (3, 5), w, b], rtol=1e-4, atol=1e-5)
    _run(F.layer_norm, TF.layer_norm, [x, (5,)], rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError, match="Given normalized_shape"):
        F.layer_norm(to_ember(x), (4,))


def test_layer_norm_gradcheck_and_gradgrad():
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    w = ember.randn(4, dtype=ember.float64, requires_grad=True)
    b = ember.randn(4, dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda *a: F.layer_norm(a[0], (4,), a[1], a[2]), (x, w, b))
    assert gradgradcheck(lambda *a: F.layer_norm(a[0], (4,), a[1], a[2]), (x, w, b))
    assert gradgradcheck(lambda t: F.layer_norm(t, (3, 4)), (x,))


def test_rms_norm_and_normalize():
    x = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    w = torch.randn(6, dtype=torch.float64, requires_grad=True)
    _run(F.rms_norm, TF.rms_norm, [x, (6,), w])
    _run(F.rms_norm, TF.rms_norm, [x, (6,), None, 1e-3])
    _run(F.normalize, TF.normalize, [x], p=3.0, dim=0)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batch_norm_training_updates_running_stats(shape, momentum):
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    rm, rv = torch.randn(3, dtype=torch.float64), torch.rand(3, dtype=torch.float64) + 0.5
    erm, erv = to_ember(rm), to_ember(rv)
    out_t = TF.batch_norm(x, rm, rv, w, b, True, momentum)
    ex, ew, eb = to_ember(x), to_ember(w), to_ember(b)
    out_e = F.batch_norm(ex, erm, erv, ew, eb, True, momentum)
    assert_close(out_e, out_t)
    assert_close(erm, rm)
    assert_close(erv, rv)
    g = torch.randn(shape, dtype=torch.float64)
    out_t.backward(g)
    out_e.backward(to_ember(g))
    for a, t in ((ex, x), (ew, w), (eb, b)):
        assert_close(a.grad, t.grad)
    # eval mode uses the running stats
    assert_close(F.batch_norm(ex, erm, erv, ew, eb, False), TF.batch_norm(x, rm, rv, w, b, False))


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(ember.ones(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 2"):
        F.batch_norm(ember.ones(2, 3), ember.zeros(2), ember.ones(2))


def test_group_and_instance_norm():
    x = torch.randn(2, 6, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(6, dtype=torch.float64, requires_grad=True)
    b = torch.randn(6, dtype=torch.float64, requires_grad=True)
    _run(F.group_norm, TF.group_norm, [x, 3, w, b])
    _run(F.group_norm, TF.group_norm, [x, 6])
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(to_ember(x), 4)
    _run(F.instance_norm, TF.instance_norm, [x, None, None, w, b])
    rm, rv = torch.zeros(6, dtype=torch.float64), torch.ones(6, dtype=torch.float64)
    erm, erv = to_ember(rm), to_ember(rv)
    assert_close(F.instance_norm(to_ember(x), erm, erv), TF.instance_norm(x, rm, rv))
    assert_close(erm, rm)
    assert_close(erv, rv)
    assert_close(F.instance_norm(to_ember(x), erm, erv, use_input_stats=False),
                 TF.instance_norm(x, rm, rv, use_input_stats=False))


def test_local_response_norm():
    x = torch.randn(2, 7, 4, dtype=torch.float64, requires_grad=True)
    _run(F.local_response_norm, TF.local_response_norm, [x, 3])
    x4 = torch.randn(2, 5, 3, 3, dtype=torch.float64, requires_grad=True)
    _run(F.local_response_norm, TF.local_response_norm, [x4, 4], alpha=0.1, beta=0.5, k=2.0)
    with pytest.raises(ValueError, match="Expected 3D or higher"):
        F.local_response_norm(ember.ones(2, 3), 2)
