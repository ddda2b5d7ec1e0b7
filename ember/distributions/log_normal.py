"""LogNormal: the law of ``exp(X)`` for ``X ~ Normal(loc, scale)``.

Example:
    >>> import ember
    >>> ember.distributions.LogNormal(0.0, 1.0).log_prob(ember.tensor(1.0))
    tensor(-0.9189)
"""
from __future__ import annotations

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """``exp`` of a Normal; ``loc`` and ``scale`` are the mean and std of ``log x``."""

    arg_constraints = dict(loc=constraints.real, scale=constraints.positive)
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        normal = Normal(loc, scale, validate_args=validate_args)
        super().__init__(normal, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        blank = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=blank)

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)

    @property
    def mean(self):
        return (self.loc + 0.5 * self.scale.pow(2)).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        # (e^{s²} - 1) e^{2μ + s²}
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
