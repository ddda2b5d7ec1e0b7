"""Op database entries for sorting, selection, uniqueness and counting (sort, argsort, msort, topk,
kthvalue, mode, nanmedian, quantile, unique, searchsorted, bucketize, bincount, histc, histogram)."""
from __future__ import annotations

import math

import numpy as np

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig

NUM = FLOAT + INT
LOW = ("float16", "bfloat16")
NAN = math.nan


def _s(*specs, lo=-3, hi=3):
    """Samples from (shape or ("nc", *shape) or literal list, kwargs, name)."""
    def samples(dtype):
        out = []
        for shape, kw, name in specs:
            if isinstance(shape, list):
                a = np.array(shape, dtype=np.float64)
                if dtype in ("float32", "float64", "float16", "bfloat16"):
                    a = a.astype("float32" if dtype == "bfloat16" else dtype)
                elif np.isfinite(a).all():
                    a = a.astype(dtype)
                else:
                    continue
                out.append(Sample((a,), dict(kw), name))
            elif shape and shape[0] == "nc":
                out.append(Sample((noncontig(arr(shape[1:], dtype, lo, hi)),), dict(kw), name))
            else:
                out.append(Sample((arr(shape, dtype, lo, hi),), dict(kw), name))
        return out
    return samples


def method(name):
    def fn(lib, x, *args, **kw):
        return getattr(x, name)(*args, **kw)
    fn.__name__ = name
    return fn


def function(name):
    def fn(lib, *args, **kw):
        return getattr(lib, name)(*args, **kw)
    fn.__name__ = name
    return fn


def tup(name):
    def fn(lib, *args, **kw):
        return tuple(getattr(lib, name)(*args, **kw))
    return fn


SORT = _s(((), {}, "0-d"), ((5,), {}, "1d"), ((3, 4), {"dim": 0}, "dim0"),
          ((2, 3, 4), {"dim": 1, "descending": True}, "desc"), ((0, 4), {"dim": 1}, "empty"),
          (("nc", 4, 3), {"dim": -1, "stable": True}, "noncontig"))
SORT_SPECIAL = _s(([3, NAN, 1, 2, NAN, 3], {}, "nan"), ([3, NAN, 1, 2, NAN, 3], {"descending": True}, "nan desc"),
          ([[2, 1, 2, 1], [0, 0, 1, 1]], {"stable": True, "dim": 1}, "ties"),
          ([[2, 1, 2, 1], [0, 0, 1, 1]], {"stable": True, "descending": True}, "ties desc"))
SORT_ERR = _s(((3,), {"dim": 1}, "bad dim"))
DISTINCT = ((5,), (3, 4), (2, 3, 4))  # random floats: no ties, so the picked indices are torch's


def _distinct(kwargs_list, with_k=False):
    """Samples without ties (a permutation of 0..n scaled), so tie-breaking never matters."""
    def samples(dtype):
        out = []
        rng = np.random.default_rng(3)
        for shape in DISTINCT:
            for kw in kwargs_list:
                a = (rng.permutation(int(np.prod(shape))).reshape(shape) - 5).astype(
                    "float32" if dtype == "bfloat16" else dtype)
                kw = dict(kw)
                d = kw.get("dim", -1)
                if not -len(shape) <= d < len(shape):
                    continue
                if with_k and kw.get("k", 1) > shape[d]:
                    continue
                out.append(Sample((a,), kw, f"{shape} {kw}"))
        a = (np.random.default_rng(4).permutation(12).reshape(4, 3) - 4).astype(
            "float32" if dtype == "bfloat16" else dtype)
        out.append(Sample((noncontig(a),), dict(kwargs_list[0]), "noncontig"))
        return out
    return samples


TOPK = _distinct(({"k": 2}, {"k": 1, "dim": 0}, {"k": 3, "largest": False}, {"k": 2, "dim": 1}),
                 with_k=True)
KTH = _distinct(({"k": 2}, {"k": 1, "dim": 0, "keepdim": True}, {"k": 3, "dim": -1}), with_k=True)
MODE = _s(((5,), {}, "1d"), ((3, 4), {"dim": 0}, "dim0"), ((2, 3, 4), {"dim": 1, "keepdim": True}, "keep"),
          ((), {}, "0-d"), lo=0, hi=3)
