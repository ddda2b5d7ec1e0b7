"""Masked reductions and normalisations of ``torch.masked`` on strided tensors (layer L4),
composites of ember ops, so gradients and meta shapes come from the ops they use.

Semantics (torch's): ``mask`` (bool, or anything castable to bool) broadcasts to ``input``'s shape;
``mask=None`` means every element takes part. An element where the mask is False is replaced by
the operation's identity before reducing (0 for sum/norm, 1 for prod, -inf for amax/logsumexp and
softmax, +inf for amin, NaN for median), so a slice with no element left gives that identity, and
mean/var/std give NaN (0 / 0). ``dim`` is an int, a tuple/list of ints, or None/() for every dim;
``dtype`` casts ``input`` first. ``argmax``/``argmin`` return their indices in ``input``'s dtype
(or ``dtype``), as torch does.
"""
from __future__ import annotations

import builtins
import math

from .. import _dtype as D
from .._creation import tensor as _tensor
from ..overrides import public
from ..linalg import vector_norm as _vector_norm

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
           "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std",
           "sum", "var"]


# ------------------------------------------------------------------------------ helpers
def _mask_of(input, mask):
    """``mask`` as a bool tensor of ``input``'s shape, or None (every element kept)."""
    if mask is None:
        return None
    if not hasattr(mask, "dtype"):
        mask = _tensor(mask, dtype=D.bool)
    if mask.dtype is not D.bool:
        mask = mask.to(D.bool)
    if tuple(mask.shape) != tuple(input.shape):
        mask = mask.expand(input.shape)
    return mask


def _dims(input, dim):
    """``dim`` normalised to a sorted tuple of non-negative dims; None and () mean every dim."""
    nd = input.dim()
    if dim is None:
        return tuple(range(nd))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims:
        return tuple(range(nd))
    lo, hi = (-1, 0) if nd == 0 else (-nd, nd - 1)
    out = []
    for d in dims:
        if not lo <= d <= hi:
            raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                             f"but got {d})")
        out.append(d % builtins.max(nd, 1))
    return tuple(sorted(set(out)))


def _cast(input, dtype):
    return input if dtype is None or input.dtype is dtype else input.to(dtype)


def _fill(input, mask, value):
    """``input`` with the masked-out elements replaced by ``value`` (their gradient is 0)."""
    return input if mask is None else input.masked_fill(~mask, value)


def _filled(input, mask, identity, dtype=None, *, cast_first=True):
    """``input`` cast to ``dtype``, the elements where ``mask`` is False replaced by ``identity`` (a
    value, or a function of ``input``'s dtype, called only when there is a mask). torch casts
    first, except for amax/amin/argmax/argmin, which fill with the input dtype's identity and
    then cast (``cast_first=False``)."""
    m = _mask_of(input, mask)
    if m is None:
        return _cast(input, dtype)
    if callable(identity):
        identity = identity(input.dtype)
    if cast_first:
        return _fill(_cast(input, dtype), m, identity)
    return _cast(_fill(input, m, identity), dtype)


def _lowest(dt):
    if dt.is_floating_point or dt.is_complex:
        return -math.inf
    if dt is D.bool:
        raise NotImplementedError(f"identity of amax on {dt} input")
    return D.iinfo(dt).min


def _highest(dt):
    if dt.is_floating_point or dt.is_complex:
        return math.inf
    if dt is D.bool:
        raise NotImplementedError(f"identity of amin on {dt} input")
    return D.iinfo(dt).max


def _all_dims(input, dims):
    return len(dims) == input.dim()


def _reduce_each(fn, x, dims, keepdim):
    """Apply a one-dim reduction ``fn(x, d)`` (keeping dims) over ``dims``, then drop them."""
    for d in dims:
        x = fn(x, d)
    if not keepdim:
        for d in reversed(dims):
            x = x.squeeze(d)
    return x


def _count(input, mask, dims, keepdim):
    """How many elements take part in each reduced slice (``input``'s float dtype)."""
    if mask is None:
        n = 1
        for d in dims:
            n *= input.shape[d]
        return n
    return mask.to(input.dtype).sum(dim=dims, keepdim=keepdim) if dims else mask.to(input.dtype)


def _sum_dims(x, dims, keepdim):
    return x.sum(dim=dims, keepdim=keepdim) if dims else x.clone()


