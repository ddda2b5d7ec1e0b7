"""Dirichlet distribution over the simplex with ``concentration`` (last dim = event).

``rsample`` normalises reparameterised Gamma samples, so gradients flow to ``concentration``.

Example:
    >>> import ember
    >>> d = ember.distributions.Dirichlet(ember.tensor([1.0, 1.0, 1.0]))
    >>> d.log_prob(ember.tensor([0.2, 0.3, 0.5]))
    tensor(0.6931)
"""
from __future__ import annotations

from .. import _dtype as D
from .._shape import Size
from .._tensor_methods.random_dist import _standard_gamma
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = _standard_gamma(self.concentration.expand(shape))
        g = g.clamp(min=D.finfo(g.dtype).tiny)
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return ((c - 1.0).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concm1 / concm1.sum(-1, True)
        mask = (self.concentration < 1).all(-1)
        if bool(mask.any()):
            from .._tensor_methods.shape_copy import broadcast_tensors
            from .._creation import zeros_like
            onehot = zeros_like(mode)
            idx = self.concentration.argmax(-1, keepdim=True)
            onehot = onehot.scatter(-1, idx, 1.0)
            m, o = broadcast_tensors(mask.unsqueeze(-1), onehot)
            mode = o.where(m, mode)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (c.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma()
                - ((c - 1.0) * c.digamma()).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