MODE_SPECIAL = _s(([[1, 2, 2, 1], [5, 5, 4, 4]], {"dim": 1}, "tie counts"),
          ([3, 1, 3, 2, 1, 1], {}, "last occurrence"), lo=0, hi=3)
NANMED = _s(((5,), {}, "1d"), ((3, 4), {"dim": 0}, "dim0"), ((2, 3, 4), {"dim": -1, "keepdim": True}, "keep"),
            lo=-3, hi=3)
NANMED_SPECIAL = _s(([[NAN, NAN, NAN], [1, NAN, 2], [4, 1, NAN]], {"dim": 1}, "nan rows"),
            ([1.0, NAN, 3.0, 2.0], {}, "nan all"))
QUANT_Q = (0.3, [0.0, 0.25, 1.0])


def _quantile_samples(nan):
    def samples(dtype):
        out = []
        for shape, kw in (((5,), {}), ((3, 4), {"dim": 1}), ((3, 4), {"dim": 0, "keepdim": True}),
                          ((2, 3, 4), {"dim": -1}), ((3, 4), {"keepdim": True}), ((), {})):
            for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
                for q in QUANT_Q:
                    qv = np.array(q, dtype=dtype) if isinstance(q, list) else q
                    out.append(Sample((arr(shape, dtype), qv), dict(kw, interpolation=interp),
                                      f"{shape} {kw} {interp} q={q}"))
        a = np.array([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 2.0, 1.0, 0.5]], dtype)
        out.append(Sample((a, np.array([0.2, 0.5], dtype)), {"dim": 1}, "nan rows"))
        return out
    return samples


QUANT_ERR = lambda dtype: [  # noqa: E731
    Sample((arr((3,), dtype), 1.5), {}, "q range"),
    Sample((arr((3,), dtype), 0.5), {"interpolation": "foo"}, "interp"),
    Sample((np.zeros(0, dtype), 0.5), {}, "empty"),
    Sample((arr((3,), "int64"), 0.5), {}, "int"),
    Sample((arr((3,), dtype), np.array([0.5], "float64" if dtype == "float32" else "float32")), {},
           "q dtype")]


def _unique_samples(dtype):
    a = arr((4, 5), dtype, 0, 3)
    out = [Sample((a,), {}, "plain"),
           Sample((a,), {"return_inverse": True, "return_counts": True}, "all"),
           Sample((a,), {"return_counts": True, "dim": 0}, "dim0"),
           Sample((np.concatenate([a[:2], a[:2]]),), {"return_inverse": True, "dim": 0}, "dup rows"),
           Sample((a,), {"return_inverse": True, "dim": 1}, "dim1"),
           Sample((arr((), dtype),), {"return_inverse": True}, "0-d"),
           Sample((np.zeros(0, dtype),), {"return_counts": True}, "empty")]
    if dtype in FLOAT:
        out.append(Sample((np.array([3.0, NAN, 1.0, NAN, 3.0], dtype),), {"return_counts": True}, "nan"))
    return out


def _unique_consecutive_samples(dtype):
    a = np.array([1, 1, 2, 2, 3, 1, 1, 2]).astype(dtype)
    m = np.array([[1, 2], [1, 2], [0, 5], [1, 2]]).astype(dtype)
    return [Sample((a,), {}, "plain"), Sample((a,), {"return_inverse": True, "return_counts": True}, "all"),
            Sample((m,), {"return_inverse": True, "return_counts": True, "dim": 0}, "dim0"),
            Sample((m.reshape(2, 4),), {"return_counts": True}, "2d flat"),
            Sample((np.zeros(0, dtype),), {"return_counts": True}, "empty")]


