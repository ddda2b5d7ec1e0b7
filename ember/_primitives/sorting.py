"""Sorting, selection, uniqueness and counting primitives (layer L1): sort, topk, kthvalue, mode,
nanmedian, unique, unique_consecutive, searchsorted, bincount, histc, histogram.

Kernels are vectorised over every slice at once (a stable argsort, run-length tricks on sorted data,
one ``np.searchsorted`` over row-tagged keys). Params arrive canonical from the method layer (``dim``
a non-negative int). Ops whose output shape depends on the data (unique, histogram with data-chosen
edges) have no meta rule, as in torch.
"""
from __future__ import annotations

import numpy as np

builtins_range = range  # histogramdd takes a parameter named range

from .. import _dtype as D
from .._errors import dtype_title
from ._registry import TensorMeta, primitive
from .creation import linspace_values
from .indexing import scatter
from .reduction import _median_of_all, _median_of_all_meta, _select, _value_index_meta, max_dim

_I64 = np.int64


def stable_argsort(a, dim: int, descending: bool = False):
    """Stable indices sorting ``a`` along ``dim``; NaN counts as the largest value (torch's order)."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    # reversed, sorted stably, reversed back: equal elements keep their original order
    n = a.shape[dim]
    rev = np.argsort(np.flip(a, dim), axis=dim, kind="stable")
    return (n - 1) - np.flip(rev, dim)


def _no_complex(name, a):
    if a.dtype.kind == "c":
        raise RuntimeError(f"{name}(): Sort does not support complex dtypes on CPU")


def _scatter_back(grad, idx, a_shape, dim):
    """The gradient of values picked by ``idx`` along ``dim``: scattered back, zeros elsewhere."""
    if not a_shape:
        return grad.reshape(())
    return grad.new_zeros(a_shape)._op(scatter, idx, grad, dim=dim)


# ----------------------------------------------------------------------------- sort / topk
@primitive("sort", kind="other", num_outputs=2, differentiable_outputs=(0,), node_name="SortBackward0")
def sort(a, *, dim, descending=False, stable=False):
    if a.dtype.kind == "c":
        raise TypeError  # the meta rule raises torch's error
    if a.ndim == 0:
        return a.copy(), np.zeros((), _I64)
    idx = stable_argsort(a, dim, descending)
    return np.take_along_axis(a, idx, axis=dim), idx


@sort.meta
def _(a, *, dim, descending=False, stable=False):
    if a.dtype.is_complex:
        raise RuntimeError("Sort does not support complex dtypes on CPU")
    return TensorMeta(a.shape, a.dtype), TensorMeta(a.shape, D.int64)


@sort.derivative
def _(grads, out1, *, a_shape, dim):
    return _scatter_back(grads[0], out1, a_shape, dim)


def _k_check(k, a_shape, dim):
    n = a_shape[dim] if a_shape else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")


@primitive("topk", kind="other", num_outputs=2, differentiable_outputs=(0,), node_name="TopkBackward0")
def topk(a, *, k, dim, largest=True, sorted=True):
    _k_check(k, a.shape, dim)
    if a.dtype.kind == "c":
        raise TypeError
    if a.ndim == 0:
        return a.copy(), np.zeros((), _I64)
    idx = np.take(stable_argsort(a, dim, largest), np.arange(k), axis=dim)
    return np.take_along_axis(a, idx, axis=dim), idx


@topk.meta
def _(a, *, k, dim, largest=True, sorted=True):
    _k_check(k, tuple(a.shape), dim)
    if a.dtype.is_complex:
        raise RuntimeError(f'"topk_cpu" not implemented for \'{dtype_title(a.dtype)}\'')
    shape = list(a.shape)
    if shape:
        shape[dim] = k
    return TensorMeta(shape, a.dtype), TensorMeta(shape, D.int64)


@topk.derivative
def _(grads, out1, *, a_shape, dim):
    return _scatter_back(grads[0], out1, a_shape, dim)


# ----------------------------------------------------------------------------- kthvalue / mode / nanmedian
def _nonempty_dim_meta(name, a, dim, keepdim):
    """``_value_index_meta`` for ops that need a non-empty ``dim`` (mode, nanmedian)."""
    if a.dim() and a.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    return _value_index_meta(a, dim, keepdim)


def _kth_check(k, shape, dim):
    n = shape[dim] if shape else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")


@primitive("kthvalue", kind="reduction", num_outputs=2, differentiable_outputs=(0,),
           node_name="KthvalueBackward0")
def kthvalue(a, *, k, dim, keepdim=False):
    _kth_check(k, a.shape, dim)
    if a.ndim == 0:
        return a.copy(), np.zeros((), _I64)
    idx = np.take(np.argsort(a, axis=dim, kind="stable"), [k - 1], axis=dim)
    return _select(a, idx, dim, keepdim)


@kthvalue.meta
def _(a, *, k, dim, keepdim=False):
    _kth_check(k, tuple(a.shape), dim)
    return _value_index_meta(a, dim, keepdim)


kthvalue.derivative(max_dim.backward)


def _last_axis(a, dim):
    """``a`` with ``dim`` moved last and the rest flattened: shape (rows, n)."""
    m = np.moveaxis(a, dim, -1)
    return m.reshape(-1, m.shape[-1]), m.shape[:-1]


@primitive("mode", kind="reduction", num_outputs=2, differentiable_outputs=(0,), node_name="ModeBackward0")
def mode(a, *, dim, keepdim=False):
    if a.ndim == 0:
        return a.copy(), np.zeros((), _I64)
    if a.shape[dim] == 0:
        raise IndexError
    rows, lead = _last_axis(a, dim)
    n = rows.shape[1]
    order = np.argsort(rows, axis=1, kind="stable")
    s = np.take_along_axis(rows, order, axis=1)
    pos = np.arange(n)
    new_run = np.ones(s.shape, bool)
    new_run[:, 1:] = s[:, 1:] != s[:, :-1]
    start = np.maximum.accumulate(np.where(new_run, pos, 0), axis=1)
    length = pos - start + 1  # the run's length so far; full at its last element
    end_of_run = np.ones(s.shape, bool)
    end_of_run[:, :-1] = new_run[:, 1:]
    # the smallest value among the most frequent; torch reports its last occurrence
    best = np.argmax(np.where(end_of_run, length, 0), axis=1)[:, None]
    vals = np.take_along_axis(s, best, axis=1)[:, 0].reshape(lead)
    idx = np.take_along_axis(order, best, axis=1)[:, 0].reshape(lead)
    if keepdim:
        vals, idx = np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return vals, idx.astype(_I64)


@mode.meta
def _(a, *, dim, keepdim=False):
    return _nonempty_dim_meta("mode", a, dim, keepdim)


mode.derivative(max_dim.backward)


def _nan_lower_median(a, dim):
    """Indices (keepdims) of the lower median of the non-NaN elements (index 0 when all are NaN)."""
    order = np.argsort(a, axis=dim, kind="stable")  # NaNs last
    valid = a.shape[dim] - np.add.reduce(np.isnan(a), axis=dim, keepdims=True) \
        if a.dtype.kind == "f" else np.full((1,) * a.ndim, a.shape[dim])
    k = np.maximum((valid - 1) // 2, 0)
    idx = np.take_along_axis(order, np.broadcast_to(k, tuple(1 if i == dim else s for i, s in
                                                            enumerate(a.shape))), axis=dim)
    return np.where(valid == 0, 0, idx)


@primitive("nanmedian_dim", kind="reduction", num_outputs=2, differentiable_outputs=(0,),
           node_name="NanmedianBackward1")
def nanmedian_dim(a, *, dim, keepdim=False):
    if a.ndim == 0:
        return a.copy(), np.zeros((), _I64)
    if a.shape[dim] == 0:
        raise IndexError
    return _select(a, _nan_lower_median(a, dim), dim, keepdim)


@nanmedian_dim.meta
def _(a, *, dim, keepdim=False):
    return _nonempty_dim_meta("nanmedian", a, dim, keepdim)


nanmedian_dim.derivative(max_dim.backward)


@primitive("nanmedian_all", kind="reduction", node_name="NanmedianBackward0")
def nanmedian_all(a):
    return _median_of_all(a, _nan_lower_median)


nanmedian_all.meta(_median_of_all_meta)


@nanmedian_all.derivative
def _(grad, a, out):
    mask = (a == out).logical_or(a.isnan().logical_and(out.isnan()))
    return grad / mask.sum() * mask


# ----------------------------------------------------------------------------- unique
def _data_dependent(name):
    def rule(*args, **params):
        raise NotImplementedError(f"aten::{name}: attempted to run this operator with Meta tensors, but "
                                  "its output shape depends on the data, so it has no meta kernel")
    return rule


def _runs(keys, n):
    """From ``new`` flags of sorted data: (first index of each run, run id of every element)."""
    ids = np.cumsum(keys) - 1
    return np.flatnonzero(keys), ids


@primitive("unique", kind="other", num_outputs=3)
def unique(a, *, dim=None):
    """(values, inverse, counts) of ``a`` (flattened when ``dim`` is None), sorted; NaNs stay apart."""
    if dim is None:
        flat = a.reshape(-1)
        order = np.argsort(flat, kind="stable")
        s = flat[order]
        new = np.ones(s.shape, bool)
        if s.size:
            new[1:] = s[1:] != s[:-1]  # NaN != NaN: every NaN is its own value, as in torch
        starts, ids = _runs(new, s.size)
        inverse = np.empty(s.size, _I64)
        inverse[order] = ids
        counts = np.diff(np.append(starts, s.size)).astype(_I64)
        return s[starts], inverse.reshape(a.shape), counts
    moved = np.moveaxis(a, dim, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    if rows.shape[1] == 0:  # torch: every slice is equal to the others when slices are empty
        n = rows.shape[0]
        keep = min(n, 1)
        vals = np.moveaxis(moved[:keep], 0, dim)
        return vals.copy(), np.zeros(n, _I64), np.array([n] * keep, _I64)
    order = np.lexsort(rows.T[::-1]) if rows.shape[0] else np.zeros(0, _I64)
    s = rows[order]
    new = np.ones(s.shape[0], bool)
    if s.shape[0]:
        new[1:] = np.logical_or.reduce(s[1:] != s[:-1], axis=1)
    starts, ids = _runs(new, s.shape[0])
    inverse = np.empty(s.shape[0], _I64)
    inverse[order] = ids
    counts = np.diff(np.append(starts, s.shape[0])).astype(_I64)
    vals = np.moveaxis(moved[order[starts]], 0, dim)
    return np.ascontiguousarray(vals), inverse, counts


unique.meta(_data_dependent("_unique2"))


@primitive("unique_consecutive", kind="other", num_outputs=3)
def unique_consecutive(a, *, dim=None):
    """(values, inverse, counts) collapsing runs of equal consecutive elements (or slices on ``dim``)."""
    if dim is None:
        flat = a.reshape(-1)
        new = np.ones(flat.shape, bool)
        if flat.size:
            new[1:] = flat[1:] != flat[:-1]
        starts, ids = _runs(new, flat.size)
        counts = np.diff(np.append(starts, flat.size)).astype(_I64)
        return flat[starts], ids.astype(_I64).reshape(a.shape), counts
    moved = np.moveaxis(a, dim, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
    new = np.ones(rows.shape[0], bool)
    if rows.shape[0]:
        new[1:] = np.logical_or.reduce(rows[1:] != rows[:-1], axis=1) if rows.shape[1] else False
    starts, ids = _runs(new, rows.shape[0])
    counts = np.diff(np.append(starts, rows.shape[0])).astype(_I64)
    return np.ascontiguousarray(np.moveaxis(moved[starts], 0, dim)), ids.astype(_I64), counts


unique_consecutive.meta(_data_dependent("unique_consecutive"))


# ----------------------------------------------------------------------------- searchsorted
@primitive("searchsorted", kind="other")
def searchsorted(seq, values, sorter=None, *, right=False, out_int32=False):
    """Insertion points of ``values`` into the last dim of ``seq`` (one sequence per leading index)."""
    side = "right" if right else "left"
    dt = np.int32 if out_int32 else _I64
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter, axis=-1)
    scalar = not isinstance(values, np.ndarray)
    vals = np.asarray(values)
    if seq.ndim == 1:
        return np.asarray(np.searchsorted(seq, vals, side=side), dt)
    if seq.size == 0 or vals.size == 0:  # an empty row (n == 0) puts every value at 0
        return np.zeros(vals.shape, dt)
    # one searchsorted for every row: values are replaced by dense ranks tagged with their row, so
    # rows never mix and the order within a row is kept
    n = seq.shape[-1]
    seq2 = seq.reshape(-1, n)
    v2 = vals.reshape(seq2.shape[0], -1)
    both = np.concatenate([seq2.reshape(-1), v2.reshape(-1)])
    _, rank = np.unique(both, return_inverse=True)
    span = rank.max() + 2 if rank.size else 1
    rank = rank.astype(_I64)
    rows = seq2.shape[0]
    sk = rank[:seq2.size].reshape(rows, n) + np.arange(rows)[:, None] * span
    vk = rank[seq2.size:].reshape(rows, -1) + np.arange(rows)[:, None] * span
    pos = np.searchsorted(sk.reshape(-1), vk, side=side) - np.arange(rows)[:, None] * n
    res = pos.reshape(vals.shape).astype(dt)
    return res if not scalar else res.reshape(())


@searchsorted.meta
def _(seq, values, sorter=None, *, right=False, out_int32=False):
    vshape = tuple(values.shape) if hasattr(values, "shape") else ()
    if seq.dim() > 1 and tuple(seq.shape[:-1]) != vshape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                           "N-1 dimensions of boundaries tensor and input value tensor must match, but "
                           f"we got boundaries tensor {list(seq.shape)} and input value tensor "
                           f"{list(vshape)}")
    return TensorMeta(vshape, D.int32 if out_int32 else D.int64)


# ----------------------------------------------------------------------------- counting
@primitive("bincount", kind="other")
def bincount(a, weights=None, *, minlength=0):
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return np.bincount(a, minlength=minlength).astype(_I64)
    if weights.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dt = weights.dtype if weights.dtype.kind == "f" else np.float64
    return np.bincount(a, weights=weights, minlength=minlength).astype(out_dt)


bincount.meta(_data_dependent("bincount"))


def _histc_range(a, lo, hi):
    if lo == hi and a.size:
        lo, hi = a.min().item(), a.max().item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return lo, hi


def _edges(lo, hi, bins, dtype):
    """``bins + 1`` equal-width edges: torch.linspace's values in ``dtype`` (checked)."""
    if dtype in (np.float32, np.float64):
        return linspace_values(lo, hi, bins + 1, dtype.type)
    return np.linspace(lo, hi, bins + 1).astype(dtype)


