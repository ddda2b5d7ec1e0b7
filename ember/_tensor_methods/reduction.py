"""Reduction methods (layer L2): torch's forms of ``dim``/``keepdim``/``dtype``/``correction`` turned
into the canonical params of ``_primitives/reduction.py``, plus the composites (nansum, nanmean, var_mean,
count_nonzero, norm, aminmax, median) and torch's named-tuple results (``return_types``).

Example:
    >>> import ember
    >>> x = ember.tensor([[1., 5.], [3., 2.]])
    >>> x.sum(), x.max(dim=1).indices.tolist(), x.var(0, unbiased=False).tolist()
    (tensor(11.), [1, 0], [1.0, 2.25])
"""
from __future__ import annotations

import functools
import operator

from .. import _dtype as D
from .._dispatch import dispatch, fast_method
from .._dispatch_inplace import dispatch_out
from .._errors import dtype_title
from .._primitives import linalg_spectral as LS
from .._primitives import reduction as R
from ..overrides import PLAIN_TYPES, try_torch_function
from ._args import TensorBase, as_dtype, size_args

__all__ = ["ReductionMixin", "FUNCTIONS", "return_types"]


# ----------------------------------------------------------------------------- named-tuple results
class return_types:
    """torch.return_types: tuples with named fields (``values``/``indices``...)."""


def _return_type(name: str, fields: tuple):
    """A tuple subclass like torch's structseq: built from one sequence, fields by name."""
    def __new__(cls, sequence):
        seq = tuple(sequence)
        if len(seq) != len(fields):
            raise TypeError(f"torch.return_types.{name}() takes a {len(fields)}-sequence "
                            f"({len(seq)}-sequence given)")
        return tuple.__new__(cls, seq)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))
    ns = {"__new__": __new__, "__repr__": __repr__, "__reduce__": __reduce__, "__slots__": (),
          "__module__": __name__, "__qualname__": f"return_types.{name}",  # so pickle finds it
          "_fields": fields, "n_fields": len(fields), "n_sequence_fields": len(fields)}
    for i, f in enumerate(fields):
        ns[f] = property(operator.itemgetter(i))
    cls = type(name, (tuple,), ns)
    setattr(return_types, name, cls)
    return cls


for _n in ("max", "min", "median"):
    _return_type(_n, ("values", "indices"))
_return_type("aminmax", ("min", "max"))


# ----------------------------------------------------------------------------- argument parsing
def _public(name: str, method: bool = True):
    """Wrap ``impl`` with the ``__torch_function__`` check and torch's public names."""
    def deco(impl):
        @functools.wraps(impl)
        def fn(input, *args, **kwargs):
            if type(input) not in PLAIN_TYPES:
                r = try_torch_function(fn, (input,), input, *args, **kwargs)
                if r is not NotImplemented:
                    return r
            return impl(input, *args, **kwargs)
        fn.__name__ = name
        fn.__qualname__ = f"Tensor.{name}" if method else name
        fn.__module__ = "ember._tensor" if method else "ember"
        return fn
    return deco


def _index(d, name, what="int"):
    if isinstance(d, int):
        return d
    if hasattr(d, "__index__") and not isinstance(d, float):
        return d.__index__()
    raise TypeError(f"{name}(): argument 'dim' must be {what}, not {type(d).__name__}")


def _norm1(d: int, ndim: int) -> int:
    bound = ndim if ndim > 1 else 1
    if not -bound <= d < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, "
                         f"{bound - 1}], but got {d})")
    return d + bound if d < 0 else d