def _search_samples(dtype):
    seq = np.sort(arr((6,), dtype), kind="stable")
    seq2 = np.sort(arr((3, 5), dtype), axis=1)
    vals = arr((2, 4), dtype)
    perm = np.random.default_rng(5).permutation(6)
    return [Sample((seq, vals), {}, "1d seq"), Sample((seq, vals), {"right": True}, "right"),
            Sample((seq2, arr((3, 4), dtype)), {}, "batched"),
            Sample((seq2, arr((3, 4), dtype)), {"side": "right", "out_int32": True}, "batched right"),
            Sample((seq, seq), {}, "exact hits"), Sample((seq, seq), {"right": True}, "exact hits right"),
            Sample((seq[perm], vals), {"sorter": perm.argsort().astype(np.int64)}, "sorter"),
            Sample((seq, 1), {}, "scalar value")]


def _search_errors(dtype):
    return [Sample((arr((3, 5), dtype), arr((2, 4), dtype)), {}, "batch mismatch"),
            Sample((arr((3,), dtype), arr((2,), dtype)), {"side": "left", "right": True}, "side")]


def _bucketize_samples(dtype):
    b = np.sort(arr((5,), dtype))
    return [Sample((arr((3, 4), dtype), b), {}, "2d"), Sample((arr((6,), dtype), b), {"right": True}, "right"),
            Sample((b, b), {}, "hits"), Sample((b, b), {"right": True, "out_int32": True}, "hits right")]


def _bincount_samples(dtype):
    x = arr((10,), "int64", 0, 6)
    out = [Sample((x,), {}, "plain"), Sample((x,), {"minlength": 9}, "minlength"),
           Sample((np.zeros(0, np.int64),), {}, "empty")]
    if dtype in FLOAT:
        out.append(Sample((x,), {"weights": arr((10,), dtype)}, "weights"))
    else:
        out.append(Sample((x,), {"weights": arr((10,), dtype)}, "int weights"))
    return out


def _hist_samples(dtype):
    x = arr((4, 5), dtype)
    return [Sample((x,), {}, "default"), Sample((x,), {"bins": 4, "min": -1, "max": 2}, "range"),
            Sample((x,), {"bins": 7}, "data range"),
            Sample((np.array([1.0, 2.0, 1.0, 3.0], dtype),), {"bins": 4, "min": 0, "max": 3}, "edges")]


def _histogram_samples(dtype):
    x = arr((4, 5), dtype)
    return [Sample((x, 5), {}, "count"), Sample((x, 4), {"range": (-1.0, 2.0)}, "range"),
            Sample((x, np.array([-3.0, -1.0, 0.0, 2.5, 3.0], dtype)), {}, "edges"),
            Sample((x, 3), {"weight": arr((4, 5), dtype, 0, 1)}, "weight"),
            Sample((x, 6), {"density": True}, "density")]