def _upper_bound(edges, a):
    """C++'s ``std::upper_bound`` (the halving binary search) for every element of ``a``, also
    on unsorted ``edges``, where it differs from NumPy's ``searchsorted``: torch bins with it."""
    first = np.zeros(a.shape, np.int64)
    count = np.full(a.shape, edges.size, np.int64)
    while (count > 0).any():
        step = count // 2
        mid = first + step
        right = (count > 0) & ~(a < edges[np.minimum(mid, edges.size - 1)])
        first = np.where(right, mid + 1, first)
        count = np.where(right, count - step - 1, step)
    return first


def _bin_of(a, edges):
    """Bin of every element (the last bin closed); -1 when outside ``[edges[0], edges[-1]]``.
    Unsorted edges bin as torch's do (checked on random edges): an upper-bound search."""
    nb = edges.size - 1
    if np.all(edges[1:] >= edges[:-1]):
        idx = np.searchsorted(edges, a, side="right") - 1
    else:
        idx = _upper_bound(edges, a) - 1
    idx = np.minimum(idx, nb - 1)
    inside = (a >= edges[0]) & (a <= edges[-1])
    return np.where(inside & (idx >= 0), idx, -1)


def _weighted_count(idx, weights, nb, dtype):
    keep = idx >= 0
    w = None if weights is None else weights.reshape(-1)[keep.reshape(-1)]
    return np.bincount(idx[keep].reshape(-1), weights=w, minlength=nb)[:nb].astype(dtype)


