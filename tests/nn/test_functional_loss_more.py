"""The remaining losses and the nll_loss/cross_entropy primitives against torch (values, gradients)."""
import warnings

import pytest
import torch

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

from ._helpers import assert_close, to_ember

TF = torch.nn.functional
R = ["mean", "sum", "none"]


def _run(name, tensors, rtol=1e-5, atol=1e-6, **kw):
    tt = [t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
          for t in tensors]
    et = [to_ember(t) if isinstance(t, torch.Tensor) else t for t in tt]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ekw = {k: to_ember(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
        out_t, out_e = getattr(TF, name)(*tt, **kw), getattr(F, name)(*et, **ekw)
    assert_close(out_e, out_t, rtol, atol)
    if out_t.requires_grad:
        g = torch.randn(out_t.shape, dtype=out_t.dtype)
        out_t.backward(g)
        out_e.backward(to_ember(g))
        for a, b in zip(et, tt):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                assert_close(a.grad, b.grad, rtol, atol)


def _r(*shape, grad=True):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=grad)


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
    x, t = _r(6, 4), torch.tensor([0, 1, 3, 1, 2, 1])
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
    _run("nll_loss", [x, t], **kw)


def test_nll_spatial_1d_errors_and_composite_reference():
    _run("nll_loss", [_r(2, 3, 4, 5), torch.randint(0, 3, (2, 4, 5))])
    _run("nll_loss", [_r(3), torch.tensor(1)])
    _run("cross_entropy", [_r(2, 3, 4), torch.randint(0, 3, (2, 4))], reduction="none")
    _run("cross_entropy", [_r(3, 5), torch.softmax(torch.randn(3, 5, dtype=torch.float64), 1)],
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
    _run("cross_entropy", [torch.tensor([[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]], requires_grad=True),
                           torch.tensor([1, 2])])
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    t = ember.tensor([0, 3, 1])
    assert gradcheck(lambda a: F.cross_entropy(a, t), (x,))
    assert gradgradcheck(lambda a: F.cross_entropy(a, t, reduction="none"), (x,))


@pytest.mark.parametrize("reduction", R + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = torch.log_softmax(torch.randn(3, 4, dtype=torch.float64), 1).requires_grad_()
    t = torch.softmax(torch.randn(3, 4, dtype=torch.float64), 1)
    t = (t.log() if log_target else t).requires_grad_()
    _run("kl_div", [x, t], reduction=reduction, log_target=log_target)


@pytest.mark.parametrize("reduction", R)
def test_pointwise_losses(reduction):
    x, t = _r(4, 5), _r(4, 5)
    pos = torch.rand(4, 5, dtype=torch.float64) * 3
    for log_input, full in ((True, False), (False, True), (True, True)):
        inp = x if log_input else (pos + 0.1).requires_grad_()
        _run("poisson_nll_loss", [inp, pos], log_input=log_input, full=full, reduction=reduction)
    var = (torch.rand(4, 5, dtype=torch.float64) + 0.1).requires_grad_()
    _run("gaussian_nll_loss", [x, t, var], reduction=reduction)
    _run("gaussian_nll_loss", [x, t, (torch.rand(4, 1, dtype=torch.float64)).requires_grad_()],
         full=True, reduction=reduction)
    sign = torch.randint(0, 2, (4, 5)).double() * 2 - 1
    _run("soft_margin_loss", [x, sign], reduction=reduction)
    _run("hinge_embedding_loss", [x, sign], margin=0.5, reduction=reduction)
    _run("multilabel_soft_margin_loss", [x, (sign > 0).double()], reduction=reduction)
    _run("multilabel_soft_margin_loss", [x, (sign > 0).double(), torch.rand(5, dtype=torch.float64)],
         reduction=reduction)
    _run("margin_ranking_loss", [_r(6), _r(6), torch.tensor([1., -1, 1, 1, -1, -1],
                                                               dtype=torch.float64)],
         margin=0.2, reduction=reduction)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(ember.ones(3, 4), ember.ones(3, 4), ember.ones(2))


@pytest.mark.parametrize("reduction", R)
def test_margin_losses(reduction):
    x = _r(3, 5)
    _run("multi_margin_loss", [x, torch.tensor([1, 0, 4])], reduction=reduction)
    _run("multi_margin_loss", [x, torch.tensor([1, 0, 4])], p=2, margin=0.7,
         weight=torch.rand(5, dtype=torch.float64), reduction=reduction)
    tgt = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 4, 0, -1], [-1, 1, 2, 3, 4]])
    _run("multilabel_margin_loss", [x, tgt], reduction=reduction)
    _run("cosine_embedding_loss", [_r(4, 3), _r(4, 3), torch.tensor([1, -1, 1, -1])], margin=0.1,
         reduction=reduction)
    a, p, n = _r(4, 3), _r(4, 3), _r(4, 3)
    _run("triplet_margin_loss", [a, p, n], reduction=reduction)
    _run("triplet_margin_loss", [a, p, n], p=1, swap=True, margin=0.5, reduction=reduction)
    _run("triplet_margin_with_distance_loss", [a, p, n], reduction=reduction)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(ember.ones(2, 3), ember.tensor([0, 1]), p=3)


@pytest.mark.parametrize("reduction", R)
@pytest.mark.parametrize("concat", [False, True])
def test_ctc_loss(reduction, concat):
    torch.manual_seed(0)
    T, N, C = 7, 3, 5
    lp = torch.randn(T, N, C, dtype=torch.float64).log_softmax(2).detach().requires_grad_()
    il = torch.tensor([7, 5, 6])
    tl = torch.tensor([3, 2, 0])
    padded = torch.tensor([[1, 2, 2], [3, 1, 0], [0, 0, 0]])
    targets = torch.cat([padded[i, :tl[i]] for i in range(N)]) if concat else padded
    _run("ctc_loss", [lp, targets, il, tl], reduction=reduction)


def test_ctc_impossible_and_float32():
    lp = torch.randn(2, 1, 4).log_softmax(2).requires_grad_()
    tgt, il, tl = torch.tensor([[1, 1, 1]]), torch.tensor([2]), torch.tensor([3])
    # an impossible alignment: inf as torch (torch's gradient there is NaN, ours is zero)
    out = F.ctc_loss(to_ember(lp), to_ember(tgt), to_ember(il), to_ember(tl), reduction="sum")
    assert_close(out, TF.ctc_loss(lp, tgt, il, tl, reduction="sum"))
    _run("ctc_loss", [lp, tgt, il, tl], reduction="sum", zero_infinity=True)
    lp = torch.randn(6, 2, 4).log_softmax(2).requires_grad_()
    _run("ctc_loss", [lp, torch.tensor([[1, 2], [3, 3]]), torch.tensor([6, 6]), torch.tensor([2, 2])],
         rtol=1e-4, atol=1e-5)
