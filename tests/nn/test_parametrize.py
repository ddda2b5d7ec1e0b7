"""Parametrizations (register/remove/cached, weight_norm, spectral_norm, orthogonal), fusion and
functional_call, against torch where torch defines the numbers."""
import numpy as np
import pytest
import torch
import torch.nn.utils.parametrizations as TP

import ember
from ember import nn
from ember.nn.utils import parametrizations as EP
from ember.nn.utils import parametrize as P
from ember.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from ember.nn.utils.stateless import functional_call

from ._modcheck import check_module


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


def test_register_remove_and_cache():
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and P.is_parametrized(m, "weight")
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    w = m.weight
    assert bool((w == w.T).all())
    m.weight = ember.eye(3) * 2  # goes through right_inverse
    assert m.weight.tolist() == (ember.eye(3) * 2).tolist()
    with P.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    m.weight.sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    assert list(m.state_dict()) == ["bias", "weight"]  # re-registered last, as in torch
    assert P.type_before_parametrizations(m) is nn.Linear
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(m, "weight")


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    torch.manual_seed(0)
    tm, em = TP.weight_norm(torch.nn.Conv1d(3, 4, 2), dim=dim), EP.weight_norm(nn.Conv1d(3, 4, 2), dim=dim)
    check_module(tm, em, [torch.randn(2, 3, 5, requires_grad=True)], rtol=1e-5, atol=1e-5)


def test_weight_norm_loads_old_keys():
    m = EP.weight_norm(nn.Linear(3, 2))
    old = {"weight_g": ember.ones(2, 1), "weight_v": ember.ones(2, 3), "bias": ember.zeros(2)}
    m.load_state_dict(old)
    np.testing.assert_allclose(m.weight.detach().numpy(), np.full((2, 3), 1 / np.sqrt(3)), rtol=1e-6)


def test_spectral_norm_matches_torch():
    torch.manual_seed(1)
    tm = TP.spectral_norm(torch.nn.Linear(5, 4))
    ember.manual_seed(1)
    em = EP.spectral_norm(nn.Linear(5, 4))
    assert list(em.state_dict()) == list(tm.state_dict())
    # torch's u, v come with the copied state dict: the power iterations then agree
    check_module(tm, em, [torch.randn(3, 5, requires_grad=True)], rtol=1e-4, atol=1e-5)
    w = em.eval().weight.detach().numpy()
    assert np.linalg.svd(w, compute_uv=False)[0] == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize("shape,orth_map", [((4, 4), None), ((5, 3), None), ((3, 5), "cayley"),
                                            ((4, 4), "householder"), ((6, 3), "matrix_exp")])
def test_orthogonal(shape, orth_map):
    m = nn.Linear(shape[1], shape[0])
    EP.orthogonal(m, orthogonal_map=orth_map)
    Q = m.weight.detach().numpy().astype(np.float64)
    gram = Q.T @ Q if shape[0] >= shape[1] else Q @ Q.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-5)
    m.weight.sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    assert repr(m) == repr(TP.orthogonal(torch.nn.Linear(shape[1], shape[0]), orthogonal_map=orth_map))


def test_fuse_conv_bn_and_linear_bn():
    torch.manual_seed(2)
    conv, bn = nn.Conv2d(3, 4, 3).eval(), nn.BatchNorm2d(4).eval()
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    with ember.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
    x = ember.randn(2, 3, 6, 6)
    np.testing.assert_allclose(fuse_conv_bn_eval(conv, bn)(x).detach().numpy(),
                               bn(conv(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    lin, bn1 = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
    bn1.running_var.uniform_(0.5, 2)
    x = ember.randn(5, 3)
    np.testing.assert_allclose(fuse_linear_bn_eval(lin, bn1)(x).detach().numpy(),
                               bn1(lin(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        fuse_conv_bn_eval(conv.train(), bn)


def test_functional_call():
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    w = ember.ones(3, 2, requires_grad=True)
    x = ember.randn(4, 2)
    out = functional_call(m, {"0.weight": w}, (x,))
    ref = nn.functional.batch_norm(x @ w.T + m[0].bias, None, None, m[1].weight, m[1].bias, True)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    assert w.grad is not None and m[0].weight.grad is None
    assert m[0].weight is m._modules["0"]._parameters["weight"] and m[0].weight.shape == (3, 2)
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(m, ({"0.bias": ember.zeros(3)}, {"0.bias": ember.zeros(3)}), x)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        functional_call(m, {"nope": ember.zeros(3)}, x, strict=True)
    # tied weights are replaced under every name
    tied = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Linear(2, 2, bias=False))
    tied[1].weight = tied[0].weight
    y = functional_call(tied, {"0.weight": ember.eye(2)}, (ember.tensor([[1.0, 2.0]]),))
    assert y.tolist() == [[1.0, 2.0]]
    tt = torch.nn.Sequential(torch.nn.Linear(2, 2, bias=False), torch.nn.Linear(2, 2, bias=False))
    tt[1].weight = tt[0].weight
    assert torch.func.functional_call(tt, {"0.weight": torch.eye(2)},
                                      (torch.tensor([[1.0, 2.0]]),)).tolist() == [[1.0, 2.0]]
