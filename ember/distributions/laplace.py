"""Laplace (double exponential) distribution with location ``loc`` and scale ``scale``.

Example:
    >>> import ember
    >>> ember.distributions.Laplace(0.0, 1.0).log_prob(ember.tensor(0.0))
    tensor(-0.6931)
"""
from __future__ import annotations

import math

from .. import _dtype as D
from .._creation import empty
from .._shape import Size
from . import constraints
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Density ``exp(-|x - loc| / scale) / (2 scale)``."""

    arg_constraints = dict(loc=constraints.real, scale=constraints.positive)
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self._init_params(validate_args, loc=loc, scale=scale)

    mean = mode = property(lambda self: self.loc)
    variance = property(lambda self: 2 * self.scale * self.scale)
    stddev = property(lambda self: math.sqrt(2) * self.scale)

    def rsample(self, sample_shape=Size()):
        # inverse-cdf sampling; keep u away from 0 where icdf is -inf
        u = empty(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u.uniform_(D.finfo(u.dtype).eps / 2, 1.0))

    def log_prob(self, value):
        dev = (self._checked(value) - self.loc).abs()
        return -dev / self.scale - (2 * self.scale).log()

    def cdf(self, value):
        d = self._checked(value) - self.loc
        return 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()

    def icdf(self, value):
        c = value - 0.5
        return self.loc - self.scale * c.sign() * (-2 * c.abs()).log1p()

    def entropy(self):
        return (2 * self.scale).log() + 1
