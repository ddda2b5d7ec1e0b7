"""Bernoulli distribution over ``{0, 1}``, given by ``probs`` or ``logits`` (exactly one).

Example:
    >>> import ember
    >>> ember.distributions.Bernoulli(probs=ember.tensor(0.25)).log_prob(ember.tensor(1.0))
    tensor(-1.3863)
"""
from __future__ import annotations

import math

from .._creation import arange
from .._shape import Size
from .._tensor_methods.random import bernoulli as _bernoulli
from ..autograd.grad_mode import no_grad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _log1pexp, _ProbsOrLogits, broadcast_all

__all__ = ["Bernoulli"]


def _neg_bce(logits, target):
    # log p(target) = target * l - log(1 + e^l), written to stay finite for large |l|
    return logits * target - _log1pexp(logits)


class Bernoulli(_ProbsOrLogits, ExponentialFamily):
    """1 with probability ``probs`` (= sigmoid(``logits``)), else 0."""

    arg_constraints = dict(probs=constraints.unit_interval, logits=constraints.real)
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, value = self._take_probs_or_logits(probs, logits)
        self._init_params(validate_args, **{name: value})

    mean = property(lambda self: self.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        p = self.probs
        # a fair coin has no unique mode
        return (p > 0.5).to(p.dtype).masked_fill(p == 0.5, math.nan)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return _bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        logits, value = broadcast_all(self.logits, self._checked(value))
        return _neg_bce(logits, value)

    def entropy(self):
        return -_neg_bce(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        return self._enumerate(arange(2, dtype=self._param.dtype), expand)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return _log1pexp(x)
