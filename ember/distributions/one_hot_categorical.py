"""OneHotCategorical: a Categorical whose outcomes are one-hot vectors (event dim = last dim).

Example:
    >>> import ember
    >>> d = ember.distributions.OneHotCategorical(probs=ember.tensor([0.5, 0.5]))
    >>> d.sample().sum().item(), d.event_shape
    (1.0, torch.Size([2]))
"""
from __future__ import annotations

from .._creation import eye
from .._shape import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Categorical over K classes with samples encoded as length-K one-hot vectors."""

    arg_constraints = dict(probs=constraints.simplex, logits=constraints.real_vector)
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        cat = self._categorical
        super().__init__(cat.batch_shape, cat.param_shape[-1:], validate_args=validate_args)

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    _param = property(lambda self: self._categorical._param)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    def _one_hot(self, index):
        return eye(self._event_shape[0], dtype=self._param.dtype)[index]

    @property
    def mode(self):
        return self._one_hot(self.probs.argmax(-1))

    def sample(self, sample_shape=Size()):
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value):
        return self._categorical.log_prob(self._checked(value).argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        return self._enumerate(eye(self._event_shape[0], dtype=self._param.dtype), expand)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose ``rsample`` passes gradients to ``probs`` straight through the
    (non-differentiable) one-hot draw."""

    has_rsample = True

    def rsample(self, sample_shape=Size()):
        p = self._categorical.probs
        return self.sample(sample_shape) + (p - p.detach())
