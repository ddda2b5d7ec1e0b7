"""The nll_loss/cross_entropy primitives against torch and the composite reference (values, gradients)."""
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

from ._helpers import TF, assert_close, compare_functional, randn64, to_ember

R = ["mean", "sum", "none"]


def _nll_ref(logp, target, weight=None):
    """The composite reference nll (mean) the primitive replaced: gather + weighted mean."""
    picked = logp.gather(1, target.unsqueeze(1)).squeeze(1)
    if weight is None:
        return -picked.mean()
    w = weight[target]
    return -(picked * w).sum() / w.sum()


@pytest.mark.parametrize("reduction", R)
@pytest.mark.parametrize("opts", [{}, {"ignore_index": 1}, {"weight": True}, {"label_smoothing": 0.2},
                                  {"weight": True, "ignore_index": 0, "label_smoothing": 0.1}])
def test_cross_entropy_and_nll_primitives(reduction, opts):
    x, t = randn64(6, 4), torch.tensor([0, 1, 3, 1, 2, 1])
    kw = dict(opts, reduction=reduction)
    if kw.pop("weight", None):
        kw["weight"] = torch.rand(4, dtype=torch.float64) + 0.5
    ekw = {k: to_ember(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
    out_t = TF.cross_entropy(x, t, **kw)
    ex = to_ember(x)
    out_e = F.cross_entropy(ex, to_ember(t), **ekw)
    assert_close(out_e, out_t)
    g = torch.randn(out_t.shape, dtype=out_t.dtype)
    out_t.backward(g)
    out_e.backward(to_ember(g))
    assert_close(ex.grad, x.grad)
    kw.pop("label_smoothing", None)
    compare_functional("nll_loss", [x, t], **kw)


def test_nll_spatial_1d_errors_and_composite_reference():
    compare_functional("nll_loss", [randn64(2, 3, 4, 5), torch.randint(0, 3, (2, 4, 5))])
    compare_functional("nll_loss", [randn64(3), torch.tensor(1)])
    compare_functional("cross_entropy", [randn64(2, 3, 4), torch.randint(0, 3, (2, 4))], reduction="none")
    compare_functional("cross_entropy",
                       [randn64(3, 5), torch.softmax(torch.randn(3, 5, dtype=torch.float64), 1)],
                       label_smoothing=0.3)
    x, t = ember.randn(5, 4, dtype=ember.float64), ember.tensor([0, 3, 2, 2, 1])
    w = ember.rand(4, dtype=ember.float64)
    assert_close(F.nll_loss(x, t), _nll_ref(x, t))
    assert_close(F.nll_loss(x, t, w), _nll_ref(x, t, w))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.nll_loss(x, ember.tensor([0, 1, 7, 0, 0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(5\) to match target batch_size"):
        F.nll_loss(x, ember.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.nll_loss(x, t.to(ember.int32))
    assert F.nll_loss(x, ember.full((5,), -100)).isnan().item()


def test_cross_entropy_extreme_logits_and_gradgrad():
    compare_functional("cross_entropy",
                       [torch.tensor([[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]], requires_grad=True),
                        torch.tensor([1, 2])])
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    t = ember.tensor([0, 3, 1])
    assert gradcheck(lambda a: F.cross_entropy(a, t), (x,))
    assert gradgradcheck(lambda a: F.cross_entropy(a, t, reduction="none"), (x,))
