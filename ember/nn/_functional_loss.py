"""Loss functions of ``ember.nn.functional`` (layer L4), composites of ember ops.

Class-index losses run on the ``nll_loss`` primitive (a gather forward, a scatter backward) after a
stable ``log_softmax`` primitive.

Example:
    >>> import ember
    >>> from ember.nn.functional import cross_entropy
    >>> cross_entropy(ember.zeros(2, 4), ember.tensor([0, 3]))
    tensor(1.3863)
"""
from __future__ import annotations

import warnings

from .._tensor_methods.pointwise import where
from .. import _dtype as _D
from .._dispatch import MODES, dispatch
from .._errors import dtype_title
from ..autograd.grad_mode import is_grad_enabled
from .._primitives import nn_ops as NN
from ..overrides import public

__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss", "legacy_get_string"]


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The ``reduction`` string for the deprecated ``size_average``/``reduce`` pair."""
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = ("mean" if size_average else "sum") if reduce else "none"
    if emit_warning:
        warnings.warn(warning.format(ret), stacklevel=3)
    return ret


def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_size(input, target, stacklevel=3):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=stacklevel)


@public
def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """Mean squared error ``(input - target)^2``, reduced."""
    _check_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    d = input - target
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@public
def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced."""
    _check_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    loss = (input - target).abs()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@public
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    _check_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    ad = (input - target).abs()
    if beta == 0:
        return _reduce(ad, reduction)
    loss = where(ad < beta, ad * ad * (0.5 / beta), ad - 0.5 * beta)
    return _reduce(loss, reduction)


@public
def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    _check_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    ad = (input - target).abs()
    loss = where(ad < delta, ad * ad * 0.5, (ad - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@public
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean"):
    """``-(t log x + (1 - t) log(1 - x))`` with each log clamped at -100, as torch does."""
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {dtype_title(target.dtype)} but expected {dtype_title(input.dtype)}")
    d = input._data
    if d is not None and d.size and not ((d >= 0) & (d <= 1)).all():  # NaN fails too, as in torch
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = dispatch(NN.binary_cross_entropy, input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@public
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    """Sigmoid + binary cross entropy in one stable expression; ``pos_weight`` weighs positives."""
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None and t.requires_grad and is_grad_enabled():
            raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not differentiable "
                               f"with respect to argument '{name}'. This input cannot have requires_grad True.")
    has_pw = pos_weight is not None
    loss = dispatch(NN.binary_cross_entropy_with_logits, input, target,
                    pos_weight if has_pw else input.new_ones(()), has_pos_weight=has_pw)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _class_view(t, ndim: int):
    """A ``(C,)`` tensor shaped to broadcast along dim 1 of an ``ndim``-d ``(N, C, ...)`` input."""
    return t.view((t.shape[0],) + (1,) * (ndim - 2)) if ndim >= 2 else t


_REDUCTION_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _aten_graph() -> bool:
    return any(getattr(m, "aten_graph", False) for m in MODES.stack) if MODES.stack else False


_INT64 = _D.int64
_FUSED_DTYPES = (_D.float32, _D.float64)


def _enum(reduction: str) -> int:
    r = _REDUCTION_ENUM.get(reduction)
    if r is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return r


@public
def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    """Negative log-likelihood of class indices: input ``(N, C, ...)`` log-probs, target ``(N, ...)``."""
    reduction = _reduction(size_average, reduce, reduction)
    return dispatch(NN.nll_loss, input, target, weight, reduction=_enum(reduction),
                    ignore_index=ignore_index)


@public
def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100,
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
    """``log_softmax`` over dim 1 then NLL; target holds class indices or class probabilities."""
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if weight is None and label_smoothing == 0 and input.dim() == 2 and target.dim() == 1 and \
            target.dtype is _INT64 and input.dtype in _FUSED_DTYPES and not _aten_graph():
        # the common classification case: one fused primitive (log_softmax + nll, one backward);
        # make_fx (whose graphs hold aten ops only) records the composite below instead
        return dispatch(NN.cross_entropy, input, target, reduction=_enum(reduction),
                        ignore_index=ignore_index)[0]
    cdim = 1 if input.dim() >= 2 else 0
    c = input.shape[cdim]
    logp = dispatch(NN.log_softmax, input, dim=cdim)
    if target.is_floating_point():
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * _class_view(weight, input.dim())
        if reduction == "mean":
            return -prod.sum() / (input.numel() / c)
        if reduction == "sum":
            return -prod.sum()
        if reduction == "none":
            return -prod.sum(cdim)
        raise ValueError(f"{reduction} is not a valid value for reduction")
    nll = dispatch(NN.nll_loss, logp, target, weight, reduction=_enum(reduction),
                   ignore_index=ignore_index)
    if label_smoothing == 0:
        return nll
    keep = target != ignore_index
    if weight is not None:
        smooth = -(logp * _class_view(weight, input.dim())).sum(cdim)
    else:
        smooth = -logp.sum(cdim)
    smooth = where(keep, smooth, 0)
    if reduction == "mean":
        if weight is not None:
            # nll_loss above already rejected out-of-range targets
            smooth = smooth.sum() / where(keep, weight[where(keep, target, 0)], 0).sum()
        else:
            smooth = smooth.sum() / keep.sum().to(smooth.dtype)
    elif reduction == "sum":
        smooth = smooth.sum()
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / c)
