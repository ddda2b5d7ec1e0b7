"""Constraints: what values a parameter or a sample may take (``constraint.check(value)`` is a bool
tensor over the batch), with torch's names and reprs.

Example:
    >>> import ember
    >>> from ember.distributions import constraints
    >>> constraints.positive.check(ember.tensor([1.0, -1.0]))
    tensor([ True, False])
"""
from __future__ import annotations

from .. import _creation as C
from .. import _dtype as D
from .._tensor_methods.shape_copy import cat as _cat, stack as _stack

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
           "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
           "multinomial", "nonnegative", "nonnegative_integer", "one_hot", "positive",
           "positive_semidefinite", "positive_definite", "positive_integer", "real", "real_vector",
           "simplex", "square", "stack", "symmetric", "unit_interval"]


class Constraint:
    """A set of admissible values: ``is_discrete``, ``event_dim`` (rightmost dims forming one
    event) and ``check(value)`` giving a bool tensor of shape ``value.shape[:-event_dim]``."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        # public reprs drop the leading underscore of the private class name
        return type(self).__name__.lstrip("_") + "()"


# ----------------------------------------------------------------------------- dependent supports

_UNSET = NotImplemented  # torch's sentinel for "not known statically"


class _Dependent(Constraint):
    """Stand-in for a support that depends on other parameters; it cannot be checked."""

    def __init__(self, *, is_discrete=_UNSET, event_dim=_UNSET):
        self._is_discrete, self._event_dim = is_discrete, event_dim

    def _static(self, attr):
        found = getattr(self, "_" + attr)
        if found is _UNSET:
            raise NotImplementedError(f".{attr} cannot be determined statically")
        return found

    is_discrete = property(lambda self: self._static("is_discrete"))
    event_dim = property(lambda self: self._static("event_dim"))

    def __call__(self, *, is_discrete=_UNSET, event_dim=_UNSET):
        return _Dependent(is_discrete=self._is_discrete if is_discrete is _UNSET else is_discrete,
                          event_dim=self._event_dim if event_dim is _UNSET else event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    """Whether ``constraint`` is a (placeholder) dependent constraint."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """Decorator: a property that is also a dependent constraint (for ``support`` etc.)."""

    def __init__(self, fn=None, *, is_discrete=_UNSET, event_dim=_UNSET):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return type(self)(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with its rightmost ``reinterpreted_batch_ndims`` batch dims folded into
    the event (all of them must hold)."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        problems = [
            (isinstance(base_constraint, Constraint), "base_constraint must be a Constraint"),
            (isinstance(reinterpreted_batch_ndims, int) and reinterpreted_batch_ndims >= 0,
             "reinterpreted_batch_ndims must be a non-negative int")]
        for ok, msg in problems:
            if not ok:
                raise AssertionError(msg)
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, reinterpreted_batch_ndims

    is_discrete = property(lambda self: self.base_constraint.is_discrete)
    event_dim = property(lambda self: self.base_constraint.event_dim + self.reinterpreted_batch_ndims)

    def check(self, value):
        ok = self.base_constraint.check(value)
        k = self.reinterpreted_batch_ndims
        if ok.dim() < k:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        for _ in range(k):
            ok = ok.all(-1)
        return ok

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


# ----------------------------------------------------------------------------- elementwise sets

class _Param(Constraint):
    """Constraint with named scalar/tensor parameters shown in the repr as ``name=value``."""

    _names: tuple = ()

    def __init__(self, *args):
        for name, arg in zip(self._names, args, strict=True):
            setattr(self, name, arg)

    def __repr__(self):
        shown = ", ".join(f"{n}={getattr(self, n)}" for n in self._names)
        return f"{type(self).__name__.lstrip('_')}({shown})"


def _whole(v):
    return v.remainder(1).eq(0)


class _Real(Constraint):
    def check(self, value):
        return value.eq(value)  # NaN is the only value unequal to itself


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return value.eq(0).logical_or(value.eq(1))


class _GreaterThan(_Param):
    _names = ("lower_bound",)

    def check(self, value):
        return value.gt(self.lower_bound)


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value.ge(self.lower_bound)


class _LessThan(_Param):
    _names = ("upper_bound",)

    def check(self, value):
        return value.lt(self.upper_bound)


class _Interval(_Param):
    _names = ("lower_bound", "upper_bound")

    def check(self, value):
        return value.ge(self.lower_bound).logical_and(value.le(self.upper_bound))


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return value.ge(self.lower_bound).logical_and(value.lt(self.upper_bound))


class _IntegerGreaterThan(_GreaterThan):
    is_discrete = True

    def check(self, value):
        return _whole(value).logical_and(value.ge(self.lower_bound))


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value):
        return _whole(value).logical_and(super().check(value))


# ----------------------------------------------------------------------------- vector sets

class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        binary = value.eq(0).logical_or(value.eq(1)).all(-1)
        return binary.logical_and(value.sum(-1).eq(1))


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        sums_to_one = value.sum(-1).sub(1).abs().lt(1e-6)
        return value.ge(0).all(-1).logical_and(sums_to_one)


class _Multinomial(Constraint):
    """Non-negative counts whose total is at most ``upper_bound`` (torch checks only this)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return x.ge(0).all(-1).logical_and(x.sum(-1).le(self.upper_bound))


