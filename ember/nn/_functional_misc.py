"""More of ``ember.nn.functional`` (layer L4): shrink/parametric activations, gumbel_softmax,
embedding and embedding_bag, dropout and its channel-wise and alpha forms, and distances. Composites of ember ops.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pairwise_distance(ember.tensor([[0., 0.]]), ember.tensor([[3., 4.]]), eps=0.)
    tensor([5.])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype as D
from .._shape import broadcast_shapes
from .._creation import empty_like, tensor as _tensor
from .._dispatch import dispatch
from .._tensor_methods.pointwise import where
from .._tensor_methods.random import bernoulli
from .._tensor_methods.reduction import vector_norm
from ..autograd.grad_mode import is_grad_enabled, no_grad
from .._primitives import nn_ops as NN
from ..overrides import public

__all__ = ["prelu", "rrelu", "rrelu_", "softshrink", "hardshrink", "gumbel_softmax", "embedding",
           "embedding_bag", "dropout",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "cosine_similarity", "pairwise_distance", "pdist", "cdist"]


# ------------------------------------------------------------------------------ activations
def prelu(input, weight):
    """``input`` where positive, else ``weight * input``; weight has 1 or C (= input.size(1)) entries."""
    c = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != c:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter "
                           f"numbers = {weight.numel()} and channel size = {c}.")
    w = weight
    if weight.numel() != 1 and input.dim() >= 2:
        w = weight.reshape((c,) + (1,) * (input.dim() - 2))
    elif weight.dim() > 0:
        w = weight.reshape(()) if weight.numel() == 1 else weight
    return where(input > 0, input, w * input)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False):
    """Leaky ReLU with a slope drawn from ``U(lower, upper)`` in training, ``(lower + upper) / 2`` else."""
    # in place under autograd: compute from a copy, so what backward saved is not overwritten
    src = input.clone() if inplace and input.requires_grad and is_grad_enabled() else input
    if training:
        with no_grad():
            slope = empty_like(src).uniform_(lower, upper)
        out = where(src >= 0, src, src * slope)
    else:
        out = where(src >= 0, src, src * ((lower + upper) / 2))
    return input.copy_(out) if inplace else out


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    return rrelu(input, lower, upper, training, inplace=True)


def softshrink(input, lambd: float = 0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return where(input > lambd, input - lambd, where(input < -lambd, input + lambd, 0.0))


def hardshrink(input, lambd: float = 0.5):
    """``x`` where ``|x| > lambd``, else 0."""
    return where((input > lambd) | (input < -lambd), input, 0.0)


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """A sample from the Gumbel-softmax distribution; ``hard`` returns one-hot (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    with no_grad():
        gumbels = -empty_like(logits).exponential_().log()
    d = dim % max(logits.dim(), 1)
    y = dispatch(NN.softmax, (logits + gumbels) / tau, dim=d)
    if not hard:
        return y
    index = y.argmax(d, keepdim=True)
    y_hard = y.new_zeros(tuple(y.shape)).scatter(d, index, 1.0)
    return y_hard - y.detach() + y


# ------------------------------------------------------------------------------ embedding_bag
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights=None, include_last_offset: bool = False, padding_idx=None):
    """Sums, means or maxes of bags of embedding rows: 2-D input ``(B, L)`` (one bag per row) or 1-D
    input with ``offsets`` ``(B,)`` marking where each bag starts. Returns ``(B, embedding_dim)``."""
    if weight.dtype is D.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        input, weight = weight, input
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({tuple(input.shape)})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                             "mini-batch of fixed length sequences. However, found offsets of type "
                             f"{type(offsets)}")
        b, length = input.shape
        bag_np = np.repeat(np.arange(b), length)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = offsets._data.astype(np.int64)
        b = off.shape[0] - 1 if include_last_offset else off.shape[0]
        n = input.shape[0]
        # each element's bag: the last offset at or before its position
        bag_np = np.searchsorted(off[:b], np.arange(n), side="right") - 1
        if include_last_offset:
            bag_np = np.where(np.arange(n) >= off[b], -1, bag_np)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights "
                                  f"is only supported for mode='sum' (got mode='{mode}'). Please open "
                                  "a feature request on GitHub.")
    idx_np = input._data
    bad = np.flatnonzero((idx_np < 0) | (idx_np >= weight.shape[0])) if idx_np is not None else ()
    if len(bad):
        raise RuntimeError(f"Index {bad[0]} of input takes value {idx_np[bad[0]]} which is not in the "
                           f"valid range [0, {weight.shape[0]})")
    keep_np = bag_np >= 0
    if padding_idx is not None:
        pad = padding_idx % weight.shape[0]
        keep_np &= input._data != pad
    emb = embedding(input, weight, max_norm=max_norm, norm_type=norm_type,
                    scale_grad_by_freq=scale_grad_by_freq)  # shape: (n, D)
    if per_sample_weights is not None:
        emb = emb * per_sample_weights.unsqueeze(1)
    keep = _tensor(keep_np)
    bag = _tensor(np.where(keep_np, bag_np, 0))
    dim = weight.shape[1]
    out = emb.new_zeros((b, dim))
    if mode == "max":
        emb = where(keep.unsqueeze(1), emb, float("-inf"))
        out = out.scatter_reduce(0, bag.unsqueeze(1).expand(tuple(emb.shape)), emb, "amax",
                                 include_self=False)
        counts = np.bincount(bag_np[keep_np], minlength=b)
        return where(_tensor(counts > 0).unsqueeze(1), out, 0.0)
    emb = where(keep.unsqueeze(1), emb, 0.0)
    out = out.index_add(0, bag, emb)
    if mode == "mean":
        counts = np.bincount(bag_np[keep_np], minlength=b)[:b].astype(np.float64)
        out = out / _tensor(np.maximum(counts, 1)).to(out.dtype).unsqueeze(1)
    return out