def _dims(dim, ndim: int, name: str):
    """None / int / sequence -> None (all dims) or a sorted tuple of non-negative dims."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if not dim:
            return None
        out = []
        for d in dim:
            d = _norm1(_index(d, name, "tuple of ints"), ndim)
            if d in out:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            out.append(d)
        return tuple(sorted(out)) if ndim else None
    d = _norm1(_index(dim, name, "tuple of ints"), ndim)
    return (d,) if ndim else None


def _dim1(dim, ndim: int, name: str) -> int:
    return _norm1(_index(dim, name), ndim)


def _cast(input, dtype):
    """torch casts the input to a requested ``dtype`` before reducing."""
    dtype = as_dtype(dtype)
    return (input if input.dtype is dtype else input.to(dtype)), dtype


def _run(op, input, out, **params):
    if out is not None:
        return dispatch_out(op, out, input, **params)
    return dispatch(op, input, **params)


def _pair(res, out, cls):
    if out is not None:
        for o, r in zip(out, res):
            _copy_out(o, r)
        return cls(out)
    return cls(res)


def _copy_out(o, r):
    if tuple(o.shape) != tuple(r.shape):
        o._resize_for_out(tuple(r.shape))
    o.copy_(r)


# ----------------------------------------------------------------------------- sum / mean (hot path)
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum over ``dim`` (all dims when None); ints and bools sum to int64 unless ``dtype`` is given.

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).sum(0)
    tensor([4, 6])
    """
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(sum, (input,), input, dim, keepdim, dtype=dtype, out=out)
        if r is not NotImplemented:
            return r
    if dtype is None and out is None:
        if dim is None:
            return dispatch(R.sum, input, keepdim=True) if keepdim else dispatch(R.sum, input)
        if type(dim) is int:
            nd = input.dim()
            if -nd <= dim < nd:
                return dispatch(R.sum, input, dim=(dim % nd,), keepdim=keepdim)
    if dtype is not None:
        input, dtype = _cast(input, dtype)
    return _run(R.sum, input, out, dim=_dims(dim, input.dim(), "sum"), keepdim=keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean over ``dim`` (all dims when None); integer inputs need a floating ``dtype``.

    >>> import ember
    >>> ember.tensor([[1., 2.], [3., 4.]]).mean(1)
    tensor([1.5000, 3.5000])
    """
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(mean, (input,), input, dim, keepdim, dtype=dtype, out=out)
        if r is not NotImplemented:
            return r
    if dtype is None and out is None:
        if dim is None:
            return dispatch(R.mean, input, keepdim=True) if keepdim else dispatch(R.mean, input)
        if type(dim) is int:
            nd = input.dim()
            if -nd <= dim < nd:
                return dispatch(R.mean, input, dim=(dim % nd,), keepdim=keepdim)
    if dtype is not None:
        dt = as_dtype(dtype)
        if dt.category < 2:
            raise R._mean_error(dt, optional=True)
        input, dtype = _cast(input, dt)
    return _run(R.mean, input, out, dim=_dims(dim, input.dim(), "mean"), keepdim=keepdim,
                dtype=dtype)


for _f, _n in ((sum, "sum"), (mean, "mean")):
    _f.__qualname__, _f.__module__ = f"Tensor.{_n}", "ember._tensor"
# ``x.sum()`` / ``x.mean()`` (every flag at its default) on dispatch's generated fast path
sum, mean = fast_method(R.sum, sum), fast_method(R.mean, mean)


@_public("nansum")
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``sum`` treating NaN as zero."""
    if input.dtype.category >= 2:
        input = input.where(~input.isnan(), 0)
    if dtype is not None:
        input, dtype = _cast(input, dtype)
    return _run(R.sum, input, out, dim=_dims(dim, input.dim(), "nansum"), keepdim=keepdim,
                dtype=dtype)


@_public("nanmean")
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """``mean`` over the non-NaN elements."""
    if input.dtype.category < 2:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but "
                           f"got {dtype_title(input.dtype)}")
    valid = ~input.isnan()
    total = nansum(input, dim, keepdim, dtype=dtype)
    res = total / dispatch(R.sum, valid, dim=_dims(dim, input.dim(), "nanmean"), keepdim=keepdim)
    if out is not None:
        _copy_out(out, res)
        return out
    return res


