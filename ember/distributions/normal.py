"""Normal (Gaussian) distribution with mean ``loc`` and standard deviation ``scale``.

Example:
    >>> import ember
    >>> ember.distributions.Normal(0.0, 1.0).log_prob(ember.tensor(0.0))
    tensor(-0.9189)
"""
from __future__ import annotations

import math

from .._shape import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import LOG_SQRT_2PI, _standard_normal

__all__ = ["Normal"]

_SQRT2 = math.sqrt(2.0)


class Normal(ExponentialFamily):
    """N(loc, scale²), elementwise over the broadcast shape of ``loc`` and ``scale``."""

    arg_constraints = dict(loc=constraints.real, scale=constraints.positive)
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self._init_params(validate_args, loc=loc, scale=scale)

    mean = mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: self.scale.pow(2))

    def rsample(self, sample_shape=Size()):
        noise = _standard_normal(self._extended_shape(sample_shape), self.loc.dtype, self.loc.device)
        return noise * self.scale + self.loc

    def log_prob(self, value):
        z = (self._checked(value) - self.loc) / self.scale
        return -0.5 * z * z - self.scale.log() - LOG_SQRT_2PI

    def cdf(self, value):
        z = (self._checked(value) - self.loc) / self.scale
        return 0.5 * (z / _SQRT2).erf() + 0.5

    def icdf(self, value):
        return (2 * value - 1).erfinv() * (_SQRT2 * self.scale) + self.loc

    def entropy(self):
        return self.scale.log() + (0.5 + LOG_SQRT_2PI)

    @property
    def _natural_params(self):
        precision = self.scale.pow(-2)
        return (self.loc * precision, -0.5 * precision)

    def _log_normalizer(self, x, y):
        return 0.5 * (-math.pi / y).log() - 0.25 * x * x / y
