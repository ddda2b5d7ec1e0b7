"""``torch.masked``: reductions and normalisations that ignore the elements where ``mask`` is False.

Example:
    >>> import ember
    >>> x = ember.tensor([[1., 2., 3.], [4., 5., 6.]])
    >>> ember.masked.sum(x, 1, mask=ember.tensor([[True, False, True], [False, False, False]])).tolist()
    [4.0, 0.0]
"""
from __future__ import annotations

from ._ops import _input_mask, _output_mask  # noqa: F401 (torch.masked's helpers)
from ._ops import (amax, amin, argmax, argmin, cumprod, cumsum, log_softmax, logaddexp, logsumexp,
                   mean, median, norm, normalize, prod, softmax, softmin, std, sum, var)

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
           "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std",
           "sum", "var"]
