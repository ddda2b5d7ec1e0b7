"""Linear, Bilinear, Identity, LayerNorm, Embedding, Flatten against torch (weights copied)."""
import pytest
import torch

import ember
from ember import nn

from ._helpers import assert_close, copy_module_params, to_ember


def _check(em, tm, *inputs, rtol=1e-5, atol=1e-6):
    copy_module_params(em, tm)
    assert repr(em) == repr(tm)
    ein = [to_ember(x) for x in inputs]
    tout, eout = tm(*inputs), em(*ein)
    assert_close(eout, tout, rtol=rtol, atol=atol)
    if not tout.requires_grad:
        return
    g = torch.randn(tout.shape, dtype=tout.dtype)
    tout.backward(g)
    eout.backward(to_ember(g))
    for e, t in zip(ein, inputs):
        if t.requires_grad:
            assert_close(e.grad, t.grad, rtol=rtol, atol=atol)
    for (name, ep), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        if tp.requires_grad:
            assert_close(ep.grad, tp.grad, rtol=rtol, atol=atol)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 3), (3,)])
def test_linear(bias, shape):
    torch.manual_seed(0)
    _check(nn.Linear(3, 4, bias=bias), torch.nn.Linear(3, 4, bias=bias),
           torch.randn(*shape, requires_grad=True))


def test_linear_double_and_dtype_arg():
    m = nn.Linear(3, 2, dtype=ember.float64)
    assert m.weight.dtype == ember.float64 and m.bias.dtype == ember.float64
    torch.manual_seed(0)
    _check(m, torch.nn.Linear(3, 2, dtype=torch.float64),
           torch.randn(4, 3, dtype=torch.float64, requires_grad=True), rtol=1e-12, atol=1e-12)


def test_linear_shape_error():
    with pytest.raises(RuntimeError):
        nn.Linear(3, 2)(ember.ones(4, 5))


def test_bilinear():
    torch.manual_seed(0)
    _check(nn.Bilinear(3, 2, 4), torch.nn.Bilinear(3, 2, 4), torch.randn(5, 3, requires_grad=True),
           torch.randn(5, 2, requires_grad=True))


def test_identity():
    m = nn.Identity(54, unused="x")
    x = ember.ones(2)
    assert m(x) is x and repr(m) == repr(torch.nn.Identity())


@pytest.mark.parametrize("args,kwargs", [((4,), {}), (((3, 4),), {"eps": 1e-3}),
                                         ((4,), {"elementwise_affine": False}),
                                         ((4,), {"bias": False})])
def test_layer_norm(args, kwargs):
    torch.manual_seed(0)
    tm = torch.nn.LayerNorm(*args, **kwargs)
    with torch.no_grad():
        for p in tm.parameters():
            p.add_(torch.randn(p.shape) * 0.1)
    _check(nn.LayerNorm(*args, **kwargs), tm, (torch.randn(2, 3, 4) * 3).requires_grad_())


def test_layer_norm_default_init_and_error():
    m = nn.LayerNorm(3)
    assert m.weight.tolist() == [1.0, 1.0, 1.0] and m.bias.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="normalized_shape"):
        m(ember.ones(2, 4))


def test_rms_norm():
    torch.manual_seed(0)
    _check(nn.RMSNorm(4), torch.nn.RMSNorm(4), torch.randn(3, 4, requires_grad=True))


@pytest.mark.parametrize("padding_idx", [None, 0, -1])
def test_embedding(padding_idx):
    torch.manual_seed(0)
    tm = torch.nn.Embedding(6, 3, padding_idx=padding_idx)
    em = nn.Embedding(6, 3, padding_idx=padding_idx)
    if padding_idx is not None:
        assert em.weight[padding_idx].tolist() == [0.0, 0.0, 0.0]
    idx = torch.tensor([[0, 2, 5], [5, 5, 1]])
    copy_module_params(em, tm)
    assert repr(em) == repr(tm)
    eout, tout = em(to_ember(idx)), tm(idx)
    assert_close(eout, tout)
    g = torch.randn(tout.shape)
    tout.backward(g)
    eout.backward(to_ember(g))
    assert_close(em.weight.grad, tm.weight.grad)


def test_embedding_from_pretrained_and_dtype_error():
    w = ember.arange(6.).view(3, 2)
    m = nn.Embedding.from_pretrained(w)
    assert not m.weight.requires_grad and m(ember.tensor([2])).tolist() == [[4.0, 5.0]]
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices'"):
        m(ember.tensor([1.0]))


def test_flatten_unflatten():
    x = torch.randn(2, 3, 4, 5)
    _check(nn.Flatten(), torch.nn.Flatten(), x.clone().requires_grad_())
    _check(nn.Flatten(0, 2), torch.nn.Flatten(0, 2), x.clone().requires_grad_())
    _check(nn.Unflatten(1, (3, 1)), torch.nn.Unflatten(1, (3, 1)), x.clone().requires_grad_())
    with pytest.raises(TypeError):
        nn.Unflatten(1, 3)


def test_default_linear_init_statistics():
    m = nn.Linear(400, 300)
    bound = 1 / 400 ** 0.5
    w = m.weight.reshape(-1).tolist()
    assert max(w) <= bound and min(w) >= -bound
    var = sum(v * v for v in w) / len(w)
    assert abs(var - bound ** 2 / 3) < 0.05 * bound ** 2 / 3
    b = m.bias.tolist()
    assert max(b) <= bound and min(b) >= -bound
    e = nn.Embedding(300, 200).weight.reshape(-1).tolist()
    mean = sum(e) / len(e)
    # N(0, 1) samples: 5 standard errors of the mean (1/sqrt(n)) and of the variance (sqrt(2/n))
    n = len(e)
    assert abs(mean) < 5 / n ** 0.5 and abs(sum(v * v for v in e) / n - 1) < 5 * (2 / n) ** 0.5
