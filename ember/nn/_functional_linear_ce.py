"""``nn.functional.linear_cross_entropy`` (layer L4): ``cross_entropy(linear(input, W), target)``
as one call, a composite of ember ops.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> x, W = ember.ones(2, 3), ember.zeros(4, 3)
    >>> round(F.linear_cross_entropy(x, W, ember.tensor([0, 3])).item(), 4)
    1.3863
"""
from __future__ import annotations

from ..overrides import public
from ._functional_loss import cross_entropy

__all__ = ["linear_cross_entropy"]


@public
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    """Cross entropy of the logits ``input @ W^T (+ bias)`` against ``target``.

    Args:
        input: ``(in_features,)`` or ``(N, in_features)``.
        linear_weight: ``(C, in_features)`` or ``(C, d_1, ..., d_K, in_features)`` (K-dimensional
            loss, batched input only); linear_bias: ``(C,)`` or ``(C, d_1, ..., d_K)``.
        target: class indices ``()``, ``(N,)``, ``(N, d_1, ..., d_K)`` or class probabilities.
        ignore_index: None means -100 (cross_entropy's default).
        options: a :class:`ember.nn.LinearCrossEntropyOptions`; accepted, and the reference path
            is computed (the chunked path equals it).
    """
    in_features = linear_weight.shape[-1]
    out_shape = tuple(linear_weight.shape[:-1])  # (C, d_1, ..., d_K)
    if len(out_shape) > 1 and input.dim() != 2:
        raise RuntimeError("linear_cross_entropy: multi-dimensional linear_weight requires batched "
                           f"input (N, in_features), got input of shape {list(input.shape)}")
    logits = input.matmul(linear_weight.reshape(-1, in_features).t())
    if linear_bias is not None:
        logits = logits + linear_bias.reshape(-1)
    if len(out_shape) > 1:
        logits = logits.reshape((input.shape[0],) + out_shape)  # shape: (N, C, d_1, ..., d_K)
    return cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None else
                         ignore_index, reduction=reduction, label_smoothing=label_smoothing)