# ------------------------------------------------------------------------------ reductions
@public
def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the elements where ``mask`` is True over ``dim``; 0 for an empty slice.

    Args:
        input: ``(*)``; mask: bool, broadcastable to ``input``.

    >>> import ember
    >>> ember.masked.sum(ember.tensor([1., 2., 3.]), mask=ember.tensor([True, False, True])).item()
    4.0
    """
    dims = _dims(input, dim)
    x = _filled(input, mask, 0, dtype)
    if _all_dims(input, dims) and not keepdim:
        return x.sum()
    return x.sum(dim=dims, keepdim=keepdim)


@public
def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the elements where ``mask`` is True over ``dim``; 1 for an empty slice.

    >>> import ember
    >>> ember.masked.prod(ember.tensor([2., 5., 3.]), mask=ember.tensor([True, False, True])).item()
    6.0
    """
    dims = _dims(input, dim)
    x = _filled(input, mask, 1, dtype)
    if _all_dims(input, dims) and not keepdim:
        return x.prod()
    if x.dtype.is_floating_point is False and not x.dtype.is_complex:
        x = x.to(D.int64)  # torch's prod of integers accumulates in int64
    return _reduce_each(lambda t, d: t.prod(d, keepdim=True), x, dims, keepdim)


@public
def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Maximum of the elements where ``mask`` is True; the dtype's lowest value (-inf) for an
    empty slice.

    >>> import ember
    >>> ember.masked.amax(ember.tensor([2., 5., 3.]), mask=ember.tensor([True, False, True])).item()
    3.0
    """
    x = _filled(input, mask, _lowest, dtype, cast_first=False)
    return x.amax(dim=_dims(input, dim), keepdim=keepdim)


@public
def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Minimum of the elements where ``mask`` is True; the dtype's highest value (inf) for an
    empty slice.

    >>> import ember
    >>> ember.masked.amin(ember.tensor([2., 1., 3.]), mask=ember.tensor([True, False, True])).item()
    2.0
    """
    x = _filled(input, mask, _highest, dtype, cast_first=False)
    return x.amin(dim=_dims(input, dim), keepdim=keepdim)


def _arg(name, input, dim, keepdim, dtype, mask, fill):
    x = _filled(input, mask, fill, dtype, cast_first=False)
    if dim is not None:
        idx = getattr(x, name)(dim=dim, keepdim=keepdim)
    else:
        idx = getattr(x, name)()
        if keepdim:
            idx = idx.reshape((1,) * x.dim())
    return idx.to(x.dtype)  # torch.masked returns the indices in the input's dtype


@public
def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the largest element where ``mask`` is True along ``dim`` (0 for an empty slice),
    in ``input``'s dtype.

    >>> import ember
    >>> ember.masked.argmax(ember.tensor([2., 5., 3.]), mask=ember.tensor([True, False, True])).item()
    2.0
    """
    return _arg("argmax", input, dim, keepdim, dtype, mask, _lowest)


@public
def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Index of the smallest element where ``mask`` is True along ``dim``, in ``input``'s dtype.

    >>> import ember
    >>> ember.masked.argmin(ember.tensor([2., 1., 3.]), mask=ember.tensor([True, False, True])).item()
    0.0
    """
    return _arg("argmin", input, dim, keepdim, dtype, mask, _highest)


def _need_float(name, x):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise ValueError(f"{name}(): Could not infer output dtype. Input dtype must be either a "
                         f"floating point or complex dtype. Got: {x.dtype}")


@public
def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the elements where ``mask`` is True; NaN for an empty slice.

    >>> import ember
    >>> ember.masked.mean(ember.tensor([2., 5., 4.]), mask=ember.tensor([True, False, True])).item()
    3.0
    """
    x = _cast(input, dtype)
    _need_float("mean", x)
    m = _mask_of(x, mask)
    dims = _dims(x, dim)
    if m is None:
        return x.mean(dim=dims, keepdim=keepdim) if dims else x.clone()
    total = _sum_dims(_fill(x, m, 0), dims, keepdim)
    return total / _count(x, m, dims, keepdim)


@public
def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median (the lower of the two middle values) of the elements where ``mask`` is True along
    one ``dim``; NaN for an empty slice.

    >>> import ember
    >>> ember.masked.median(ember.tensor([2., 9., 5., 4.]), mask=ember.tensor([True, False, True, True])).item()
    4.0
    """
    x = _cast(input, dtype)
    m = _mask_of(x, mask)
    d = _dims(x, dim)
    d = d[0] if x.dim() else 0
    was_int = not (x.dtype.is_floating_point or x.dtype.is_complex)
    # torch checks the input's dtype, not ``dtype``'s
    int_input = not (input.dtype.is_floating_point or input.dtype.is_complex)
    if int_input and m is not None and x.dim() and not bool(m.any(d).all()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating "
                         "point")
    xf = x.to(D.float64) if was_int else x
    xf = _fill(xf, m, math.nan)
    if x.dim() == 0:
        out = xf.clone()
    else:
        out = xf.nanmedian(d, keepdim=keepdim).values
    return out.to(x.dtype) if was_int else out


