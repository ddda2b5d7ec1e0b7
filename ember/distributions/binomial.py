"""Binomial distribution: successes among ``total_count`` trials of probability ``probs``
(or ``logits``).

Example:
    >>> import ember
    >>> ember.distributions.Binomial(4, probs=ember.tensor(0.5)).log_prob(ember.tensor(2.0))
    tensor(-0.9808)
"""
from __future__ import annotations

from .._creation import arange
from .._shape import Size
from .._tensor_methods.random_dist import binomial as _binomial
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .utils import _log1pexp, _ProbsOrLogits, broadcast_all

__all__ = ["Binomial"]


class Binomial(_ProbsOrLogits, Distribution):
    """P(k) = C(n, k) p^k (1-p)^(n-k) with ``n = total_count`` (broadcast against the parameter)."""

    arg_constraints = dict(total_count=constraints.nonnegative_integer,
                           probs=constraints.unit_interval, logits=constraints.real)
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        name, value = self._take_probs_or_logits(probs, logits)
        count, value = broadcast_all(total_count, value)
        self._init_params(validate_args, total_count=count.type_as(value), **{name: value})

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))

    @property
    def mode(self):
        n = self.total_count
        return ((n + 1) * self.probs).floor().clamp(max=n)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        k, n, lg = self._checked(value), self.total_count, self.logits
        log_choose = (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
        # k log p + (n-k) log(1-p) = k * logit - n * log(1 + e^logit)
        return log_choose + k * lg - n * _log1pexp(lg)

    def _common_count(self, what):
        n = int(self.total_count.max())
        if int(self.total_count.min()) != n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return n

    def entropy(self):
        self._common_count("entropy")
        lp = self.log_prob(self.enumerate_support(False))
        return -(lp.exp() * lp).sum(0)

    def enumerate_support(self, expand=True):
        n = self._common_count("enumerate_support")
        return self._enumerate(arange(n + 1, dtype=self._param.dtype), expand)