@primitive("histc", kind="other")
def histc(a, *, bins=100, min=0, max=0):
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{dtype_title(D.FROM_NP[a.dtype])}'")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " + str(bins) + " for dim 0")
    if min > max:
        raise RuntimeError("torch.histc(): max must be larger than min")
    lo, hi = _histc_range(a, min, max)
    edges = np.linspace(lo, hi, bins + 1).astype(a.dtype)
    return _weighted_count(_bin_of(a.reshape(-1), edges), None, bins, a.dtype)


@histc.meta
def _(a, *, bins=100, min=0, max=0):
    return TensorMeta((bins,), a.dtype)


@primitive("histogram", kind="other", num_outputs=2)
def histogram(a, bins, weight=None, *, range=None, density=False):
    """(hist, bin_edges): ``bins`` is a count (equal widths over ``range`` or the data) or the edges."""
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{dtype_title(D.FROM_NP[a.dtype])}'")
    if isinstance(bins, np.ndarray):
        edges = bins.astype(a.dtype)
    else:
        if range is not None:
            lo, hi = range
        else:
            lo, hi = (a.min().item(), a.max().item()) if a.size else (0.0, 1.0)  # torch: [0, 1] when empty
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _edges(lo, hi, bins, a.dtype)
    nb = edges.size - 1
    hist = _weighted_count(_bin_of(a.reshape(-1), edges), weight, nb, a.dtype)
    if density:
        total = hist.sum()
        hist = (hist / (total * np.diff(edges))).astype(a.dtype)
    return hist, edges


