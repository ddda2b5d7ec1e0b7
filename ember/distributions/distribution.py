"""Distribution: the common base (shapes, validation, expand, sampling defaults).

A subclass stores its parameters as attributes named like the keys of ``arg_constraints``;
:meth:`Distribution.expand` then works for it unchanged, and :meth:`_init_params` does the usual
"broadcast the parameters, take their shape as the batch shape" constructor body.

Example:
    >>> import ember
    >>> d = ember.distributions.Normal(ember.zeros(3), 1.0)
    >>> d.batch_shape, d.event_shape, d.sample((2,)).shape
    (torch.Size([3]), torch.Size([]), torch.Size([2, 3]))
"""
from __future__ import annotations

import warnings

from .._shape import Size
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import broadcast_all, lazy_property

__all__ = ["Distribution"]

_OWN_STATE = ("_batch_shape", "_event_shape", "_validate_args")


class Distribution:
    """Abstract base of every distribution (``torch.distributions.Distribution``)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument/sample validation on or off for distributions built from now on."""
        if value is not True and value is not False:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_params()
        super().__init__()

    # ---- construction helpers ------------------------------------------------------------------
    def _init_params(self, validate_args, **params):
        """Broadcast scalar-per-element parameters together, store them, and initialise the base
        with their common shape as ``batch_shape`` (no event dims)."""
        values = broadcast_all(*params.values())
        self.__dict__.update(zip(params, values))
        Distribution.__init__(self, values[0].shape, Size(), validate_args)

    def _check_params(self):
        try:
            specs = self.arg_constraints
        except NotImplementedError:
            specs = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        for name, constraint in specs.items():
            if constraints.is_dependent(constraint):
                continue
            # a lazily derived parameter (probs from logits, ...) is only checked once computed
            if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                continue
            value = getattr(self, name)
            if not bool(constraint.check(value).all()):
                raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                                 f"constraint {constraint!r}, but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """A blank instance for ``expand`` to fill; refuses subclasses whose ``__init__`` differs from
        ``cls``'s, since the generic filling would not know their extra state."""
        if _instance is not None:
            return _instance
        if type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that "
                                      "defines a custom __init__ method must also define a custom "
                                      ".expand() method.")
        return object.__new__(type(self))

    def expand(self, batch_shape, _instance=None):
        """A view of this distribution with ``batch_shape`` (parameters are expanded, not copied).

        Parameters (attributes named in ``arg_constraints``) and nested distributions are
        broadcast, keeping whatever trailing dims they carry beyond this batch shape; any other
        state is shared with the original.
        """
        # the concrete distribution class is the nearest one declaring its parameters
        owner = next((c for c in type(self).__mro__ if "arg_constraints" in c.__dict__), type(self))
        new = self._get_checked_instance(owner, _instance)
        batch_shape = Size(batch_shape)
        try:
            params = set(self.arg_constraints)
        except NotImplementedError:
            params = set()
        nb = len(self._batch_shape)
        for key, value in self.__dict__.items():
            if key in _OWN_STATE:
                continue
            if isinstance(value, Distribution):
                value = value.expand(tuple(batch_shape) + tuple(value.batch_shape[nb:]))
            elif key in params and isinstance(value, Tensor):
                value = value.expand(tuple(batch_shape) + tuple(value.shape[nb:]))
            new.__dict__[key] = value
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    # ---- shapes and properties -----------------------------------------------------------------
    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def _extended_shape(self, sample_shape=Size()) -> Size:
        """``sample_shape + batch_shape + event_shape``."""
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    # ---- sampling and densities ----------------------------------------------------------------
    def sample(self, sample_shape=Size()):
        """Draw ``sample_shape + batch_shape + event_shape`` values without tracking gradients."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        """Draw values through a reparameterisation, so gradients reach the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning,
                      stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _enumerate(self, values, expand):
        """``values`` (support points along dim 0, possibly with event dims after) laid out against
        the batch dims, as ``enumerate_support`` returns them."""
        n, event = values.shape[0], tuple(values.shape[1:])
        values = values.reshape((n,) + (1,) * len(self._batch_shape) + event)
        return values.expand((n,) + tuple(self._batch_shape) + event) if expand else values

    # ---- validation ----------------------------------------------------------------------------
    def _checked(self, value):
        """``value`` after ``_validate_sample`` when validation is on (for log_prob / cdf)."""
        if self._validate_args:
            self._validate_sample(value)
        return value

    def _validate_sample(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape, ev = tuple(value.shape), tuple(self._event_shape)
        if shape[len(shape) - len(ev):] != ev:
            raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs "
                             f"{self._event_shape}.")
        want = tuple(self._batch_shape) + ev
        if any(a != b and 1 not in (a, b) for a, b in zip(shape[::-1], want[::-1])):
            raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                             f"{value.shape} vs {Size(want)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. "
                          "Please initialize the distribution with `validate_args=False` to turn off "
                          "validation.", stacklevel=2)
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                             f"distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self) -> str:
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        shown = []
        for k in names:
            v = self.__dict__[k]
            shown.append(f"{k}: {v if v.numel() == 1 else v.shape}")
        return f"{type(self).__name__}({', '.join(shown)})"
