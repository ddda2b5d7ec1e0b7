"""ExponentialFamily: densities of the form ``exp(<t(x), θ> - F(θ) + k(x))``.

Subclasses expose their natural parameters θ (``_natural_params``), the log-normaliser F
(``_log_normalizer``) and E[k(x)] (``_mean_carrier_measure``); the KL divergence between two members
of the same family can be written with these alone (a Bregman divergence of F).

Example:
    >>> import ember
    >>> isinstance(ember.distributions.Normal(0.0, 1.0), ember.distributions.ExponentialFamily)
    True
"""
from __future__ import annotations

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base of the exponential-family distributions (Normal, Gamma, Bernoulli, Poisson, ...)."""

    @property
    def _natural_params(self):
        raise NotImplementedError(f"{type(self).__name__} does not expose natural parameters")

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError(f"{type(self).__name__} does not define its log-normalizer")

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError(f"{type(self).__name__} does not define its carrier measure")
