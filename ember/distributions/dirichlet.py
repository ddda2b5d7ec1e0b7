"""Dirichlet distribution on the probability simplex; ``concentration``'s last dim is the event.

``rsample`` normalises reparameterised Gamma draws, so gradients reach ``concentration``.

Example:
    >>> import ember
    >>> d = ember.distributions.Dirichlet(ember.tensor([1.0, 1.0, 1.0]))
    >>> d.log_prob(ember.tensor([0.2, 0.3, 0.5]))
    tensor(0.6931)
"""
from __future__ import annotations

from .. import _dtype as D
from .._creation import zeros_like
from .._shape import Size
from .._tensor_methods.random_dist import _standard_gamma
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _log_beta(alpha):
    """log of the multivariate Beta function over the last dim."""
    return alpha.lgamma().sum(-1) - alpha.sum(-1).lgamma()


class Dirichlet(ExponentialFamily):
    """Density ``prod_i x_i^(a_i - 1) / B(a)`` on the simplex, ``a = concentration``."""

    arg_constraints = dict(concentration=constraints.independent(constraints.positive, 1))
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args)

    _total = property(lambda self: self.concentration.sum(-1, keepdim=True))
    mean = property(lambda self: self.concentration / self._total)

    @property
    def variance(self):
        a, a0 = self.concentration, self._total
        return a * (a0 - a) / (a0 * a0 * (a0 + 1))

    @property
    def mode(self):
        excess = (self.concentration - 1).clamp(min=0)
        mode = excess / excess.sum(-1, keepdim=True)
        # when every a_i < 1 the density peaks at the vertex of the largest a_i
        corner = (self.concentration < 1).all(-1, keepdim=True)
        if bool(corner.any()):
            vertex = zeros_like(mode).scatter(-1, self.concentration.argmax(-1, keepdim=True), 1.0)
            mode = vertex.where(corner.expand(mode.shape), mode)
        return mode

    def rsample(self, sample_shape=Size()):
        g = _standard_gamma(self.concentration.expand(self._extended_shape(sample_shape)))
        g = g.clamp(min=D.finfo(g.dtype).tiny)
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        a = self.concentration
        return (a - 1).xlogy(self._checked(value)).sum(-1) - _log_beta(a)

    def entropy(self):
        a = self.concentration
        a0 = a.sum(-1)
        k = a.shape[-1]
        return _log_beta(a) + (a0 - k) * a0.digamma() - ((a - 1) * a.digamma()).sum(-1)

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return _log_beta(x)
