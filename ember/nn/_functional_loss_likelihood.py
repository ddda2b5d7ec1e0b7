"""Likelihood and divergence losses of ``ember.nn.functional`` (layer L4): ``kl_div``,
``poisson_nll_loss``, ``gaussian_nll_loss`` and ``ctc_loss``.

All are composites of ember ops (autograd for free); ctc_loss runs its forward recursion in log
space with one vectorised step per time step (never a loop over batch items). The common losses
(cross entropy, nll, mse, l1, bce, huber) are in ``_functional_loss``, margin and embedding losses in
``_functional_loss_margin``.

Example:
    >>> import ember
    >>> from ember.nn.functional import poisson_nll_loss
    >>> poisson_nll_loss(ember.zeros(2), ember.ones(2))
    tensor(1.)
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype as D
from .._creation import tensor as _tensor
from .._tensor_methods.pointwise import where
from .._tensor_methods.shape_copy import cat, stack
from ._functional_loss import _reduce, _reduction

__all__ = ["kl_div", "poisson_nll_loss", "gaussian_nll_loss", "ctc_loss"]


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