@public
def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """``log(sum(exp(x)))`` over the elements where ``mask`` is True; -inf for an empty slice.

    >>> import ember
    >>> round(ember.masked.logsumexp(ember.tensor([0., 9., 0.]), mask=ember.tensor([True, False, True])).item(), 4)
    0.6931
    """
    # masked-out elements take input's lowest value (-inf, or an integer dtype's minimum); the
    # result is computed in input's float dtype, then cast to ``dtype`` (default: input's dtype,
    # so integer inputs give truncated integers), as torch does
    x = _filled(input, mask, _lowest)
    return x.logsumexp(_dims(x, dim), keepdim=keepdim).to(dtype or input.dtype)


@public
def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector ``ord``-norm of the elements where ``mask`` is True (masked elements count as 0,
    or as inf for ``ord=-inf``).

    >>> import ember
    >>> ember.masked.norm(ember.tensor([3., 7., 4.]), mask=ember.tensor([True, False, True])).item()
    5.0
    """
    x = _filled(input, mask, math.inf if ord == -math.inf else 0)
    return _vector_norm(x, ord, _dims(x, dim), keepdim=keepdim, dtype=dtype)


def _var(name, input, dim, unbiased, correction, keepdim, dtype, mask):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    c = correction if correction is not None else (0 if unbiased is False else 1)
    x = _cast(input, dtype)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(D.get_default_dtype())
    m = _mask_of(x, mask)
    dims = _dims(x, dim)
    n = _count(x, m, dims, True)
    mu = _sum_dims(_fill(x, m, 0), dims, True) / n
    dev = _fill(x - mu, m, 0)
    sq = (dev * dev.conj()).real if dev.dtype.is_complex else dev * dev
    total = _sum_dims(sq, dims, keepdim)
    n = _count(x, m, dims, keepdim)
    denom = (n - c).clamp(min=0) if hasattr(n, "clamp") else builtins.max(n - c, 0)
    return total / denom


@public
def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Variance of the elements where ``mask`` is True, divided by ``count - correction``
    (``correction`` 1 unless ``unbiased=False``); NaN for an empty slice.

    >>> import ember
    >>> ember.masked.var(ember.tensor([1., 9., 3.]), mask=ember.tensor([True, False, True])).item()
    2.0
    """
    return _var("var", input, dim, unbiased, correction, keepdim, dtype, mask)


