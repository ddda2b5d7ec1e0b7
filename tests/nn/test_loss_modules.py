"""Loss modules (the ones over nn.functional's extra losses) against torch: values, grads, reprs."""
import pytest
import torch

from ember import nn

from ._modcheck import check_module


def _r(*s):
    return torch.randn(*s, requires_grad=True)


def _sign(*s):
    return torch.randint(0, 2, s).float() * 2 - 1


CASES = [
    ("KLDivLoss", dict(reduction="batchmean"), lambda: [torch.randn(3, 4).log_softmax(1).detach().requires_grad_(),
                                                        torch.rand(3, 4)]),
    ("KLDivLoss", dict(log_target=True, reduction="sum"), lambda: [_r(3, 4), torch.randn(3, 4)]),
    ("PoissonNLLLoss", dict(), lambda: [_r(3, 4), torch.rand(3, 4) * 3]),
    ("PoissonNLLLoss", dict(log_input=False, full=True), lambda: [(torch.rand(3, 4) + 0.1).requires_grad_(),
                                                                  torch.rand(3, 4) * 3]),
    ("GaussianNLLLoss", dict(full=True), lambda: [_r(3, 4), torch.randn(3, 4), (torch.rand(3, 4) + 0.2).requires_grad_()]),
    ("MarginRankingLoss", dict(margin=0.2), lambda: [_r(5), _r(5), _sign(5)]),
    ("HingeEmbeddingLoss", dict(margin=0.5), lambda: [_r(3, 4), _sign(3, 4)]),
    ("CosineEmbeddingLoss", dict(margin=0.1), lambda: [_r(4, 5), _r(4, 5), _sign(4)]),
    ("TripletMarginLoss", dict(margin=0.5, p=1.0, swap=True), lambda: [_r(4, 5), _r(4, 5), _r(4, 5)]),
    ("TripletMarginWithDistanceLoss", dict(), lambda: [_r(4, 5), _r(4, 5), _r(4, 5)]),
    ("MultiLabelSoftMarginLoss", dict(), lambda: [_r(3, 4), torch.randint(0, 2, (3, 4)).float()]),
    ("MultiLabelMarginLoss", dict(), lambda: [_r(2, 4), torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1]])]),
    ("MultiMarginLoss", dict(p=2, margin=0.7), lambda: [_r(3, 4), torch.tensor([0, 3, 1])]),
    ("SoftMarginLoss", dict(reduction="none"), lambda: [_r(3, 4), _sign(3, 4)]),
    ("NLLLoss2d", dict(), lambda: [torch.randn(2, 3, 2, 2).log_softmax(1).detach().requires_grad_(),
                                   torch.randint(0, 3, (2, 2, 2))]),
]


@pytest.mark.parametrize("name,kw,make", CASES, ids=[c[0] + str(i) for i, c in enumerate(CASES)])
def test_loss_module_matches_torch(name, kw, make):
    torch.manual_seed(0)
    check_module(getattr(torch.nn, name)(**kw), getattr(nn, name)(**kw), make(), rtol=1e-5,
                 atol=1e-6, check_repr=True)


def test_weighted_losses_and_ctc():
    torch.manual_seed(1)
    w = torch.rand(4) + 0.5
    from ._helpers import to_ember
    check_module(torch.nn.MultiMarginLoss(weight=w), nn.MultiMarginLoss(weight=to_ember(w)),
                 [_r(3, 4), torch.tensor([0, 3, 1])])
    check_module(torch.nn.MultiLabelSoftMarginLoss(weight=w),
                 nn.MultiLabelSoftMarginLoss(weight=to_ember(w)),
                 [_r(3, 4), torch.randint(0, 2, (3, 4)).float()])
    lp = torch.randn(8, 2, 5).log_softmax(2).detach().requires_grad_()
    targets = torch.tensor([[1, 2, 2], [3, 4, 0]])
    check_module(torch.nn.CTCLoss(zero_infinity=True), nn.CTCLoss(zero_infinity=True),
                 [lp, targets, torch.tensor([8, 6]), torch.tensor([3, 2])], rtol=1e-4, atol=1e-5)
    for lib in (torch, nn):
        mod = lib.nn if lib is torch else lib
        with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0"):
            mod.TripletMarginLoss(margin=0)
        with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
            mod.MultiMarginLoss(p=3)