# ------------------------------------------------------------------------------ dropout variants
@public
def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        mask = input.new_zeros(input.shape)
    else:
        with no_grad():
            # out of place: the same draws as empty_like(input).bernoulli_(1 - p) without the
            # copy into the empty tensor
            mask = bernoulli(input, 1 - p).div_(1 - p)
    return input.mul_(mask) if inplace else input * mask


@public
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False):
    """Rows of ``weight`` picked by the integer ``input``: ``(*) -> (*, embedding_dim)``."""
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    if input.dtype not in (D.int64, D.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got {input._type_string()} instead (while "
                           "checking arguments for embedding)")
    if max_norm is not None:
        with no_grad():
            rows = weight[input.reshape(-1)]
            norms = (rows.abs() ** norm_type).sum(-1, keepdim=True) ** (1.0 / norm_type)
            scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            weight[input.reshape(-1)] = rows * scale
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    return dispatch(NN.embedding, weight, input, padding_idx=-1 if padding_idx is None else padding_idx,
                    scale_grad_by_freq=scale_grad_by_freq)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _trivial_dropout(input, p, training: bool, inplace: bool):
    """The result of a (feature/alpha) dropout that needs no noise (eval mode, p 0 or 1, empty input),
    else None; checks ``p``."""
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    return None


def _feature_noise(input, p, batched):
    """A Bernoulli(1 - p) mask over (N, C) broadcast along the feature dims."""
    lead = 2 if batched else 1
    shape = tuple(input.shape[:lead]) + (1,) * (input.dim() - lead)
    with no_grad():
        return input.new_empty(shape).bernoulli_(1 - p)


def _feature_dropout(input, p, training, inplace, batched):
    trivial = _trivial_dropout(input, p, training, inplace)
    if trivial is not None:
        return trivial
    mask = _feature_noise(input, p, batched) / (1 - p)
    return input.mul_(mask) if inplace else input * mask


def _feature_rank(input, k: int) -> int:
    """``input.dim()``; torch's deprecation warning (at the caller's caller) unless it is ``k + 1`` or
    ``k + 2`` (``dropout2d``/``dropout3d``)."""
    nd = input.dim()
    if nd not in (k + 1, k + 2):
        warnings.warn(f"dropout{k}d: Received a {nd}-D input to dropout{k}d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this "
                      f"warning, please use dropout instead. Note that dropout{k}d exists to provide "
                      f"channel-wise dropout on inputs with {k} spatial dimensions, a channel dimension, "
                      f"and an optional batch dimension (i.e. {k + 1}D or {k + 2}D inputs).", stacklevel=3)
    return nd


def dropout1d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p``."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs with "
                           "1 spatial dimension, a channel dimension, and an optional batch dimension "
                           "(i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of ``(N, C, H, W)`` or ``(C, H, W)`` with probability ``p``."""
    nd = _feature_rank(input, 2)
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
                      "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
                      "is the channel dim. This behavior will change in a future release to interpret "
                      "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
                      "the 1D channel-wise dropout behavior, please switch to using dropout1d "
                      "instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, nd >= 2)


def dropout3d(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with probability ``p``."""
    nd = _feature_rank(input, 3)
    return _feature_dropout(input, p, training, inplace, nd != 4)


_SELU_ALPHA = 1.7580993408473766


def _alpha_dropout(input, p, training, inplace, feature):
    trivial = _trivial_dropout(input, p, training, inplace)
    if trivial is not None:
        return trivial
    if feature:
        noise = _feature_noise(input, p, True)
    else:
        with no_grad():
            noise = empty_like(input).bernoulli_(1 - p)
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    b = (noise - 1) * (_SELU_ALPHA * a) + _SELU_ALPHA * a * p
    out = input * (noise * a) + b
    return input.copy_(out) if inplace else out


def alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout that keeps SELU's zero mean and unit variance (dropped values go to ``-alpha'``)."""
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """``alpha_dropout`` over whole channels of ``(N, C, *)``."""
    return _alpha_dropout(input, p, training, inplace, True)


# ------------------------------------------------------------------------------ distances
def _pnorm(d, p: float, dim: int, keepdim: bool = False):
    """The p-norm along ``dim`` (p = 0 counts non-zeros, p = inf takes the max)."""
    if p == math.inf:
        return d.abs().amax(dim, keepdim=keepdim)
    # vector_norm's derivative is 0 at a zero vector (equal rows), as torch's norms are
    return vector_norm(d, p, dim, keepdim)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim`` (inputs broadcast)."""
    if tuple(x1.shape) != tuple(x2.shape):  # broadcast first: the norms are of the broadcast rows
        shape = broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = _pnorm(x1, 2, dim, True).clamp(min=eps)
    n2 = _pnorm(x2, 2, dim, True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """``||x1 - x2 + eps||_p`` along the last dim."""
    nd = max(x1.dim(), x2.dim())
    return _pnorm(x1 - x2 + eps, p, nd - 1 if nd else 0, keepdim) if nd else (x1 - x2 + eps).abs()


def pdist(input, p: float = 2):
    """Distances between every pair of rows ``i < j`` of ``(N, M)``: shape ``(N * (N - 1) / 2,)``."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    return _pnorm(input[_tensor(i)] - input[_tensor(j)], p, 1)


def cdist(x1, x2, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between rows: ``(*, P, M)`` and ``(*, R, M)`` -> ``(*, P, R)``."""
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    r1, r2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25)))
    if use_mm:
        sq1 = (x1 * x1).sum(-1, keepdim=True)
        sq2 = (x2 * x2).sum(-1).unsqueeze(-2)
        d2 = (sq1 + sq2 - 2 * x1.matmul(x2.transpose(-2, -1))).clamp(min=0)
        # a zero distance gets a zero gradient, as torch's euclidean backward
        safe = where(d2 > 0, d2, 1.0)
        return where(d2 > 0, safe.sqrt(), 0.0)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # shape: (*, P, R, M)
    if p == 2:
        d2 = (diff * diff).sum(-1)
        safe = where(d2 > 0, d2, 1.0)
        return where(d2 > 0, safe.sqrt(), 0.0)
    return _pnorm(diff, p, -1)
