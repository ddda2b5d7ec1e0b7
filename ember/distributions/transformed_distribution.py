"""TransformedDistribution: a base distribution pushed through a sequence of transforms.

Example:
    >>> import ember
    >>> from ember.distributions import Normal, TransformedDistribution
    >>> from ember.distributions.transforms import ExpTransform
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
    >>> d.log_prob(ember.tensor(1.0))
    tensor(-0.9189)
"""
from __future__ import annotations

from .._shape import Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


def _as_transform_list(transforms):
    if isinstance(transforms, list):
        if any(not isinstance(t, Transform) for t in transforms):
            raise ValueError("transforms must be a Transform or a list of Transforms")
        return transforms
    if not isinstance(transforms, Transform):
        raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
    return [transforms]


def _push(x, transforms):
    for t in transforms:
        x = t(x)
    return x


class TransformedDistribution(Distribution):
    """Law of ``y = f_n(...f_1(x))`` for ``x ~ base_distribution``; ``log_prob`` uses the change of
    variables formula, so the transforms should be bijective with known log-Jacobians."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.transforms = _as_transform_list(transforms)
        chain = ComposeTransform(self.transforms)
        base_ev = len(base_distribution.event_shape)
        full = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        need = chain.domain.event_dim
        if len(full) < need:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{need}, but got {Size(full)}.")
        out_shape = tuple(chain.forward_shape(full))
        # transforms with parameters may broadcast the base up to a larger batch
        wanted = tuple(chain.inverse_shape(out_shape))
        if wanted != full:
            base_distribution = base_distribution.expand(wanted[:len(wanted) - base_ev])
        if need > base_ev:
            base_distribution = Independent(base_distribution, need - base_ev)
        self.base_dist = base_distribution
        out_ev = max(chain.codomain.event_dim,
                     base_ev + chain.codomain.event_dim - chain.domain.event_dim)
        split = len(out_shape) - out_ev
        super().__init__(out_shape[:split], out_shape[split:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        pulled = tuple(batch_shape) + tuple(self.event_shape)
        for t in self.transforms[::-1]:
            pulled = t.inverse_shape(pulled)
        keep = len(pulled) - len(self.base_dist.event_shape)
        new.base_dist = self.base_dist.expand(pulled[:keep])
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new.transforms, new._validate_args = self.transforms, self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        last = self.transforms[-1].codomain
        extra = len(self.event_shape) - last.event_dim
        return constraints.independent(last, extra) if extra > 0 else last

    has_rsample = property(lambda self: self.base_dist.has_rsample)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return _push(self.base_dist.sample(sample_shape), self.transforms)

    def rsample(self, sample_shape=Size()):
        return _push(self.base_dist.rsample(sample_shape), self.transforms)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        total = 0.0
        ev = len(self.event_shape)  # event dims of the current point, walking backwards
        y = value
        for t in self.transforms[::-1]:
            x = t.inv(y)
            ev += t.domain.event_dim - t.codomain.event_dim
            total = total - _sum_rightmost(t.log_abs_det_jacobian(x, y), ev - t.domain.event_dim)
            y = x
        base_lp = self.base_dist.log_prob(y)
        return total + _sum_rightmost(base_lp, ev - len(self.base_dist.event_shape))

    def _orient_cdf(self, value):
        """Flip ``value`` to ``1 - value`` when the transforms are overall decreasing."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if type(sign) is int and sign == 1:
            return value
        return (value - 0.5) * sign + 0.5

    def cdf(self, value):
        x = value
        for t in self.transforms[::-1]:
            x = t.inv(x)
        if self._validate_args:
            self.base_dist._validate_sample(x)
        return self._orient_cdf(self.base_dist.cdf(x))

    def icdf(self, value):
        return _push(self.base_dist.icdf(self._orient_cdf(value)), self.transforms)
