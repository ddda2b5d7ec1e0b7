"""Margin and embedding losses of ``ember.nn.functional`` (layer L4): soft margin, multi-label and
multi-class margins, ranking, hinge/cosine embedding and triplet losses.

All are composites of ember ops (autograd for free).

Example:
    >>> import ember
    >>> from ember.nn.functional import soft_margin_loss
    >>> soft_margin_loss(ember.zeros(2), ember.ones(2))
    tensor(0.6931)
"""
from __future__ import annotations

from .. import _dtype as D
from .._creation import arange
from .._tensor_methods.pointwise import where
from ._functional_loss import _reduce, _reduction
from ._functional_misc import pairwise_distance

__all__ = ["soft_margin_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]


def _softplus0(x):
    """``log(1 + exp(x))`` computed stably."""
    return x.clamp(min=0) + ((-x.abs()).exp() + 1).log()


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``log(1 + exp(-target * input))``."""
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce(_softplus0(-target * input), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """Per-class logistic loss averaged over classes: input and target ``(N, C)``."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = target * _softplus0(-input) + (1 - target) * _softplus0(input)
    if weight is not None:
        loss = loss * weight
    c = input.shape[input.dim() - 1]
    loss = loss.sum(input.dim() - 1) / c
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """``sum_{j in y, i not in y} max(0, 1 - (x[j] - x[i])) / C``; target ``(N, C)`` classes ended by -1."""
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape) or input.dim() > 2:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(x.shape)
    c = x.shape[1]
    # entries before the first -1 are the target classes
    valid = (t != -1).to(D.int64).cumprod(1) == 1
    ts = where(valid, t, 0)
    is_target = ((ts.unsqueeze(-1) == arange(c, device=x.device)) & valid.unsqueeze(-1)).any(1)  # shape: (N, C)
    xj = x.gather(1, ts)                                                       # shape: (N, Cj)
    margins = (1 - xj.unsqueeze(2) + x.unsqueeze(1)).clamp(min=0)               # shape: (N, Cj, Ci)
    mask = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = where(mask, margins, 0.0).sum((1, 2)) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean"):
    """``sum_{i != y} max(0, margin - x[y] + x[i])^p / C`` (times ``weight[y]``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(-1)
    c = x.shape[1]
    xy = x.gather(1, t.unsqueeze(1))
    m = (x - xy + margin).clamp(min=0)
    if p == 2:
        m = m * m
    if weight is not None:
        m = m * weight[t].unsqueeze(1)
    m = where(t.unsqueeze(1) == arange(c, device=m.device), 0.0, m)
    loss = m.sum(1) / c
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average=None, reduce=None,
                        reduction: str = "mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got "
                           f"sizes: input1: {input1.shape}, input2: {input2.shape}, target: "
                           f"{target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``input`` where target is 1, ``max(0, margin - input)`` where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    margin_clamp = (margin - input).clamp(min=0)
    loss = where(target != 1, margin_clamp, 0.0) + where(target != -1, input, 0.0)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average=None, reduce=None,
                          reduction: str = "mean"):
    """``1 - cos(x1, x2)`` where target is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2) or target.dim() != input1.dim() - 1:
        raise RuntimeError(f"cosine_embedding_loss: expected 1D or 2D inputs with a target of one "
                           f"dimension less, got input1 {list(input1.shape)}, input2 "
                           f"{list(input2.shape)}, target {list(target.shape)}")
    d = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(d)
    mag = ((input1 * input1).sum(d) + eps) * ((input2 * input2).sum(d) + eps)
    cos = prod / mag.sqrt()
    loss = where(target == 1, 1 - cos, 0.0) + where(target == -1, (cos - margin).clamp(min=0), 0.0)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average=None, reduce=None, reduction: str = "mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the p-norm pairwise distance."""
    reduction = _reduction(size_average, reduce, reduction)
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same "
                           f"number of dimensions, but got: anchor {anchor.dim()}D, positive "
                           f"{positive.dim()}D, and negative {negative.dim()}D inputs")
    d_ap = pairwise_distance(anchor, positive, p, eps)
    d_an = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_an = d_an.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_ap - d_an).clamp(min=0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with a user distance (pairwise_distance by default)."""
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got "
                         f"{margin} instead")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_ap, d_an = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_an = d_an.minimum(dist(positive, negative))
    return _reduce((margin + d_ap - d_an).clamp(min=0), reduction)
