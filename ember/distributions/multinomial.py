"""Multinomial distribution: category counts of ``total_count`` independent Categorical draws
(event dim = the last dim of ``probs`` / ``logits``).

Example:
    >>> import ember
    >>> d = ember.distributions.Multinomial(4, probs=ember.tensor([0.5, 0.5]))
    >>> d.log_prob(ember.tensor([2.0, 2.0]))
    tensor(-0.9808)
"""
from __future__ import annotations

import math

from .._creation import eye
from .._shape import Size
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """P(x) = n! / prod(x_i!) * prod(p_i^x_i) over count vectors summing to ``n = total_count``."""

    arg_constraints = dict(probs=constraints.simplex, logits=constraints.real_vector)
    total_count: int

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        # per-category marginals, used by the entropy
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        cat = self._categorical
        super().__init__(cat.batch_shape, cat.param_shape[-1:], validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    def sample(self, sample_shape=Size()):
        draws = self._categorical.sample((self.total_count,) + tuple(sample_shape))
        onehot = eye(self._event_shape[0], dtype=self.probs.dtype)[draws]
        return onehot.sum(0)

    def log_prob(self, value):
        logits, x = broadcast_all(self.logits, self._checked(value))
        # x_i = 0 with p_i = 0 contributes 0, not 0 * -inf
        weighted = (logits * x).masked_fill(x == 0, 0.0).sum(-1)
        return (x.sum(-1) + 1).lgamma() - (x + 1).lgamma().sum(-1) + weighted

    def entropy(self):
        n = self.total_count
        # H = n H(cat) - log n! + sum_i E[log x_i!], the last through the Binomial marginals
        k = self._binomial.enumerate_support(expand=False)[1:]
        expected_log_fact = (self._binomial.log_prob(k).exp() * (k + 1).lgamma()).sum([0, -1])
        return n * self._categorical.entropy() - math.lgamma(n + 1) + expected_log_fact
