"""Exponential distribution with ``rate`` (mean ``1 / rate``).

Example:
    >>> import ember
    >>> ember.distributions.Exponential(2.0).mean
    tensor(0.5000)
"""
from __future__ import annotations

from .._creation import empty
from .._shape import Size
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Density ``rate * exp(-rate * x)`` on ``x >= 0``."""

    arg_constraints = dict(rate=constraints.positive)
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        self._init_params(validate_args, rate=rate)

    mean = stddev = property(lambda self: self.rate.reciprocal())
    mode = property(lambda self: self.rate * 0)
    variance = property(lambda self: self.rate.pow(-2))

    def rsample(self, sample_shape=Size()):
        unit = empty(*self._extended_shape(sample_shape), dtype=self.rate.dtype).exponential_()
        return unit / self.rate

    def log_prob(self, value):
        return self.rate.log() - self.rate * self._checked(value)

    def cdf(self, value):
        return -(-self.rate * self._checked(value)).expm1()

    def icdf(self, value):
        return (-value).log1p() / -self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()
