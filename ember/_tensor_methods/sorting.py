"""Sorting, selection, uniqueness and counting methods (layer L2): torch's argument forms turned into
the canonical params of ``_primitives/sorting.py``, plus the composites argsort, msort, quantile/nanquantile
(sort + gather + lerp, so they get autograd), bucketize, and torch's named-tuple results.

Example:
    >>> import ember
    >>> x = ember.tensor([3., 1., 2.])
    >>> x.sort().indices.tolist(), x.topk(2).values.tolist(), ember.unique(ember.tensor([2, 1, 2])).tolist()
    ([1, 2, 0], [3.0, 2.0], [1, 2])
"""
from __future__ import annotations

from .. import _dtype as D
from .._dispatch import dispatch
from .._dispatch_inplace import dispatch_out
from .._errors import dtype_title
from .._primitives import sorting as S
from ..overrides import public
from ._args import TensorBase
from .reduction import _copy_out, _norm1, _pair, _return_type, return_types

__all__ = ["SortingMixin", "FUNCTIONS"]

for _n, _f in (("sort", ("values", "indices")), ("topk", ("values", "indices")),
               ("kthvalue", ("values", "indices")), ("mode", ("values", "indices")),
               ("nanmedian", ("values", "indices")), ("histogram", ("hist", "bin_edges")),
               ("histogramdd", ("hist", "bin_edges"))):
    _return_type(_n, _f)


def _dim(dim, input, name="dim") -> int:
    if not isinstance(dim, int):
        if hasattr(dim, "__index__") and not isinstance(dim, float):
            dim = dim.__index__()
        else:
            raise TypeError(f"argument '{name}' must be int, not {type(dim).__name__}")
    return _norm1(dim, input.dim())


# ----------------------------------------------------------------------------- sort family
@public
def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """``(values, indices)`` sorted along ``dim`` (stable; NaN sorts as the largest value).

    >>> import ember
    >>> ember.sort(ember.tensor([2, 0, 1]), descending=True).values.tolist()
    [2, 1, 0]
    """
    res = dispatch(S.sort, input, dim=_dim(dim, input), descending=bool(descending))
    return _pair(res, out, return_types.sort)


@public
def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim``."""
    return sort(input, dim, descending, stable)[1]


@public
def msort(input, *, out=None):
    """``input`` sorted along dim 0 (values only)."""
    res = sort(input, 0)[0]
    return res if out is None else _out1(out, res)


def _out1(out, res):
    _copy_out(out, res)
    return out


@public
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) elements along ``dim``."""
    res = dispatch(S.topk, input, k=int(k), dim=_dim(dim, input), largest=bool(largest), sorted=sorted)
    return _pair(res, out, return_types.topk)


@public
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """``(values, indices)`` of the ``k``-th smallest element along ``dim``."""
    res = dispatch(S.kthvalue, input, k=int(k), dim=_dim(dim, input), keepdim=keepdim)
    return _pair(res, out, return_types.kthvalue)