# ----------------------------------------------------------------------------- matrix sets

def _every_entry(mask):
    return mask.all(-1).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _every_entry(value.triu(1).eq(0))


class _LowerCholesky(_LowerTriangular):
    def check(self, value):
        return super().check(value).logical_and(value.diagonal(0, -2, -1).gt(0).all(-1))


class _CorrCholesky(_LowerCholesky):
    def check(self, value):
        n = value.shape[-1]
        tol = 10 * n * D.finfo(value.dtype).eps
        unit_rows = value.detach().pow(2).sum(-1).sqrt().sub(1.0).abs().le(tol).all(-1)
        return super().check(value).logical_and(unit_rows)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        rows, cols = value.shape[-2], value.shape[-1]
        return C.full(tuple(value.shape[:-2]), rows == cols, dtype=D.bool)


class _Symmetric(_Square):
    def check(self, value):
        ok = super().check(value)
        if not bool(ok.all()):
            return ok
        other = value.mT
        close = (value - other).abs().le(other.abs().mul(1e-5).add(1e-6))
        return _every_entry(close)


class _SpectralCondition(_Symmetric):
    """Symmetric matrices whose eigenvalues satisfy ``_spectrum_ok`` (asked only once every
    matrix in the batch is known to be symmetric)."""

    def check(self, value):
        ok = super().check(value)
        return self._spectrum_ok(value) if bool(ok.all()) else ok


class _PositiveSemidefinite(_SpectralCondition):
    def _spectrum_ok(self, value):
        from .. import linalg
        return linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_SpectralCondition):
    def _spectrum_ok(self, value):
        from .. import linalg
        return linalg.cholesky_ex(value).info.eq(0)  # Cholesky succeeds iff positive definite


# ----------------------------------------------------------------------------- combinations

class _Cat(Constraint):
    """Each of ``cseq`` checks its own block (``lengths``, default 1 each) of ``dim``."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        self.dim = dim

    is_discrete = property(lambda self: any(c.is_discrete for c in self.cseq))
    event_dim = property(lambda self: max(c.event_dim for c in self.cseq))

    def check(self, value):
        offsets = [sum(self.lengths[:i]) for i in range(len(self.lengths))]
        parts = [c.check(value.narrow(self.dim, off, n))
                 for c, off, n in zip(self.cseq, offsets, self.lengths)]
        return _cat(parts, self.dim)


class _Stack(Constraint):
    """The ``i``-th of ``cseq`` checks index ``i`` of ``dim``."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim

    is_discrete = property(lambda self: any(c.is_discrete for c in self.cseq))

    @property
    def event_dim(self):
        inner = max(c.event_dim for c in self.cseq)
        # a negative dim that reaches into the event makes the stacked dim part of it too
        return inner + (1 if self.dim + inner < 0 else 0)

    def check(self, value):
        return _stack([c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)], self.dim)


# public names: singletons for fixed sets, classes for parametrised ones
dependent, dependent_property = _Dependent(), _DependentProperty
real, boolean, one_hot, simplex = _Real(), _Boolean(), _OneHot(), _Simplex()
independent = _IndependentConstraint
real_vector = independent(real, 1)
positive, nonnegative = _GreaterThan(0.0), _GreaterThanEq(0.0)
nonnegative_integer, positive_integer = _IntegerGreaterThan(0), _IntegerGreaterThan(1)
unit_interval = _Interval(0.0, 1.0)
greater_than, greater_than_eq, less_than = _GreaterThan, _GreaterThanEq, _LessThan
interval, half_open_interval, integer_interval = _Interval, _HalfOpenInterval, _IntegerInterval
multinomial, cat, stack = _Multinomial, _Cat, _Stack
lower_triangular, lower_cholesky, corr_cholesky = _LowerTriangular(), _LowerCholesky(), _CorrCholesky()
square, symmetric = _Square(), _Symmetric()
positive_semidefinite, positive_definite = _PositiveSemidefinite(), _PositiveDefinite()
