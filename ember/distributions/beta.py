"""Beta distribution on ``[0, 1]`` with ``concentration1`` (α) and ``concentration0`` (β); a
two-component Dirichlet under the hood.

Example:
    >>> import ember
    >>> ember.distributions.Beta(2.0, 2.0).mean
    tensor(0.5000)
"""
from __future__ import annotations

from .._shape import Size
from .._tensor_methods.shape_copy import stack
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Density ``x^(α-1) (1-x)^(β-1) / B(α, β)``."""

    arg_constraints = dict(concentration1=constraints.positive, concentration0=constraints.positive)
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        a, b = broadcast_all(concentration1, concentration0)
        # component 0 of the Dirichlet is x, component 1 is 1 - x
        self._dirichlet = Dirichlet(stack([a, b], -1), validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    concentration1 = property(lambda self: self._dirichlet.concentration[..., 0])
    concentration0 = property(lambda self: self._dirichlet.concentration[..., 1])

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        s = a + b
        return a * b / (s * s * (s + 1))

    mode = property(lambda self: self._dirichlet.mode[..., 0])

    def rsample(self, sample_shape=Size()):
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value):
        x = self._checked(value)
        return self._dirichlet.log_prob(stack([x, 1.0 - x], -1))

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return x.lgamma() + y.lgamma() - (x + y).lgamma()