@_public("prod")
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product over one ``dim`` (all elements when omitted); ints and bools give int64."""
    if dtype is not None:
        input, dtype = _cast(input, dtype)
    dims = None if dim is None else (_dim1(dim, input.dim(), "prod"),)
    if dims is not None and input.dim() == 0:
        dims = None
    return _run(R.prod, input, out, dim=dims, keepdim=keepdim, dtype=dtype)


# ----------------------------------------------------------------------------- extremes
@_public("amax")
def amax(input, dim=(), keepdim=False, *, out=None):
    """Largest value over ``dim`` (all dims when empty); the gradient is split among ties."""
    return _run(R.amax, input, out, dim=_dims(dim, input.dim(), "amax"), keepdim=keepdim)


@_public("amin")
def amin(input, dim=(), keepdim=False, *, out=None):
    """Smallest value over ``dim`` (all dims when empty); the gradient is split among ties."""
    return _run(R.amin, input, out, dim=_dims(dim, input.dim(), "amin"), keepdim=keepdim)


def _extreme(name, all_op, dim_op, pointwise):
    cls = getattr(return_types, name)

    def fn(input, dim=None, keepdim=False, *, other=None, out=None):
        if isinstance(dim, TensorBase):
            dim, other = None, dim
        if other is not None:
            if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
                r = try_torch_function(fn, (input, other), input, other, out=out)
                if r is not NotImplemented:
                    return r
            return pointwise(input, other, out=out)
        if type(input) not in PLAIN_TYPES:
            r = try_torch_function(fn, (input,), input, dim, keepdim, out=out)
            if r is not NotImplemented:
                return r
        if dim is None:
            if keepdim:
                raise TypeError(f"{name}() received an invalid combination of arguments - got "
                                "(Tensor, keepdim=bool)")
            return _run(all_op, input, out)
        if not isinstance(dim, int) and (isinstance(dim, float) or not hasattr(dim, "__index__")):
            raise TypeError(f"{name}() received an invalid combination of arguments - got "
                            f"({type(dim).__name__}), but expected (int dim, bool keepdim = False)")
        d = _dim1(dim, input.dim(), name)
        return _pair(dispatch(dim_op, input, dim=d, keepdim=keepdim), out, cls)
    fn.__name__ = name
    fn.__qualname__ = f"Tensor.{name}"
    fn.__module__ = "ember._tensor"
    fn.__doc__ = (f"``{name}(input)``: the {name}imum value; ``{name}(input, dim, keepdim=False)``: "
                  f"``(values, indices)`` along ``dim``; ``{name}(input, other)``: elementwise "
                  f"{name}imum.")
    return fn


def _maximum(a, b, *, out=None):
    return a.maximum(b) if out is None else out.copy_(a.maximum(b))


def _minimum(a, b, *, out=None):
    return a.minimum(b) if out is None else out.copy_(a.minimum(b))


max = _extreme("max", R.max_all, R.max_dim, _maximum)
min = _extreme("min", R.min_all, R.min_dim, _minimum)


@_public("aminmax")
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``(min, max)`` over ``dim`` (all elements when None) in one call."""
    if dim is None or input.dim() == 0:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
    else:
        d = _dim1(dim, input.dim(), "aminmax")
        if input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    dims = () if dim is None else dim
    return _pair((amin(input, dims, keepdim), amax(input, dims, keepdim)), out, return_types.aminmax)


def _arg(name, op):
    @_public(name)
    def fn(input, dim=None, keepdim=False):
        d = None if dim is None else _dim1(dim, input.dim(), name)
        if d is not None and input.dim() == 0:
            d = None
        return dispatch(op, input, dim=d, keepdim=keepdim)
    fn.__doc__ = f"Index of the {name[3:]}imum over ``dim`` (of the flattened input when None)."
    return fn


argmax = _arg("argmax", R.argmax)
argmin = _arg("argmin", R.argmin)


@_public("median")
def median(input, dim=None, keepdim=False, *, out=None):
    """The lower median of all elements, or ``(values, indices)`` along ``dim``."""
    if dim is None:
        return _run(R.median_all, input, out)
    d = _dim1(dim, input.dim(), "median")
    return _pair(dispatch(R.median_dim, input, dim=d, keepdim=keepdim), out, return_types.median)