@public
def mode(input, dim=-1, keepdim=False, *, out=None):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest among ties) and the
    index of its last occurrence."""
    res = dispatch(S.mode, input, dim=_dim(dim, input), keepdim=keepdim)
    return _pair(res, out, return_types.mode)


@public
def nanmedian(input, dim=None, keepdim=False, *, out=None):
    """Lower median ignoring NaN: of all elements, or ``(values, indices)`` along ``dim``."""
    if dim is None:
        res = dispatch(S.nanmedian_all, input)
        return res if out is None else _out1(out, res)
    res = dispatch(S.nanmedian_dim, input, dim=_dim(dim, input), keepdim=keepdim)
    return _pair(res, out, return_types.nanmedian)


# ----------------------------------------------------------------------------- quantile
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    scalar_q = not isinstance(q, TensorBase)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        q = input.new_full((1,), float(q))
    else:
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if q.numel() and not q.is_meta and not bool(((q >= 0) & (q <= 1)).all()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        scalar_q = q.dim() == 0
        q = q.reshape(-1)
    nd = input.dim()
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = _norm1(dim, nd)
        x = input.reshape(1) if nd == 0 else input
    s = x.sort(d).values.movedim(d, -1)  # shape: (..., n), NaN last
    n = s.shape[-1]
    lead = tuple(s.shape[:-1])
    # torch's choice of rank for NaN slices: the last element (a NaN) for quantile, the first for an
    # all-NaN slice of nanquantile, so the result is NaN and its gradient goes to that NaN
    if ignore_nan:
        valid = (n - s.isnan().sum(-1, keepdim=True)).to(input.dtype)
        ranks = q * (valid - 1)  # shape: (..., Q)
        ranks = ranks.masked_fill(ranks < 0, 0)
    else:
        nan_last = s[..., -1:].isnan()
        ranks = (q * (n - 1)).expand(lead + (q.shape[0],)).masked_fill(nan_last, n - 1)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    lo = ranks.floor().long()
    below = s.gather(-1, lo)
    if interpolation in ("linear", "midpoint"):
        above = s.gather(-1, ranks.ceil().long())
        w = ranks - lo.to(input.dtype) if interpolation == "linear" else \
            ranks.new_full(ranks.shape, 0.5)
        res = below.lerp(above, w)
    else:
        res = below
    res = res.movedim(-1, 0)  # shape: (Q, ...)
    if keepdim:
        if dim is None:
            res = res.reshape((res.shape[0],) + (1,) * nd)
        elif nd:
            res = res.unsqueeze(d + 1)
    return res[0] if scalar_q else res


def _quantile_fn(name, ignore_nan):
    def fn(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
        res = _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan)
        return res if out is None else _out1(out, res)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The ``q``-th quantiles of ``input`` along ``dim`` (all elements when None)"
                  f"{', ignoring NaN' if ignore_nan else ''}; ``q`` is a float or a 1-D tensor "
                  "(its dim comes first). ``interpolation``: linear, lower, higher, midpoint, nearest.")
    return public(fn)


quantile = _quantile_fn("quantile", False)
nanquantile = _quantile_fn("nanquantile", True)


# ----------------------------------------------------------------------------- unique
@public
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (slices along ``dim``), sorted; optionally the inverse indices and counts.

    >>> import ember
    >>> ember.unique(ember.tensor([3, 1, 3]), return_counts=True)
    (tensor([1, 3]), tensor([1, 2]))
    """
    d = None if dim is None else _dim(dim, input)
    vals, inv, counts = dispatch(S.unique, input, dim=d)
    return _pick(vals, inv, counts, return_inverse, return_counts)


def _pick(vals, inv, counts, return_inverse, return_counts):
    res = (vals,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return res[0] if len(res) == 1 else res


@public
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse every run of equal consecutive elements (slices along ``dim``) to one."""
    d = None if dim is None else _dim(dim, input)
    vals, inv, counts = dispatch(S.unique_consecutive, input, dim=d)
    return _pick(vals, inv, counts, return_inverse, return_counts)


# ----------------------------------------------------------------------------- searching and counting
def _side(side, right):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got "
                               "side of left while right was True")
        return side == "right"
    return bool(right)


@public
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
                 out=None):
    """Indices where ``input`` would be inserted into the last dim of ``sorted_sequence``.

    >>> import ember
    >>> ember.searchsorted(ember.tensor([1, 3, 5]), ember.tensor([3, 6])).tolist()
    [1, 3]
    """
    r = _side(side, right)
    if not isinstance(input, TensorBase) and sorted_sequence.dim() > 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries "
                           f"tensor dimension is 1, but we got boundaries tensor dim("
                           f"{sorted_sequence.dim()}) and input value's dim(0) numel(1)")
    if sorted_sequence.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but "
                           "got 0 dimension")
    if sorter is not None:
        if sorter.dtype is not D.int64:
            raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got "
                               f"dtype {dtype_title(sorter.dtype)}")
        if tuple(sorter.shape) != tuple(sorted_sequence.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but "
                               f"got boundary tensor {list(sorted_sequence.shape)}and got sorter tensor "
                               f"{list(sorter.shape)}")
    kw = dict(right=r, out_int32=bool(out_int32))
    if out is not None:
        return dispatch_out(S.searchsorted, out, sorted_sequence, input, sorter, **kw)
    return dispatch(S.searchsorted, sorted_sequence, input, sorter, **kw)


@public
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of every element of ``input`` among the 1-D ascending ``boundaries``."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


@public
def bincount(input, weights=None, minlength=0):
    """Count of every non-negative integer in the 1-D ``input`` (weighted sums with ``weights``)."""
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    return dispatch(S.bincount, input, weights, minlength=int(minlength))


@public
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Histogram with ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0)."""
    kw = dict(bins=int(bins), min=float(min), max=float(max))
    if out is not None:
        return dispatch_out(S.histc, out, input, **kw)
    return dispatch(S.histc, input, **kw)


@public
def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """``(hist, bin_edges)``: ``bins`` equal bins over ``range`` (or the data), or the given edges."""
    if range is not None:
        range = (float(range[0]), float(range[1]))
        if range[0] > range[1]:
            raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min {range[0]} "
                               f"max {range[1]}")
    if not isinstance(bins, TensorBase) and bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    res = dispatch(S.histogram, input, bins, weight, range=range, density=bool(density))
    return _pair(res, out, return_types.histogram)


