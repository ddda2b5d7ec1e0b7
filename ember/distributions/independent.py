"""Independent: treat the rightmost batch dims of a distribution as event dims, so ``log_prob``
and ``entropy`` sum over them.

Example:
    >>> import ember
    >>> from ember.distributions import Independent, Normal
    >>> d = Independent(Normal(ember.zeros(3), ember.ones(3)), 1)
    >>> d.batch_shape, d.event_shape, d.log_prob(ember.zeros(3)).shape
    (torch.Size([]), torch.Size([3]), torch.Size([]))
"""
from __future__ import annotations

from .._shape import Size
from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Wraps ``base_distribution``, moving ``reinterpreted_batch_ndims`` batch dims into the event."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        k, nb = reinterpreted_batch_ndims, len(base_distribution.batch_shape)
        if k > nb:
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {k} vs {nb}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = k
        full = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        split = nb - k
        super().__init__(full[:split], full[split:], validate_args=validate_args)

    has_rsample = property(lambda self: self.base_dist.has_rsample)
    has_enumerate_support = property(
        lambda self: self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support)

    @constraints.dependent_property
    def support(self):
        inner = self.base_dist.support
        k = self.reinterpreted_batch_ndims
        return constraints.independent(inner, k) if k else inner

    mean = property(lambda self: self.base_dist.mean)
    mode = property(lambda self: self.base_dist.mode)
    variance = property(lambda self: self.base_dist.variance)

    def sample(self, sample_shape=Size()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=Size()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
