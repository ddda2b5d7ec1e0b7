"""Categorical distribution over ``{0, ..., K-1}``; ``probs`` or ``logits`` hold the K weights in
their last dimension (the rest is the batch shape).

Example:
    >>> import ember
    >>> d = ember.distributions.Categorical(probs=ember.tensor([0.25, 0.75]))
    >>> d.log_prob(ember.tensor(1)), d.batch_shape
    (tensor(-0.2877), torch.Size([]))
"""
from __future__ import annotations

import math

from .. import _dtype as D
from .._creation import arange, full
from .._shape import Size
from .._tensor_methods.random import multinomial as _multinomial
from .._tensor_methods.shape_copy import broadcast_shapes
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import _ProbsOrLogits

__all__ = ["Categorical"]


class Categorical(_ProbsOrLogits, Distribution):
    """Draws an index ``i`` with probability ``probs[..., i]`` (weights are normalised)."""

    arg_constraints = dict(probs=constraints.simplex, logits=constraints.independent(constraints.real, 1))
    has_enumerate_support = True
    _binary = False

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, value = self._take_probs_or_logits(probs, logits)
        if value.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        if name == "probs":
            value = value / value.sum(-1, keepdim=True)
        else:
            value = value - value.logsumexp(-1, keepdim=True)
        setattr(self, name, value)
        self._num_events = value.shape[-1]
        super().__init__(value.shape[:-1], Size(), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    def _nan(self):
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    mean = variance = property(_nan)
    mode = property(lambda self: self.probs.argmax(-1))

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        with no_grad():
            rows = self.probs.reshape(-1, self._num_events)
            draws = _multinomial(rows, math.prod(sample_shape), True)  # (rows, draws)
        return draws.T.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        idx = self._checked(value).long().unsqueeze(-1)
        batch = broadcast_shapes(tuple(idx.shape[:-1]), tuple(self.logits.shape[:-1]))
        table = self.logits.expand(tuple(batch) + (self._num_events,))
        return table.gather(-1, idx.expand(tuple(batch) + (1,))).squeeze(-1)

    def entropy(self):
        # -inf logits (zero probs) would give 0 * -inf = nan; clamp to the most negative finite
        logits = self.logits.clamp(min=D.finfo(self.logits.dtype).min)
        return -(self.probs * logits).sum(-1)

    def enumerate_support(self, expand=True):
        return self._enumerate(arange(self._num_events, dtype=D.int64), expand)