@public
def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Standard deviation (square root of ``masked.var``).

    >>> import ember
    >>> ember.masked.std(ember.tensor([1., 9., 3.]), correction=0, mask=ember.tensor([True, False, True])).item()
    1.0
    """
    return _var("std", input, dim, unbiased, correction, keepdim, dtype, mask).sqrt()


# ------------------------------------------------------------------------------ along one dim
def _one_dim(x, dim):
    return _dims(x, dim)[0] if x.dim() else 0


@public
def cumsum(input, dim, *, dtype=None, mask=None):
    """Running sum along ``dim`` where masked-out elements count as 0.

    >>> import ember
    >>> ember.masked.cumsum(ember.tensor([1., 2., 3.]), 0, mask=ember.tensor([True, False, True])).tolist()
    [1.0, 1.0, 4.0]
    """
    x = _filled(input, mask, 0, dtype)
    return x.cumsum(_one_dim(x, dim), dtype=x.dtype)  # torch keeps the input dtype (int32 too)


@public
def cumprod(input, dim, *, dtype=None, mask=None):
    """Running product along ``dim`` where masked-out elements count as 1.

    >>> import ember
    >>> ember.masked.cumprod(ember.tensor([2., 5., 3.]), 0, mask=ember.tensor([True, False, True])).tolist()
    [2.0, 2.0, 6.0]
    """
    x = _filled(input, mask, 1, dtype)
    return x.cumprod(_one_dim(x, dim), dtype=x.dtype)


@public
def softmax(input, dim, *, dtype=None, mask=None):
    """Softmax along ``dim`` over the elements where ``mask`` is True (0 elsewhere; NaN for an
    empty slice).

    >>> import ember
    >>> ember.masked.softmax(ember.tensor([1., 5., 1.]), 0, mask=ember.tensor([True, False, True])).tolist()
    [0.5, 0.0, 0.5]
    """
    x = _filled(input, mask, -math.inf, dtype)
    return x.softmax(_one_dim(x, dim))


@public
def log_softmax(input, dim, *, dtype=None, mask=None):
    """Log-softmax along ``dim`` over the elements where ``mask`` is True (-inf elsewhere).

    >>> import ember
    >>> ember.masked.log_softmax(ember.tensor([0., 5., 0.]), 0, mask=ember.tensor([True, False, True]))[1].item()
    -inf
    """
    x = _filled(input, mask, -math.inf, dtype)
    return x.log_softmax(_one_dim(x, dim))


@public
def softmin(input, dim, *, dtype=None, mask=None):
    """Softmin (softmax of ``-input``) along ``dim`` over the elements where ``mask`` is True.

    >>> import ember
    >>> ember.masked.softmin(ember.tensor([1., 0., 1.]), 0, mask=ember.tensor([True, False, True])).tolist()
    [0.5, 0.0, 0.5]
    """
    x = _filled(-_cast(input, dtype), mask, -math.inf)
    return x.softmax(_one_dim(x, dim))


@public
def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """``input / max(norm(input, ord, dim), eps)`` over the elements where ``mask`` is True
    (0 elsewhere).

    >>> import ember
    >>> ember.masked.normalize(ember.tensor([3., 9., 4.]), 2.0, 0, mask=ember.tensor([True, False, True])).tolist()
    [0.6000000238418579, 0.0, 0.800000011920929]
    """
    x = _cast(input, dtype)
    m = _mask_of(x, mask)
    d = _one_dim(x, dim)
    nrm = norm(x, ord, d, keepdim=True, mask=m)
    return _fill(x, m, 0) / nrm.clamp(min=eps)


@public
def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """``log(exp(input) + exp(other))`` where a masked-out term counts as ``exp(-inf) = 0``.

    >>> import ember
    >>> ember.masked.logaddexp(ember.tensor([1.]), ember.tensor([2.]), other_mask=ember.tensor([False])).item()
    1.0
    """
    return _filled(input, input_mask, -math.inf, dtype).logaddexp(
        _filled(other, other_mask, -math.inf, dtype))


# ------------------------------------------------------------------------------ mask helpers
_REDUCTIONS = frozenset(("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm",
                         "var", "std", "logsumexp"))
_NORMALIZATIONS = frozenset(("softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"))


def _input_mask(input, *args, **kwargs):
    """The ``mask`` keyword as a bool tensor of ``input``'s shape (torch.masked's helper, used by
    torch's gradient checks); a missing mask is a ValueError.

    >>> import ember
    >>> ember.masked._input_mask(ember.zeros(2, 2), mask=ember.tensor([True, False])).tolist()
    [[True, False], [True, False]]
    """
    mask = kwargs.get("mask")
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    return _mask_of(input, mask)


def _output_mask(op, input, *args, **kwargs):
    """Which elements of ``op(input, *args, **kwargs)`` have at least one unmasked input: the input
    mask reduced with ``any`` over the reduced dims for reductions, the input mask itself for
    normalisations and scans.

    >>> import ember
    >>> m = ember.tensor([[True, False], [False, False]])
    >>> ember.masked._output_mask(ember.masked.sum, ember.zeros(2, 2), 1, mask=m).tolist()
    [True, False]
    """
    import inspect

    name = getattr(op, "__name__", "")
    if name not in _REDUCTIONS | _NORMALIZATIONS:
        raise ValueError(f"_output_mask expected masked operation (got callable "
                         f"{getattr(op, '__module__', '')}.{name})")
    inmask = _input_mask(input, *args, **kwargs)
    if name in _NORMALIZATIONS:
        return inmask
    # a dim not given means every dim here, whatever the op's own default (median's is -1): torch's
    # helper reads dim from the call only
    bound = inspect.signature(op).bind(input, *args, **kwargs).arguments
    dims = _dims(input, bound.get("dim"))
    keepdim = bound.get("keepdim", False)
    if not dims:
        return inmask.clone()
    return inmask.any(dim=dims, keepdim=keepdim)
