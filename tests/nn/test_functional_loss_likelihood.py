"""kl_div, poisson/gaussian nll and ctc_loss against torch (values, gradients)."""
import pytest
import torch

import ember
import ember.nn.functional as F

from ._helpers import TF, assert_close, compare_functional, randn64, to_ember

R = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", R + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = torch.log_softmax(torch.randn(3, 4, dtype=torch.float64), 1).requires_grad_()
    t = torch.softmax(torch.randn(3, 4, dtype=torch.float64), 1)
    t = (t.log() if log_target else t).requires_grad_()
    compare_functional("kl_div", [x, t], reduction=reduction, log_target=log_target)


@pytest.mark.parametrize("reduction", R)
def test_poisson_and_gaussian_nll_losses(reduction):
    x, t = randn64(4, 5), randn64(4, 5)
    pos = torch.rand(4, 5, dtype=torch.float64) * 3
    for log_input, full in ((True, False), (False, True), (True, True)):
        inp = x if log_input else (pos + 0.1).requires_grad_()
        compare_functional("poisson_nll_loss", [inp, pos], log_input=log_input, full=full,
                           reduction=reduction)
    var = (torch.rand(4, 5, dtype=torch.float64) + 0.1).requires_grad_()
    compare_functional("gaussian_nll_loss", [x, t, var], reduction=reduction)
    compare_functional("gaussian_nll_loss", [x, t, (torch.rand(4, 1, dtype=torch.float64)).requires_grad_()],
                       full=True, reduction=reduction)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(ember.ones(3, 4), ember.ones(3, 4), ember.ones(2))


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
    compare_functional("ctc_loss", [lp, targets, il, tl], reduction=reduction)


def test_ctc_impossible_and_float32():
    lp = torch.randn(2, 1, 4).log_softmax(2).requires_grad_()
    tgt, il, tl = torch.tensor([[1, 1, 1]]), torch.tensor([2]), torch.tensor([3])
    # an impossible alignment: inf as torch (torch's gradient there is NaN, ours is zero)
    out = F.ctc_loss(to_ember(lp), to_ember(tgt), to_ember(il), to_ember(tl), reduction="sum")
    assert_close(out, TF.ctc_loss(lp, tgt, il, tl, reduction="sum"))
    compare_functional("ctc_loss", [lp, tgt, il, tl], reduction="sum", zero_infinity=True)
    lp = torch.randn(6, 2, 4).log_softmax(2).requires_grad_()
    compare_functional("ctc_loss",
                       [lp, torch.tensor([[1, 2], [3, 3]]), torch.tensor([6, 6]), torch.tensor([2, 2])],
                       rtol=1e-4, atol=1e-5)