histogram.meta(_data_dependent("histogram"))


@primitive("histogramdd", kind="other", num_outputs=2)
def histogramdd(a, bin_edges, weight=None, *, bins=None, range=None, density=False):
    """(hist, all edges concatenated): ``a`` is ``(..., D)``; per dim either the given edges
    (``bin_edges``, a list of D arrays) or ``bins[k]`` equal bins over ``range[2k:2k+2]`` (or the
    data's min/max, widened by 0.5 each side when they are equal)."""
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"histogramdd" not implemented for '
                                  f"'{dtype_title(D.FROM_NP[a.dtype])}'")
    nd = a.shape[-1]
    pts = a.reshape(-1, nd)
    edges = []
    for k in builtins_range(nd):
        if bin_edges is not None:
            edges.append(np.asarray(bin_edges[k]).astype(a.dtype))
            continue
        if range is not None:
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
        else:
            col = pts[:, k]
            lo, hi = (col.min().item(), col.max().item()) if col.size else (0.0, 1.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(_edges(lo, hi, bins[k], a.dtype))
    counts = tuple(e.size - 1 for e in edges)
    idx = [_bin_of(pts[:, k], edges[k]) for k in builtins_range(nd)]
    outside = np.zeros(pts.shape[0], dtype=bool)
    for i in idx:
        outside |= i < 0
    flat = np.ravel_multi_index(tuple(np.where(outside, 0, i) for i in idx), counts) if nd else \
        np.zeros(pts.shape[0], dtype=np.int64)
    flat = np.where(outside, -1, flat)
    total = int(np.prod(counts))
    hist = _weighted_count(flat, weight, total, a.dtype).reshape(counts)
    if density:
        vol = np.ones(counts, dtype=np.float64)
        for k, e in enumerate(edges):
            shape = [1] * nd
            shape[k] = counts[k]
            vol = vol * np.diff(e).astype(np.float64).reshape(shape)
        hist = (hist / (hist.sum() * vol)).astype(a.dtype)
    return hist, np.concatenate(edges) if edges else np.zeros(0, a.dtype)


histogramdd.meta(_data_dependent("histogramdd"))


@primitive("isin", kind="other")
def isin(elements, test_elements, *, invert=False):
    """Whether each of ``elements`` occurs in ``test_elements`` (NumPy's sort-based ``isin``)."""
    return np.asarray(np.isin(elements, test_elements, invert=invert))


@isin.meta
def _(elements, test_elements, *, invert=False):
    return TensorMeta(tuple(elements.shape) if hasattr(elements, "shape") else (), D.bool)


__all__ = ["sort", "topk", "kthvalue", "mode", "nanmedian_dim", "nanmedian_all", "unique",
           "unique_consecutive", "searchsorted", "bincount", "histc", "histogram", "stable_argsort", "isin",
           "histogramdd"]