# ----------------------------------------------------------------------------- var / std
def _correction(name, dim, unbiased, correction):
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        "(correction=..., unbiased=...): pass one of them")
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _var_family(name, op, method=True):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        if isinstance(dim, bool):  # var(input, unbiased)
            dim, unbiased = None, dim
        corr = _correction(name, dim, unbiased, correction)
        if input.dtype.category < 2:
            raise RuntimeError("std and var only support floating point and complex dtypes")
        return _run(op, input, out, dim=_dims(dim, input.dim(), name), correction=corr,
                    keepdim=keepdim)
    fn.__doc__ = (f"{'Variance' if name == 'var' else 'Standard deviation'} over ``dim`` with "
                  "Bessel's ``correction`` (default 1; ``unbiased=False`` means 0).")
    return _public(name, method)(fn)


var = _var_family("var", R.var)
std = _var_family("std", R.std)


def _with_mean(name, fn_):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        v = fn_(input, dim, unbiased, keepdim, correction=correction)
        m = mean(input, None if isinstance(dim, bool) else dim, keepdim)
        if out is not None:
            _copy_out(out[0], v), _copy_out(out[1], m)
            return tuple(out)
        return v, m
    fn.__doc__ = f"``({name.split('_')[0]}, mean)`` over ``dim``, as two tensors."
    return _public(name, method=False)(fn)


var_mean = _with_mean("var_mean", var)
std_mean = _with_mean("std_mean", std)


# ----------------------------------------------------------------------------- cumulative, logsumexp
def _cum(name, op):
    @_public(name)
    def fn(input, dim, *, dtype=None, out=None):
        if dtype is not None:
            input, dtype = _cast(input, dtype)
        d = _dim1(dim, input.dim(), name)
        return _run(op, input, out, dim=d, dtype=dtype)

    @_public(name + "_")
    def inplace(input, dim, *, dtype=None):
        return input.copy_(fn(input, dim, dtype=dtype))
    fn.__doc__ = f"Running {'sum' if name == 'cumsum' else 'product'} along ``dim``."
    inplace.__doc__ = f"In-place ``{name}``."
    return fn, inplace


cumsum, cumsum_ = _cum("cumsum", R.cumsum)
cumprod, cumprod_ = _cum("cumprod", R.cumprod)


@_public("logsumexp")
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed stably."""
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    return _run(R.logsumexp, input, out, dim=_dims(dim, input.dim(), "logsumexp"), keepdim=keepdim)


# ----------------------------------------------------------------------------- logical, counting
def _logical(name, op):
    @_public(name)
    def fn(input, dim=None, keepdim=False, *, out=None):
        if type(dim) in (list, tuple) and not dim and out is None:  # torch reduces nothing then
            return (input != 0).to(D.uint8) if input.dtype is D.uint8 else input != 0
        return _run(op, input, out, dim=_dims(dim, input.dim(), name), keepdim=keepdim)
    fn.__doc__ = f"True where {'any' if name == 'any' else 'every'} element over ``dim`` is nonzero."
    return fn


any = _logical("any", R.any)
all = _logical("all", R.all)


@_public("count_nonzero")
def count_nonzero(input, dim=None):
    """Number of nonzero elements over ``dim`` (int64)."""
    return sum(input != 0, dim)


# ----------------------------------------------------------------------------- norms
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """``linalg.vector_norm``: ``sum(|x|**ord) ** (1/ord)`` over ``dim`` (inf: max, 0: count)."""
    if type(x) not in PLAIN_TYPES:
        r = try_torch_function(vector_norm, (x,), x, ord, dim, keepdim, dtype=dtype, out=out)
        if r is not NotImplemented:
            return r
    if dtype is not None:
        dt = as_dtype(dtype)
        if not (x.dtype.is_floating_point or x.dtype.is_complex):  # torch checks before casting
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                               f"input. Got {dtype_title(x.dtype)}")
        if D.promote_types(x.dtype, dt) is not dt:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({dtype_title(x.dtype)}) "
                               "should be convertible without narrowing to the specified dtype "
                               f"({dtype_title(dt)})")
        x, _ = _cast(x, dt)
    ord = float(ord)
    return _run(R.linalg_vector_norm, x, out, ord=ord, dim=_dims(dim, x.dim(), "linalg.vector_norm"),
                keepdim=keepdim)


vector_norm.__module__ = "ember.linalg"


@_public("norm")
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector norm of ``input`` (``p`` = 'fro', a number, inf); matrix norms live in ember.linalg."""
    if p == "nuc":  # the sum of singular values over the two dims (all of a 2-D input)
        dims = list(range(input.dim())) if dim is None else [d % input.dim() for d in dim]
        if len(dims) != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dims}")
        moved = input.movedim(dims, [-2, -1])
        res = dispatch(LS.linalg_svdvals, moved)[0].sum(-1, dtype=dtype)
        if keepdim:
            res = res.unsqueeze(min(dims)).unsqueeze(max(dims))
        return out.copy_(res) if out is not None else res
    if isinstance(p, str):
        if p != "fro" or not (dim is None or isinstance(dim, int) or len(dim) <= 2):
            raise NotImplementedError(f"norm(p={p!r}): matrix norms are ember.linalg.matrix_norm")
        p = 2
    elif p is None:
        p = 2
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


