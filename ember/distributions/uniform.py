"""Uniform distribution on the half-open interval ``[low, high)``.

Example:
    >>> import ember
    >>> ember.distributions.Uniform(0.0, 4.0).log_prob(ember.tensor(1.0))
    tensor(-1.3863)
"""
from __future__ import annotations

import math

from .._shape import Size
from .._tensor_methods.random import rand
from . import constraints
from .distribution import Distribution

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Constant density ``1 / (high - low)`` on ``[low, high)``."""

    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self._init_params(validate_args, low=low, high=high)

    @property
    def arg_constraints(self):
        # each bound is constrained by the other, so validation reports ``low >= high``
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    _width = property(lambda self: self.high - self.low)
    mean = property(lambda self: (self.low + self.high) / 2)
    mode = property(lambda self: self.high * math.nan)
    variance = property(lambda self: self._width.pow(2) / 12)
    stddev = property(lambda self: self._width / math.sqrt(12))

    def rsample(self, sample_shape=Size()):
        u = rand(*self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        value = self._checked(value)
        inside = (value >= self.low) & (value < self.high)
        return inside.type_as(self.low).log() - self._width.log()

    def cdf(self, value):
        return ((self._checked(value) - self.low) / self._width).clamp(min=0, max=1)

    def icdf(self, value):
        return self.low + value * self._width

    def entropy(self):
        return self._width.log()