@public
def histogramdd(input, bins, *, range=None, weight=None, density=False, out=None):
    """``(hist, bin_edges)`` of the points ``input`` ``(..., D)`` in D dims: ``bins`` is a count
    for every dim, a count per dim, or a list of D edge tensors; ``range`` is
    ``[min_0, max_0, ..., min_{D-1}, max_{D-1}]``."""
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    nd = input.shape[-1]
    if isinstance(bins, TensorBase) and bins.dim() == 0:
        bins = int(bins.item())
    edges = None
    if isinstance(bins, int):
        bins = [bins] * nd
    elif all(isinstance(b, TensorBase) for b in bins):
        edges, bins = list(bins), None
    else:
        bins = [int(b) for b in bins]
    if edges is not None and len(edges) != nd:
        raise RuntimeError(f"torch.histogramdd: expected {nd} sequences of bin edges for a "
                           f"{nd}-dimensional histogram but got {len(edges)}")
    if bins is not None and len(bins) != nd:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension "
                           "of the input.")
    if bins is not None:
        for k, b in enumerate(bins):
            if b <= 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {k}")
    if range is not None:
        range = [float(r) for r in range]
        if len(range) != 2 * nd:
            raise RuntimeError(f"torch.histogramdd: for a {nd}-dimensional histogram range should have "
                               f"{2 * nd} elements, but got {len(range)}")
        for k in builtins_range(nd):
            if range[2 * k] > range[2 * k + 1]:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                                   f"{range[2 * k]:g} max {range[2 * k + 1]:g} for dimension {k}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight "
                           f"tensor should have the same dtype, but got input({_short(input.dtype)}), "
                           f"and weight({_short(weight.dtype)})")
    hist, flat = dispatch(S.histogramdd, input, edges, weight, bins=bins, range=range,
                          density=bool(density))
    sizes = [e.shape[0] for e in edges] if edges is not None else [b + 1 for b in bins]
    res = (hist, tuple(flat.split(sizes)) if sizes else ())
    if out is not None:
        _copy_out(out[0], hist)
        for o, e in zip(out[1], res[1]):
            _copy_out(o, e)
        res = (out[0], tuple(out[1]))
    return return_types.histogramdd(res)


builtins_range = range


def _short(dt) -> str:
    return str(dt).replace("torch.", "").replace("float64", "double").replace("float32", "float")


@public
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of ``elements`` is in ``test_elements`` (either may be a scalar)."""
    if not isinstance(elements, TensorBase) and not isinstance(test_elements, TensorBase):
        raise TypeError("isin() received an invalid combination of arguments - got (scalar, scalar)")
    return dispatch(S.isin, elements, test_elements, invert=bool(invert))


@public
def unravel_index(indices, shape):
    """Coordinates in a tensor of ``shape`` of the flat ``indices`` (a tuple of tensors, one per dim;
    indices wrap around modulo the size, as in torch)."""
    if not isinstance(indices, TensorBase):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices.is_floating_point() or indices.is_complex() or indices.dtype is D.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    idx, coords = indices.long(), []
    for size in reversed(shape):
        coords.append(idx.remainder(size) if size else idx * 0)
        idx = idx.div(size, rounding_mode="floor") if size else idx
    return tuple(reversed(coords))


class SortingMixin:
    __slots__ = ()
    sort, argsort, msort, topk, kthvalue, mode, nanmedian = sort, argsort, msort, topk, kthvalue, mode, \
        nanmedian
    quantile, nanquantile, unique, unique_consecutive = quantile, nanquantile, unique, unique_consecutive
    bincount, histc, histogram = bincount, histc, histogram


FUNCTIONS = dict(sort=sort, argsort=argsort, msort=msort, topk=topk, kthvalue=kthvalue, mode=mode,
                 nanmedian=nanmedian, quantile=quantile, nanquantile=nanquantile, unique=unique,
                 unique_consecutive=unique_consecutive, searchsorted=searchsorted, bucketize=bucketize,
                 bincount=bincount, histc=histc, histogram=histogram, isin=isin, histogramdd=histogramdd,
                 unravel_index=unravel_index)
