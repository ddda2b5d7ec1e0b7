"""``biject_to(constraint)`` / ``transform_to(constraint)``: a transform from unconstrained reals
onto a constraint's support (for optimising constrained parameters).

``biject_to`` always gives a bijection (e.g. stick breaking for the simplex); ``transform_to`` may
give a cheaper non-bijective map (softmax for the simplex) and knows more constraints.

Example:
    >>> import ember
    >>> from ember.distributions import biject_to, constraints
    >>> biject_to(constraints.positive)(ember.tensor(0.0))
    tensor(1.)
"""
from __future__ import annotations

from numbers import Number

from . import constraints as C
from . import transforms as T

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Lookup from a constraint's class to ``factory(constraint) -> Transform``."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Register ``factory`` for ``constraint`` (a Constraint subclass or an instance, meaning
        its class); without ``factory`` this is a decorator."""
        if factory is None:
            def decorate(fn):
                return self.register(constraint, fn)
            return decorate
        key = type(constraint) if isinstance(constraint, C.Constraint) else constraint
        if not (isinstance(key, type) and issubclass(key, C.Constraint)):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, "
                            f"but got {constraint}")
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        kind = type(constraint)
        if kind not in self._registry:
            raise NotImplementedError(f"Cannot transform {kind.__name__} constraints")
        return self._registry[kind](constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _identity(c):
    return T.identity_transform


def _exp_then_affine(loc, scale):
    return T.ComposeTransform([T.ExpTransform(), T.AffineTransform(loc, scale)])


def _above(c):
    return _exp_then_affine(c.lower_bound, 1)


def _below(c):
    return _exp_then_affine(c.upper_bound, -1)


def _is_number(v, target):
    return isinstance(v, Number) and v == target


def _between(c):
    lo, hi = c.lower_bound, c.upper_bound
    if _is_number(lo, 0) and _is_number(hi, 1):
        return T.SigmoidTransform()  # the unit interval needs no rescaling
    return T.ComposeTransform([T.SigmoidTransform(), T.AffineTransform(lo, hi - lo)])


def _independent_via(registry):
    def factory(c):
        return T.IndependentTransform(registry(c.base_constraint), c.reinterpreted_batch_ndims)
    return factory


# Both registries share these rules; positive/nonnegative are greater_than(_eq) instances, so
# they get exp followed by a shift by the bound (a shift by 0 for them), as in torch.
_SHARED = [
    (C.real, _identity),
    (C.greater_than, _above),
    (C.greater_than_eq, _above),
    (C.less_than, _below),
    (C.interval, _between),
    (C.half_open_interval, _between),
]
for _constraint, _factory in _SHARED:
    biject_to.register(_constraint, _factory)
    transform_to.register(_constraint, _factory)

biject_to.register(C.independent, _independent_via(biject_to))
transform_to.register(C.independent, _independent_via(transform_to))
biject_to.register(C.simplex, lambda c: T.StickBreakingTransform())
transform_to.register(C.simplex, lambda c: T.SoftmaxTransform())
transform_to.register(C.lower_cholesky, lambda c: T.LowerCholeskyTransform())
del _constraint, _factory