OPS = [
    OpInfo("sort", tup("sort"), SORT, dtypes=NUM + BOOL + LOW, error_samples=SORT_ERR),
    OpInfo("sort_special", tup("sort"), SORT_SPECIAL, dtypes=NUM + BOOL, gradcheck=False,
           notes="NaN and ties: finite differences are undefined there"),
    OpInfo("sort_method", lambda lib, x, **kw: tuple(x.sort(**kw)), SORT, dtypes=("float64",)),
    OpInfo("argsort", function("argsort"), SORT, dtypes=NUM, grad=False),
    OpInfo("msort", function("msort"), _s(((4, 3), {}, "2d"), ((5,), {}, "1d")), dtypes=NUM),
    OpInfo("topk", tup("topk"), TOPK, dtypes=NUM + LOW,
           error_samples=_s(((3,), {"k": 4}, "k too big"))),
    OpInfo("kthvalue", tup("kthvalue"), KTH, dtypes=NUM,
           error_samples=_s(((3,), {"k": 4}, "k too big"), ((3,), {"k": 0}, "k zero"))),
    OpInfo("mode", tup("mode"), MODE, dtypes=NUM + BOOL),
    OpInfo("mode_special", tup("mode"), MODE_SPECIAL, dtypes=NUM, gradcheck=False,
           notes="tied values: finite differences are undefined there"),
    OpInfo("nanmedian_special", lambda lib, x, **kw: tuple(lib.nanmedian(x, **kw)) if kw else
           lib.nanmedian(x), NANMED_SPECIAL, dtypes=FLOAT, gradcheck=False, notes="NaN inputs"),
    OpInfo("nanmedian", lambda lib, x, **kw: tuple(lib.nanmedian(x, **kw)) if kw else lib.nanmedian(x),
           NANMED, dtypes=FLOAT + INT),
    OpInfo("quantile", function("quantile"), _quantile_samples(False), dtypes=FLOAT,
           error_samples=QUANT_ERR),
    OpInfo("nanquantile", function("nanquantile"), _quantile_samples(True), dtypes=FLOAT),
    OpInfo("unique", function("unique"), _unique_samples, dtypes=NUM + BOOL, grad=False, meta=False,
           notes="unique's output shape depends on the data: no meta kernel, as in torch"),
    OpInfo("unique_consecutive", function("unique_consecutive"), _unique_consecutive_samples,
           dtypes=NUM, grad=False, meta=False, notes="data-dependent output shape"),
    OpInfo("searchsorted", function("searchsorted"), _search_samples, dtypes=NUM, grad=False,
           error_samples=_search_errors,
           out=lambda lib, s, v, out, **kw: lib.searchsorted(s, v, out=out, **kw)),
    OpInfo("bucketize", function("bucketize"), _bucketize_samples, dtypes=NUM, grad=False,
           error_samples=lambda dt: [Sample((arr((3,), dt), arr((2, 2), dt)), {}, "2d boundaries")]),
    OpInfo("bincount", function("bincount"), _bincount_samples, dtypes=("float32", "float64", "int64"),
           grad=False, meta=False, notes="bincount's length depends on the data",
           error_samples=lambda dt: [Sample((np.array([1, -1, 3]),), {}, "negative"),
                                     Sample((np.zeros((2, 2), np.int64),), {}, "2d")]),
    OpInfo("histc", function("histc"), _hist_samples, dtypes=FLOAT, grad=False,
           error_samples=lambda dt: [Sample((arr((3,), "int64"),), {}, "int")]),
    OpInfo("histogram", tup("histogram"), _histogram_samples, dtypes=FLOAT, grad=False, meta=False,
           notes="bin edges chosen from the data: no meta kernel"),
]


def _isin_samples(dtype):
    a = arr((3, 4), dtype, 0, 6)
    b = arr((5,), dtype, 0, 6)
    return [Sample((a, b), {}, "tensors"), Sample((a, b), {"invert": True}, "invert"),
            Sample((a, 2), {}, "scalar test"), Sample((3, b), {}, "scalar element"),
            Sample((a, arr((2, 2), dtype, 0, 6)), {"assume_unique": False}, "2d test")]


def _unravel_samples(dtype):
    return [Sample((np.array([4, -1, 11, 12, -13]), (3, 4)), {}, "wrap"),
            Sample((np.array([[5, 7], [0, 23]]), (2, 3, 4)), {}, "3 dims"),
            Sample((np.array(5), (3, 4)), {}, "0-d"), Sample((np.array([3]), 5), {}, "int shape")]


OPS += [
    OpInfo("isin", function("isin"), _isin_samples, dtypes=NUM, grad=False),
    OpInfo("unravel_index", function("unravel_index"), _unravel_samples, dtypes=("int64",), grad=False,
           error_samples=lambda dt: [Sample((np.array([1.0]), (3, 4)), {}, "float"),
                                     Sample((np.array([1]), (3, -4)), {}, "negative shape")]),
]


def _histogramdd_samples(dtype):
    x = arr((6, 2), dtype)
    return [Sample((x, [3, 2]), {}, "counts"), Sample((x, 2), {"range": [-1.0, 2.0, -3.0, 3.0]}, "range"),
            Sample((arr((2, 5, 3), dtype), [2, 2, 3]), {"weight": arr((2, 5), dtype, 0, 1),
                                                          "density": True}, "weight density")]


OPS += [OpInfo("histogramdd", lambda lib, *a, **kw: (lambda r: (r[0],) + tuple(r[1]))(
    lib.histogramdd(*a, **kw)), _histogramdd_samples, dtypes=FLOAT, grad=False, meta=False,
    notes="bin edges chosen from the data: no meta kernel")]
