"""Gamma distribution with shape ``concentration`` and inverse scale ``rate``.

``rsample`` is reparameterised (the standard-gamma sampler has an implicit derivative).

Example:
    >>> import ember
    >>> ember.distributions.Gamma(2.0, 1.0).log_prob(ember.tensor(1.0))
    tensor(-1.)
"""
from __future__ import annotations

from .. import _dtype as D
from .._shape import Size
from .._tensor_methods.random_dist import _standard_gamma
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Density ``rate^c x^(c-1) exp(-rate x) / Γ(c)`` on ``x >= 0``, ``c = concentration``."""

    arg_constraints = dict(concentration=constraints.positive, rate=constraints.positive)
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self._init_params(validate_args, concentration=concentration, rate=rate)

    mean = property(lambda self: self.concentration / self.rate)
    variance = property(lambda self: self.concentration / self.rate.pow(2))
    mode = property(lambda self: ((self.concentration - 1) / self.rate).clamp(min=0))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        x = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # underflowed draws would give log_prob = -inf; nudge them up outside the graph
        x.detach().clamp_(min=D.finfo(x.dtype).tiny)
        return x

    def log_prob(self, value):
        c, r = self.concentration, self.rate
        value = self._checked(value)
        return c.xlogy(r) - c.lgamma() + (c - 1).xlogy(value) - r * value

    def entropy(self):
        c = self.concentration
        return c.lgamma() + c - self.rate.log() - (c - 1) * c.digamma()

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() - (x + 1) * (-y).log()
