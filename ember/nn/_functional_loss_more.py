"""More losses of ``ember.nn.functional`` (layer L4): divergences, margins, embeddings and CTC.

All are composites of ember ops (autograd for free); ctc_loss runs its forward recursion in log
space with one vectorised step per time step (never a loop over batch items).

Example:
    >>> import ember
    >>> from ember.nn.functional import soft_margin_loss
    >>> soft_margin_loss(ember.zeros(2), ember.ones(2))
    tensor(0.6931)
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype as D
from .._creation import arange, tensor as _tensor
from .._tensor_methods.pointwise import where
from .._tensor_methods.shape_copy import cat, stack
from ._functional_loss import _reduce, _reduction

__all__ = ["kl_div", "poisson_nll_loss", "gaussian_nll_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multilabel_margin_loss", "multi_margin_loss",
           "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"]


def _softplus0(x):
    """``log(1 + exp(x))`` computed stably."""
    return x.clamp(min=0) + ((-x.abs()).exp() + 1).log()


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False):
    """``target * (log(target) - input)`` with ``input`` log-probabilities; ``'batchmean'`` divides by N."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support "
                      "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                      "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                      "major release.", stacklevel=2)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target.xlogy(target) - target * input  # torch's form: its target gradient is NaN at 0
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    """``exp(input) - target * input`` (log_input) or ``input - target * log(input + eps)``."""
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        safe = where(target > 1, target, 1.0)
        stirling = safe * safe.log() - safe + (safe * (2 * math.pi)).log() * 0.5
        loss = loss + where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean"):
    """``0.5 * (log(var) + (input - target)^2 / var)`` (+ ``0.5 log(2 pi)`` when ``full``)."""
    if not hasattr(var, "shape"):
        var = input.new_full(tuple(input.shape), float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # torch clamps a clone under no_grad: the gradient passes through the clamp unchanged
    var = var + (var.clamp(min=eps) - var).detach()
    loss = ((input - target) ** 2 / var + var.log()) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


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
    from ._functional_misc import pairwise_distance
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
    from ._functional_misc import pairwise_distance
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


def _padded_targets(targets, target_lengths: np.ndarray, blank: int) -> np.ndarray:
    """Targets as a ``(N, S_max)`` int array: 1-D concatenated targets are split without a loop."""
    t = targets._data if targets._data is not None else np.asarray(targets.tolist())
    n = target_lengths.shape[0]
    if t.ndim == 2:
        return t.astype(np.int64)
    s_max = int(target_lengths.max()) if n else 0
    starts = np.concatenate(([0], np.cumsum(target_lengths)[:-1]))
    pos = np.arange(s_max)
    idx = starts[:, None] + pos
    inside = pos < target_lengths[:, None]
    return np.where(inside, t[np.clip(idx, 0, max(t.size - 1, 0))] if t.size else blank, blank)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False):
    """Connectionist temporal classification: ``-log p(target | input)`` summed over alignments.

    log_probs ``(T, N, C)`` (or ``(T, C)``), targets ``(N, S)`` padded or 1-D concatenated, lengths
    ``(N,)``. The forward recursion runs in log space, one vectorised step per time step.
    """
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        if targets.dim() == 1:
            targets = targets.unsqueeze(0)
    in_len = np.asarray(input_lengths.tolist() if hasattr(input_lengths, "tolist") else input_lengths,
                        dtype=np.int64).reshape(-1)
    tg_len = np.asarray(target_lengths.tolist() if hasattr(target_lengths, "tolist") else
                        target_lengths, dtype=np.int64).reshape(-1)
    T, N, C = log_probs.shape
    if in_len.shape[0] != N or tg_len.shape[0] != N:
        raise RuntimeError(f"input_lengths must be of size batch_size ({N}) and target_lengths too")
    if (in_len > T).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                           f"{int(in_len.max())} (while checking arguments for ctc_loss_cpu)")
    padded = _padded_targets(targets, tg_len, blank)
    s_max = padded.shape[1] if padded.ndim == 2 else 0
    L = 2 * s_max + 1
    ext = np.full((N, L), blank, np.int64)
    ext[:, 1::2] = padded[:, :s_max]
    # a skip from s-2 is allowed into a non-blank label differing from the one two back
    skip = np.zeros((N, L), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    neg = -1e30 if log_probs.dtype is D.float32 else -1e300
    ext_t = _tensor(ext)
    # torch's gradient is the one through a log_softmax of log_probs (it assumes normalised inputs):
    # add a term whose value is zero and whose gradient is log_softmax's backward
    lse = log_probs.logsumexp(2, keepdim=True)
    log_probs = log_probs - (lse - lse.detach())
    lp = log_probs.gather(2, ext_t.unsqueeze(0).expand(T, N, L))  # shape: (T, N, L)
    init = np.full((N, L), False)
    init[:, 0] = True
    init[:, 1] = tg_len > 0 if L > 1 else False
    alpha = where(_tensor(init), lp[0], neg)
    skip_t, active = _tensor(skip), _tensor(in_len)
    for t in range(1, T):
        a2 = cat([alpha.new_full((N, 1), neg), alpha[:, :-1]], 1)
        a3 = cat([alpha.new_full((N, 2), neg), alpha[:, :-2]], 1) if L > 2 else alpha.new_full((N, L), neg)
        a3 = where(skip_t, a3, neg)
        new = stack([alpha, a2, a3]).logsumexp(0) + lp[t]
        alpha = where((active > t).unsqueeze(1), new, alpha)
    last = _tensor(2 * tg_len).unsqueeze(1)
    ends = cat([alpha.gather(1, last), where(_tensor(tg_len > 0).unsqueeze(1),
                                              alpha.gather(1, (last - 1).clamp(min=0)), neg)], 1)
    nll = -ends.logsumexp(1)
    inf = nll > -neg / 2
    nll = where(inf, 0.0 if zero_infinity else float("inf"), nll)
    if reduction == "mean":
        return (nll / _tensor(np.maximum(tg_len, 1)).to(nll.dtype)).mean()
    if reduction == "sum":
        return nll.sum()
    if reduction == "none":
        return nll.squeeze(0) if unbatched else nll
    raise ValueError(f"{reduction} is not a valid value for reduction")
