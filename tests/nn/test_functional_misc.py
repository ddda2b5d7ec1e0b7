"""Attention-free extras of nn.functional: activations, embedding(_bag), dropout variants, distances."""
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

from ._helpers import assert_close, compare_functional, randn64, to_ember

TF = torch.nn.functional


def test_activations():
    x = randn64(3, 4)
    compare_functional("softshrink", [x], lambd=0.3)
    compare_functional("hardshrink", [x], lambd=0.3)
    compare_functional("prelu", [x, torch.rand(4, dtype=torch.float64).requires_grad_()])
    compare_functional("prelu", [x, torch.rand(1, dtype=torch.float64).requires_grad_()])
    compare_functional("rrelu", [x])
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(ember.ones(2, 3), ember.ones(2))
    ember.manual_seed(0)
    y = F.rrelu(ember.full((1000,), -1.0), training=True)
    assert all(-1 / 3 <= v <= -1 / 8 for v in y.tolist())
    g = F.gumbel_softmax(ember.randn(5, 4), tau=0.5, hard=True)
    assert g.sum(1).tolist() == [1.0] * 5 and set(g.reshape(-1).tolist()) <= {0.0, 1.0}
    s = F.gumbel_softmax(ember.randn(5, 4))
    assert_close(s.sum(1), torch.ones(5))


def test_embedding_primitive_and_backward():
    w, idx = randn64(10, 3), torch.tensor([[1, 2, 2], [0, 9, 1]])
    compare_functional("embedding", [idx, w])
    compare_functional("embedding", [idx, w], padding_idx=2)
    compare_functional("embedding", [idx, w], scale_grad_by_freq=True)
    ew = ember.randn(6, 3, dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda a: F.embedding(ember.tensor([0, 5, 5]), a), (ew,))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    w = randn64(10, 3)
    inp, off = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 3, 6])
    compare_functional("embedding_bag", [inp, w, off], mode=mode)
    compare_functional("embedding_bag", [inp, w, torch.tensor([0, 3, 3, 6, 8])], mode=mode,
                       include_last_offset=True)
    compare_functional("embedding_bag", [torch.tensor([[1, 2, 4], [4, 3, 2]]), w], mode=mode, padding_idx=4)
    if mode == "sum":
        compare_functional("embedding_bag", [inp, w, off, None, 2, False, "sum", False,
                                             torch.rand(8, dtype=torch.float64).requires_grad_()])
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(ember.tensor([[1, 2]]), ember.ones(5, 2), ember.tensor([0]))


def test_dropout_variants():
    ember.manual_seed(0)
    x = ember.ones(50, 40, 3, 3)
    y = F.dropout2d(x, 0.5)
    per_channel = y.reshape(50, 40, 9)
    assert (per_channel.amax(2) == per_channel.amin(2)).all().item()
    kept = (per_channel[:, :, 0] != 0).to(ember.float32).mean().item()
    assert abs(kept - 0.5) < 0.05 and abs(y.amax().item() - 2.0) < 1e-6
    assert F.dropout1d(ember.ones(3, 4, 5), 0.3).shape == (3, 4, 5)
    assert F.dropout3d(ember.ones(2, 3, 2, 2, 2), 0.3, training=False).tolist() == \
        ember.ones(2, 3, 2, 2, 2).tolist()
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        F.dropout1d(ember.ones(2, 3, 4, 5))
    z = F.alpha_dropout(ember.randn(200000), 0.3, training=True)
    assert abs(z.mean().item()) < 0.02 and abs(z.std().item() - 1) < 0.02
    assert F.alpha_dropout(x, 0.3) is x
    fz = F.feature_alpha_dropout(ember.randn(4, 6, 5), 0.5, training=True)
    assert fz.shape == (4, 6, 5)
    with pytest.raises(ValueError, match="dropout probability"):
        F.alpha_dropout(x, 1.5, training=True)


def _cdist(tensors, p=2.0):
    """ember's cdist (kept in nn.functional; torch has it as torch.cdist) against torch.cdist."""
    tt = [t.detach().clone().requires_grad_() for t in tensors]
    et = [to_ember(t) for t in tt]
    ot, oe = torch.cdist(*tt, p=p), F.cdist(*et, p=p)
    assert_close(oe, ot, 1e-5, 1e-6)
    g = torch.randn(ot.shape, dtype=ot.dtype)
    ot.backward(g)
    oe.backward(to_ember(g))
    for a, b in zip(et, tt):
        assert_close(a.grad, b.grad, 1e-5, 1e-6)


def test_distances():
    a, b = randn64(4, 5), randn64(4, 5)
    compare_functional("cosine_similarity", [a, b])
    compare_functional("cosine_similarity", [randn64(2, 3, 4), randn64(1, 3, 4)], dim=2)
    for p in (1.0, 2.0, 3.0, float("inf")):
        compare_functional("pairwise_distance", [a, b], p=p)
        compare_functional("pdist", [a], p=p)
        _cdist([randn64(2, 4, 3), randn64(2, 6, 3)], p=p)
    compare_functional("pairwise_distance", [a, b], keepdim=True)
    _cdist([randn64(30, 3), randn64(27, 3)])
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns"):
        F.cdist(ember.ones(2, 3), ember.ones(2, 4))