@_public("dist")
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast)."""
    return vector_norm(input - other, p)


# ----------------------------------------------------------------------------- the mixin
@_public("hash_tensor")
def hash_tensor(input, dim=None, *, keepdim=False, mode=0):
    """XOR-hash (uint64) of ``input``'s elements over ``dim`` (None: all), each element first widened
    to 64 bits (float64 or int64) and reinterpreted as uint64.

    >>> import ember
    >>> ember.hash_tensor(ember.tensor([1, 2, 3])).item()
    0
    """
    dims = _dims(dim, input.dim(), "hash_tensor") if dim not in (None, ()) else dim
    return dispatch(R.hash_tensor, input, dim=dims, keepdim=keepdim, mode=mode)


class ReductionMixin:
    __slots__ = ()
    sum, mean, nansum, nanmean, prod = sum, mean, nansum, nanmean, prod
    amax, amin, max, min, aminmax, argmax, argmin, median = amax, amin, max, min, aminmax, argmax, \
        argmin, median
    var, std = var, std
    cumsum, cumsum_, cumprod, cumprod_, logsumexp = cumsum, cumsum_, cumprod, cumprod_, logsumexp
    any, all, count_nonzero, norm, dist = any, all, count_nonzero, norm, dist
    hash_tensor = hash_tensor

    def sum_to_size(self, *size):
        """Sum broadcast dims away so the result has ``size`` (the inverse of ``expand``)."""
        size = size_args(size, "sum_to_size")
        shape = tuple(self.shape)
        if shape == size:
            return self if shape else self.sum()  # torch sums a 0-d input (integers widen)
        lead = len(shape) - len(size)
        if lead < 0:
            raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
        dims = list(range(lead))
        for i, s in enumerate(size):
            if s == 1 and shape[lead + i] != 1:
                dims.append(lead + i)
            elif s != shape[lead + i]:
                raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
        out = dispatch(R.sum, self, dim=tuple(dims), keepdim=True, dtype=None) if dims else self
        return out.view(size) if lead else out


FUNCTIONS = dict(sum=sum, mean=mean, nansum=nansum, nanmean=nanmean, prod=prod, amax=amax, amin=amin,
                 max=max, min=min, aminmax=aminmax, argmax=argmax, argmin=argmin, median=median,
                 var=var, std=std, var_mean=var_mean, std_mean=std_mean, cumsum=cumsum,
                 cumprod=cumprod, logsumexp=logsumexp, any=any, all=all, count_nonzero=count_nonzero,
                 norm=norm, dist=dist, return_types=return_types, hash_tensor=hash_tensor)
