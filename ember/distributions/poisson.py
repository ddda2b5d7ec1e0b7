"""Poisson distribution with ``rate`` (counts ``0, 1, 2, ...``).

Example:
    >>> import ember
    >>> ember.distributions.Poisson(2.0).log_prob(ember.tensor(1.0))
    tensor(-1.3069)
"""
from __future__ import annotations

from .._shape import Size
from .._tensor_methods.random_dist import poisson as _poisson
from ..autograd.grad_mode import no_grad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """P(k) = rate^k exp(-rate) / k!."""

    arg_constraints = dict(rate=constraints.nonnegative)
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        self._init_params(validate_args, rate=rate)

    mean = variance = property(lambda self: self.rate)
    mode = property(lambda self: self.rate.floor())

    def sample(self, sample_shape=Size()):
        with no_grad():
            return _poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        rate, k = broadcast_all(self.rate, self._checked(value))
        return k.xlogy(rate) - rate - (k + 1).lgamma()

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()
