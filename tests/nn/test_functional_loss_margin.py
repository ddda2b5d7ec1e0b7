"""Margin and embedding losses against torch (values, gradients)."""
import pytest
import torch

import ember
import ember.nn.functional as F

from ._helpers import compare_functional, randn64

R = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", R)
def test_pointwise_margin_losses(reduction):
    x = randn64(4, 5)
    sign = torch.randint(0, 2, (4, 5)).double() * 2 - 1
    compare_functional("soft_margin_loss", [x, sign], reduction=reduction)
    compare_functional("hinge_embedding_loss", [x, sign], margin=0.5, reduction=reduction)
    compare_functional("multilabel_soft_margin_loss", [x, (sign > 0).double()], reduction=reduction)
    compare_functional("multilabel_soft_margin_loss",
                       [x, (sign > 0).double(), torch.rand(5, dtype=torch.float64)],
                       reduction=reduction)
    y = torch.tensor([1., -1, 1, 1, -1, -1], dtype=torch.float64)
    compare_functional("margin_ranking_loss", [randn64(6), randn64(6), y], margin=0.2, reduction=reduction)


@pytest.mark.parametrize("reduction", R)
def test_margin_losses(reduction):
    x = randn64(3, 5)
    compare_functional("multi_margin_loss", [x, torch.tensor([1, 0, 4])], reduction=reduction)
    compare_functional("multi_margin_loss", [x, torch.tensor([1, 0, 4])], p=2, margin=0.7,
                       weight=torch.rand(5, dtype=torch.float64), reduction=reduction)
    tgt = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 4, 0, -1], [-1, 1, 2, 3, 4]])
    compare_functional("multilabel_margin_loss", [x, tgt], reduction=reduction)
    compare_functional("cosine_embedding_loss", [randn64(4, 3), randn64(4, 3), torch.tensor([1, -1, 1, -1])],
                       margin=0.1, reduction=reduction)
    a, p, n = randn64(4, 3), randn64(4, 3), randn64(4, 3)
    compare_functional("triplet_margin_loss", [a, p, n], reduction=reduction)
    compare_functional("triplet_margin_loss", [a, p, n], p=1, swap=True, margin=0.5, reduction=reduction)
    compare_functional("triplet_margin_with_distance_loss", [a, p, n], reduction=reduction)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(ember.ones(2, 3), ember.tensor([0, 1]), p=3)
