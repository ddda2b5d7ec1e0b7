"""nn.functional pieces not covered by module tests: dropout, one_hot, embedding, normalize, pad."""
import pytest
import torch

import ember
import ember.nn.functional as F
from ember import nn

from ._helpers import assert_close, to_ember


def test_dropout_statistics_and_scaling():
    ember.manual_seed(0)
    x = ember.ones(200, 100, requires_grad=True)
    out = F.dropout(x, p=0.3)
    vals = out.reshape(-1).tolist()
    kept = [v for v in vals if v != 0]
    assert abs(len(kept) / len(vals) - 0.7) < 0.02
    assert all(abs(v - 1 / 0.7) < 1e-6 for v in kept)
    out.sum().backward()
    assert x.grad.reshape(-1).tolist() == [v for v in vals]   # grad is the scaled mask


def test_dropout_modes():
    x = ember.ones(4)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 1.0).tolist() == [0.0] * 4
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    m = nn.Dropout(0.5)
    assert m.eval()(x) is x
    y = ember.ones(1000)
    F.dropout(y, 0.5, inplace=True)
    assert 0 < sum(1 for v in y.tolist() if v == 0) < 1000


def test_one_hot():
    t = torch.tensor([[0, 3], [1, 2]])
    assert_close(F.one_hot(to_ember(t)), torch.nn.functional.one_hot(t))
    assert_close(F.one_hot(to_ember(t), 6), torch.nn.functional.one_hot(t, 6))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        F.one_hot(ember.ones(2))


def test_embedding_functional_max_norm():
    w = torch.randn(5, 3) * 3
    idx = torch.tensor([0, 2, 2])
    ew = to_ember(w)
    out = F.embedding(to_ember(idx), ew, max_norm=1.0)
    ref = torch.nn.functional.embedding(idx, w, max_norm=1.0)
    assert_close(out, ref, rtol=1e-4, atol=1e-5)
    assert_close(ew, w, rtol=1e-4, atol=1e-5)   # rows renormalised in place


def test_normalize_and_pad():
    x = torch.randn(3, 4, requires_grad=True)
    ex = to_ember(x)
    assert_close(F.normalize(ex, dim=1), torch.nn.functional.normalize(x, dim=1))
    out, ref = F.pad(ex, (1, 2)), torch.nn.functional.pad(x, (1, 2))
    assert_close(out, ref)
    assert_close(F.pad(ex, (0, 1, 2, 0), value=3.0), torch.nn.functional.pad(x, (0, 1, 2, 0), value=3.0))
    g = torch.randn(ref.shape)
    ref.backward(g)
    out.backward(to_ember(g))
    assert_close(ex.grad, x.grad)


def test_linear_functional_and_bilinear():
    x, w, b = torch.randn(2, 3), torch.randn(4, 3), torch.randn(4)
    assert_close(F.linear(to_ember(x), to_ember(w), to_ember(b)), torch.nn.functional.linear(x, w, b))
    assert_close(F.linear(to_ember(x), to_ember(w)), torch.nn.functional.linear(x, w))


def test_functions_have_public_names():
    for name in ("linear", "relu", "softmax", "cross_entropy", "mse_loss", "layer_norm", "dropout"):
        fn = getattr(F, name)
        assert fn.__name__ == name and fn.__module__ == "ember.nn.functional"
