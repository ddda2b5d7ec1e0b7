"""ExponentialFamily: the base of Normal, Bernoulli, Gamma, Beta, Dirichlet, Exponential, Poisson...

Example:
    >>> import ember
    >>> isinstance(ember.distributions.Normal(0.0, 1.0), ember.distributions.ExponentialFamily)
    True
"""
from __future__ import annotations

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """``p(x; θ) = exp(<t(x), θ> - F(θ) + k(x))``; subclasses give closed-form entropies."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError
