"""Transforms: invertible maps with log|det J| (for TransformedDistribution and constraint registries).

Example:
    >>> import ember
    >>> from ember.distributions.transforms import ExpTransform
    >>> t = ExpTransform()
    >>> t.inv(t(ember.tensor(0.5)))
    tensor(0.5000)
"""
from __future__ import annotations

import math
import weakref
from numbers import Number

from .. import _dtype as D
from .._creation import full_like, zeros_like
from .._shape import broadcast_shapes as _bshape
from .._tensor_methods.shape_copy import cat
from . import constraints as C
from .utils import _sum_rightmost

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PowerTransform", "ReshapeTransform",
           "SigmoidTransform", "SoftplusTransform", "TanhTransform", "SoftmaxTransform",
           "StickBreakingTransform", "Transform", "identity_transform"]


def _log1p_exp(x):
    """Overflow-free ``log(1 + exp(x))``."""
    return x.relu() + x.abs().neg().exp().log1p()


def _squash(x):
    """Sigmoid kept strictly inside (0, 1) so logs and logits stay finite."""
    fi = D.finfo(x.dtype)
    return x.sigmoid().clamp(fi.tiny, 1.0 - fi.eps)


def _dependent_real():
    return C.dependent_property(is_discrete=False)


class Transform:
    """A map ``y = t(x)`` with ``inv``, ``log_abs_det_jacobian(x, y)``, ``domain``/``codomain``,
    ``bijective`` and ``sign``. With ``cache_size=1`` the last ``(x, y)`` pair is remembered, so
    ``t.inv(t(x))`` gives back the very object ``x``."""

    bijective = False
    domain = C.real
    codomain = C.real

    def __init__(self, cache_size: int = 0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._memo = (None, None)  # last (x, y) seen when caching
        self._inv = None           # weak reference to the inverse object

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_inv"] = None  # weak references do not pickle
        return state

    @property
    def event_dim(self) -> int:
        d_in, d_out = self.domain.event_dim, self.codomain.event_dim
        if d_in != d_out:
            raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")
        return d_in

    @property
    def inv(self):
        known = self._inv() if self._inv is not None else None
        if known is None:
            known = _InverseTransform(self)
            self._inv = weakref.ref(known)
        return known

    @property
    def sign(self) -> int:
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if cache_size == self._cache_size:
            return self
        if type(self).__init__ is not Transform.__init__:
            raise NotImplementedError(f"{type(self)}.with_cache is not implemented")
        return type(self)(cache_size=cache_size)

    def __eq__(self, other):
        return other is self

    def __ne__(self, other):
        return not self == other

    __hash__ = object.__hash__

    def _cached(self, arg, forward):
        if not self._cache_size:
            return self._call(arg) if forward else self._inverse(arg)
        x, y = self._memo
        if forward and arg is x:
            return y
        if not forward and arg is y:
            return x
        res = self._call(arg) if forward else self._inverse(arg)
        self._memo = (arg, res) if forward else (res, arg)
        return res

    def __call__(self, x):
        return self._cached(x, True)

    def _inv_call(self, y):
        return self._cached(y, False)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape


class _WithArgs(Transform):
    """Transforms built from constructor arguments; ``_clone_args`` lists them (without
    ``cache_size``) so ``with_cache`` can rebuild the transform."""

    def _clone_args(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if cache_size == self._cache_size:
            return self
        return type(self)(*self._clone_args(), cache_size=cache_size)


class _InverseTransform(Transform):
    """The inverse view of a transform; it owns a strong reference to the forward one."""

    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inv = transform

    @_dependent_real()
    def domain(self):
        return self._inv.codomain

    @_dependent_real()
    def codomain(self):
        return self._inv.domain

    bijective = property(lambda self: self._inv.bijective)
    sign = property(lambda self: self._inv.sign)
    inv = property(lambda self: self._inv)

    def with_cache(self, cache_size=1):
        return self._inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and other._inv == self._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"_InverseTransform({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return self._inv.log_abs_det_jacobian(y, x).neg()

    forward_shape = property(lambda self: self._inv.inverse_shape)
    inverse_shape = property(lambda self: self._inv.forward_shape)


def _chain_event_dim(start, steps):
    """Event dim reached after walking ``steps`` of ``(dim_in, dim_out)``: each step may grow it
    by its own change, and it never drops below what the step itself consumes/produces."""
    dim = start
    for d_in, d_out in steps:
        dim = max(dim + d_out - d_in, d_out)
    return dim


class ComposeTransform(_WithArgs):
    """``parts`` applied in order (the empty composition is the identity)."""

    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = [p.with_cache(cache_size) for p in parts] if cache_size else list(parts)

    def _clone_args(self):
        return (self.parts,)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and other.parts == self.parts

    __hash__ = object.__hash__

    @_dependent_real()
    def domain(self):
        if not self.parts:
            return C.real
        first = self.parts[0].domain
        steps = [(p.codomain.event_dim, p.domain.event_dim) for p in reversed(self.parts)]
        need = _chain_event_dim(self.parts[-1].codomain.event_dim, steps)
        return C.independent(first, need - first.event_dim) if need > first.event_dim else first

    @_dependent_real()
    def codomain(self):
        if not self.parts:
            return C.real
        last = self.parts[-1].codomain
        steps = [(p.domain.event_dim, p.codomain.event_dim) for p in self.parts]
        need = _chain_event_dim(self.parts[0].domain.event_dim, steps)
        return C.independent(last, need - last.event_dim) if need > last.event_dim else last

    bijective = property(lambda self: all(p.bijective for p in self.parts))

    @property
    def sign(self):
        total = 1
        for p in self.parts:
            total = total * p.sign
        return total

    @property
    def inv(self):
        known = self._inv() if self._inv is not None else None
        if known is None:
            known = ComposeTransform([p.inv for p in self.parts[::-1]])
            self._inv = weakref.ref(known)
            known._inv = weakref.ref(self)
        return known

    def __call__(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return zeros_like(x)
        # intermediate values; with caching parts these re-use the forward pass
        points = [x]
        for p in self.parts[:-1]:
            points.append(p(points[-1]))
        points.append(y)
        total, dim = 0, self.domain.event_dim
        for i, p in enumerate(self.parts):
            term = p.log_abs_det_jacobian(points[i], points[i + 1])
            total = total + _sum_rightmost(term, dim - p.domain.event_dim)
            dim += p.codomain.event_dim - p.domain.event_dim
        return total

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in self.parts[::-1]:
            shape = p.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(map(repr, self.parts))
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(_WithArgs):
    """``base_transform`` with its rightmost ``reinterpreted_batch_ndims`` dims treated as event."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform, self.reinterpreted_batch_ndims = (base_transform.with_cache(cache_size),
                                                               reinterpreted_batch_ndims)

    def _clone_args(self):
        return (self.base_transform, self.reinterpreted_batch_ndims)

    @_dependent_real()
    def domain(self):
        return C.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @_dependent_real()
    def codomain(self):
        return C.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    bijective = property(lambda self: self.base_transform.bijective)
    sign = property(lambda self: self.base_transform.sign)

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform._inv_call(y)

    def log_abs_det_jacobian(self, x, y):
        inner = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(inner, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    forward_shape = property(lambda self: self.base_transform.forward_shape)
    inverse_shape = property(lambda self: self.base_transform.inverse_shape)


def _swap_tail(shape, old, new):
    """Replace the trailing ``old`` dims of ``shape`` by ``new`` (error if they do not match)."""
    shape = tuple(shape)
    keep = len(shape) - len(old)
    tail = shape[max(keep, 0):]
    if keep < 0 or tail != old:
        raise ValueError(f"Shape mismatch: expected {tail} but got {old}")
    return shape[:keep] + new


class ReshapeTransform(_WithArgs):
    """Reshape the rightmost dims from ``in_shape`` to ``out_shape`` (same number of elements)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)

    def _clone_args(self):
        return (self.in_shape, self.out_shape)

    @C.dependent_property
    def domain(self):
        return C.independent(C.real, len(self.in_shape))

    @C.dependent_property
    def codomain(self):
        return C.independent(C.real, len(self.out_shape))

    def _call(self, x):
        return x.reshape(_swap_tail(x.shape, self.in_shape, self.out_shape))

    def _inverse(self, y):
        return y.reshape(_swap_tail(y.shape, self.out_shape, self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape)[:x.dim() - len(self.in_shape)])

    def forward_shape(self, shape):
        return _swap_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _swap_tail(shape, self.out_shape, self.in_shape)


class _Parameterless(Transform):
    """Transforms without parameters: any two instances of the same class are equal."""

    def __eq__(self, other):
        return type(other) is type(self)

    __hash__ = object.__hash__


class _IncreasingBijection(_Parameterless):
    """Parameterless, bijective and increasing (``sign = 1``): exp, sigmoid, softplus, tanh."""

    bijective = True
    sign = 1


class ExpTransform(_IncreasingBijection):
    """``y = exp(x)``."""

    codomain = C.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x  # d exp(x)/dx = exp(x)


class SigmoidTransform(_IncreasingBijection):
    """``y = 1 / (1 + exp(-x))``."""

    codomain = C.unit_interval

    def _call(self, x):
        return _squash(x)

    def _inverse(self, y):
        fi = D.finfo(y.dtype)
        return y.clamp(fi.tiny, 1.0 - fi.eps).logit()

    def log_abs_det_jacobian(self, x, y):
        # log(s(x) * (1 - s(x))) written without s(x) for stability
        return (_log1p_exp(x) + _log1p_exp(x.neg())).neg()


class SoftplusTransform(_IncreasingBijection):
    """``y = log(1 + exp(x))``."""

    codomain = C.positive

    def _call(self, x):
        return _log1p_exp(x)

    def _inverse(self, y):
        # x = log(exp(y) - 1) = y + log(1 - exp(-y))
        return y + y.neg().expm1().neg().log()

    def log_abs_det_jacobian(self, x, y):
        return _log1p_exp(x.neg()).neg()  # log sigmoid(x)


class TanhTransform(_IncreasingBijection):
    """``y = tanh(x)``."""

    codomain = C.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 * (log 2 - x - softplus(-2x)), finite for large |x|
        return (math.log(2.0) - x - _log1p_exp(x * -2.0)) * 2.0


class AbsTransform(_Parameterless):
    """``y = |x|`` (not bijective; the inverse returns the non-negative root)."""

    codomain = C.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


def _tensor_shape(v):
    return tuple(v.shape) if hasattr(v, "shape") else ()


def _all_equal(a, b):
    if isinstance(a, Number) and isinstance(b, Number):
        return a == b
    return bool((a == b).all())


class PowerTransform(_WithArgs):
    """``y = x ** exponent`` on positive reals."""

    domain = C.positive
    codomain = C.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent

    def _clone_args(self):
        return (self.exponent,)

    @property
    def sign(self):
        e = self.exponent
        return e.sign() if hasattr(e, "sign") else (e > 0) - (e < 0)

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and _all_equal(self.exponent, other.exponent)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1.0 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (y * self.exponent / x).abs().log()

    def forward_shape(self, shape):
        return tuple(_bshape(tuple(shape), _tensor_shape(self.exponent)))

    inverse_shape = forward_shape


class AffineTransform(_WithArgs):
    """``y = loc + scale * x``; ``event_dim`` rightmost dims form one event."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    def _clone_args(self):
        return (self.loc, self.scale, self._event_dim)

    @property
    def event_dim(self):
        return self._event_dim

    def _space(self):
        k = self._event_dim
        return C.independent(C.real, k) if k else C.real

    @_dependent_real()
    def domain(self):
        return self._space()

    @_dependent_real()
    def codomain(self):
        return self._space()

    def __eq__(self, other):
        return (isinstance(other, AffineTransform) and _all_equal(self.loc, other.loc)
                and _all_equal(self.scale, other.scale))

    __hash__ = object.__hash__

    @property
    def sign(self):
        s = self.scale
        if isinstance(s, Number):
            return (float(s) > 0) - (float(s) < 0)
        return s.sign()

    def _call(self, x):
        return x * self.scale + self.loc

    def _inverse(self, y):
        return (y - self.loc).div(self.scale)

    def log_abs_det_jacobian(self, x, y):
        s = self.scale
        logs = full_like(x, math.log(abs(s))) if isinstance(s, Number) else s.abs().log()
        batch = tuple(x.shape)[:x.dim() - self._event_dim]
        for _ in range(self._event_dim):
            logs = logs.sum(-1)
        return logs.expand(batch)

    def forward_shape(self, shape):
        return tuple(_bshape(tuple(shape), _tensor_shape(self.loc), _tensor_shape(self.scale)))

    inverse_shape = forward_shape


def _need_vector(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


class SoftmaxTransform(_Parameterless):
    """Unconstrained vectors onto the simplex via softmax (not bijective; ``inv`` is ``log``)."""

    domain = C.real_vector
    codomain = C.simplex

    def _call(self, x):
        return x.softmax(-1)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _need_vector(shape)
        return shape

    inverse_shape = forward_shape


def _stick_shift(n, like):
    """``log(n), log(n-1), ..., log(1)``: centres the breaks so x = 0 maps to the uniform point."""
    counts = like.new_ones(n).cumsum(-1).flip(-1)
    return counts.log()


class StickBreakingTransform(_Parameterless):
    """Unconstrained ``K-1`` vectors onto the ``K``-simplex by breaking a unit stick (bijective)."""

    domain = C.real_vector
    codomain = C.simplex
    bijective = True

    def _call(self, x):
        frac = _squash(x - _stick_shift(x.shape[-1], x))       # share of what is left
        left = (1 - frac).cumprod(-1)                           # stick left after each break
        ones = x.new_ones(tuple(x.shape[:-1]) + (1,))
        return cat([frac, ones], -1) * cat([ones, left], -1)

    def _inverse(self, y):
        head = y[..., :-1]
        rest = (1 - head.cumsum(-1)).clamp(min=D.finfo(y.dtype).tiny)
        return head.log() - rest.log() + _stick_shift(head.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        z = x - _stick_shift(x.shape[-1], x)
        # log dy_k/dx_k = log sigmoid'(z_k) + log(stick left) = -softplus(-z) - z + log y_k - ... combined
        return (y[..., :-1].log() - z - _log1p_exp(z.neg())).sum(-1)

    def forward_shape(self, shape):
        _need_vector(shape)
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _need_vector(shape)
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(_Parameterless):
    """Square matrices to lower-triangular ones with positive diagonal (``exp`` on the diagonal)."""

    domain = C.independent(C.real, 2)
    codomain = C.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(0, -2, -1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(0, -2, -1).log().diag_embed()
