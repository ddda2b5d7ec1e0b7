"""Op database entries for the indexing family (getitem/setitem, gather/scatter, index_*, masked ops,
nonzero, take)."""
from __future__ import annotations

import numpy as np

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig

NUM = FLOAT + INT
I64 = np.int64


def ix(*v):
    return np.array(v, dtype=I64)


def _x(dtype, shape=(3, 4), nc=False):
    a = arr(shape, dtype)
    return noncontig(a) if nc else a


def samples_of(*specs):
    """specs: (input shape, noncontig?, extra args builder(dtype), kwargs, name)."""
    def samples(dtype):
        return [Sample((_x(dtype, shape, nc),) + tuple(extra(dtype)), dict(kw), name)
                for shape, nc, extra, kw, name in specs]
    return samples


def _none(dtype):
    return ()


BASIC = [((3, 4), False, _none, {"index": (1,)}, "int"),
         ((3, 4), True, _none, {"index": (slice(None), -1)}, "col noncontig"),
         ((5, 4), False, _none, {"index": (slice(1, None, 2), slice(None, None, 3))}, "steps"),
         ((2, 3, 4), False, _none, {"index": (Ellipsis, None, 2)}, "ellipsis none"),
         ((3, 4), False, _none, {"index": (None, slice(-2, None))}, "none neg slice")]
ADV = [((3, 4), False, _none, {"index": ([0, 2, 0],)}, "list dup"),
       ((3, 4), True, _none, {"index": (slice(None), [3, 1])}, "list dim1 noncontig"),
       ((2, 3, 4), False, _none, {"index": ([0, 1], slice(None), [1, 2])}, "separated"),
       ((2, 3, 4), False, _none, {"index": (slice(None), [[0], [2]], [1, 3])}, "adjacent bcast"),
       ((2, 3, 4), False, _none, {"index": (1, slice(None), [1, 2])}, "int then list"),
       ((3, 4), False, _none, {"index": (np.array([True, False, True]),)}, "mask rows"),
       ((3, 4), False, _none, {"index": (arr((3, 4), "bool"),)}, "mask full"),
       ((3, 4), False, _none, {"index": (np.array(True),)}, "0-d true"),
       ((3, 4), False, _none, {"index": ([],)}, "empty list")]
ADV_ERR = [((3,), False, _none, {"index": (5,)}, "int oob"),
           ((3, 4), False, _none, {"index": (0, 7)}, "int oob dim1"),
           ((3,), False, _none, {"index": ([0, 7],)}, "list oob"),
           ((3,), False, _none, {"index": (0, 0)}, "too many"),
           ((3, 4), False, _none, {"index": ([0, 1], [0, 1, 2])}, "bcast"),
           ((3,), False, _none, {"index": (np.array([True, False]),)}, "mask shape")]


def _getitem(lib, x, index):
    return x[index]  # arrays in the index arrive as lib's tensors


def _setitem(lib, x, value=None, *, index):
    y = x * 1 if x.is_floating_point() else x.clone()
    y[index] = value if value is not None else 7
    return y


def _val(shape):
    return lambda dtype: (arr(shape, dtype),)


SET = [((3, 4), False, _none, {"index": (1,)}, "int scalar"),
       ((3, 4), True, _val((3,)), {"index": (slice(None), 2)}, "column tensor"),
       ((3, 4), False, _val((1, 4)), {"index": ([0, 2],)}, "rows bcast"),
       ((3, 4), False, _val((1, 1, 4)), {"index": (slice(1, None),)}, "leading ones"),
       ((2, 3, 4), False, _val((2, 3)), {"index": ([0, 1], slice(None), [1, 2])}, "separated"),
       ((3, 4), False, _none, {"index": (arr((3, 4), "bool"),)}, "mask scalar")]


def _gather_args(dtype):
    return (1, ix([[0, 0, 3], [1, 0, 2], [3, 3, 3]]))


def _m(name):
    def fn(lib, x, *args, **kw):
        return getattr(x, name)(*args, **kw)
    fn.__name__ = name
    return fn


def _mi(name):
    return _m(name + "_")


SCATTER = [((3, 4), False, lambda d: (0, ix([[1, 0, 2, 1], [0, 2, 1, 0]]), arr((2, 4), d)), {}, "src"),
           ((3, 4), True, lambda d: (1, ix([[3], [0], [1]]), arr((3, 1), d)), {}, "dim1 noncontig"),
           ((3, 4), False, lambda d: (-1, ix([[0, 1]]), arr((1, 2), d)), {}, "neg dim partial")]
SCATTER_VAL = [((3, 4), False, lambda d: (0, ix([[1, 0, 2, 1]])), {"value": 5}, "value"),
               ((3, 4), False, lambda d: (1, ix([[3], [0], [1]]), 2), {}, "positional scalar")]
SCATTER_ADD = [((3, 4), False, lambda d: (0, ix([[1, 0, 1, 1], [1, 1, 0, 1]]), arr((2, 4), d)), {}, "dups"),
               ((3, 4), True, lambda d: (1, ix([[0, 0], [3, 3], [1, 1]]), arr((3, 2), d)), {}, "noncontig")]
REDUCE_IDX = ix([[1, 0, 1], [1, 1, 1]])
SCATTER_REDUCE = [((2, 3), False, lambda d, r=r, s=s: (0, REDUCE_IDX, arr((2, 3), d), r),
                   {"include_self": s}, f"{r} self={s}")
                  for r in ("sum", "prod", "mean", "amax", "amin") for s in (True, False)]
SCATTER_ERR = [((3, 4), False, lambda d: (0, ix([[5, 0]]), arr((1, 2), d)), {}, "oob"),
               ((3, 4), False, lambda d: (0, ix([[-1, 0]]), arr((1, 2), d)), {}, "negative"),
               ((3, 4), False, lambda d: (0, ix([[0, 0]]), arr((1, 1), d)), {}, "src too small")]
ISEL = [((3, 4), False, lambda d: (1, ix(3, 0, 3)), {}, "dup"),
        ((3, 4), True, lambda d: (0, ix(2)), {}, "noncontig"),
        ((3,), False, lambda d: (0, np.array(2)), {}, "0-d index")]
ISEL_ERR = [((3,), False, lambda d: (0, ix(5)), {}, "oob"), ((3,), False, lambda d: (0, ix(-1)), {}, "neg"),
            ((3,), False, lambda d: (0, ix([1])), {}, "2-d index")]
IADD = [((3, 4), False, lambda d: (1, ix(3, 0, 3), arr((3, 3), d)), {}, "dup"),
        ((3, 4), False, lambda d: (0, ix(2), arr((1, 4), d)), {"alpha": 2}, "alpha")]
ICOPY = [((3, 4), False, lambda d: (1, ix(3, 0), arr((3, 2), d)), {}, "cols")]
ICOPY_ERR = [((3, 4), False, lambda d: (1, ix(3, -1), arr((3, 2), d)), {}, "negative"),
             ((3, 4), False, lambda d: (1, ix(3), arr((3, 2), d)), {}, "count")]
IFILL = [((3, 4), False, lambda d: (1, ix(3, -4), -2), {}, "cols neg"),
         ((3, 4), True, lambda d: (0, ix(1)), {"value": 1}, "noncontig kw")]
MFILL = [((3, 4), False, lambda d: (arr((3, 4), "bool"), -1), {}, "full mask"),
         ((3, 4), True, lambda d: (arr((4,), "bool"), 2), {}, "bcast mask noncontig")]
MSEL = [((3, 4), False, lambda d: (arr((3, 4), "bool"),), {}, "full"),
        ((3, 4), False, lambda d: (arr((4,), "bool"),), {}, "bcast"),
        ((4,), False, lambda d: (arr((3, 4), "bool"),), {}, "bcast input")]
TAKE = [((3, 4), False, lambda d: (ix([[0, 11], [5, -1]]),), {}, "2-d index"),
        ((3, 4), True, lambda d: (ix(3, 3),), {}, "dup noncontig")]
TAKE_ALONG = [((3, 4), False, lambda d: (ix([[0], [3], [1]]), 1), {}, "dim1"),
              ((3, 4), False, lambda d: (ix([[0, 2]]), 0), {}, "bcast"),
              ((3, 4), False, lambda d: (ix([[0, 2]]),), {}, "flat")]
IPUT = [((3, 4), False, lambda d: ((ix(0, 0, 2), ix(1, 1, 3)), arr((3,), d)), {"accumulate": True}, "acc"),
        ((3, 4), False, lambda d: ((ix(0, 2),), arr((4,), d)), {}, "rows")]


def _nz_samples(dtype):
    return [Sample((arr((3, 4), dtype, -1, 1),), {}, "2d"), Sample((arr((5,), dtype, -1, 1),), {}, "1d"),
            Sample((np.array(3, dtype=dtype),), {}, "0-d")]


def _iput(lib, x, indices, values, **kw):
    return x.index_put(tuple(indices), values, **kw)


def _iput_(lib, x, indices, values, **kw):
    return x.index_put_(tuple(indices), values, **kw)


_DATA_DEP = "output shape depends on data: meta raises NotImplementedError (tests/test_indexing.py)"

OPS = [
    OpInfo("getitem_basic", _getitem, samples_of(*BASIC), dtypes=NUM + BOOL, view=True),
    OpInfo("getitem_advanced", _getitem, samples_of(*ADV), dtypes=NUM + BOOL, meta=False,
           error_samples=samples_of(*ADV_ERR), notes=_DATA_DEP),
    OpInfo("getitem_advanced_int", _getitem, samples_of(*ADV[:5]), dtypes=FLOAT),
    OpInfo("setitem", _setitem, samples_of(*SET), dtypes=NUM, meta=False, notes=_DATA_DEP),
    OpInfo("gather", _m("gather"), samples_of(((4, 4), False, _gather_args, {}, "dim1"),
                                              ((3, 4), True, lambda d: (0, ix([[2, 0], [1, 1]])), {}, "nc")),
           dtypes=NUM + BOOL, out=lambda lib, x, *a, out: lib.gather(x, *a, out=out),
           error_samples=samples_of(((3, 4), False, lambda d: (1, ix([[5]])), {}, "oob"),
                                    ((3, 4), False, lambda d: (1, ix(1)), {}, "ndim"))),
    OpInfo("scatter", _m("scatter"), samples_of(*SCATTER), dtypes=NUM, inplace=_mi("scatter"),
           error_samples=samples_of(*SCATTER_ERR)),
    OpInfo("scatter_value", _m("scatter"), samples_of(*SCATTER_VAL), dtypes=NUM, inplace=_mi("scatter")),
    OpInfo("scatter_add", _m("scatter_add"), samples_of(*SCATTER_ADD), dtypes=NUM,
           inplace=_mi("scatter_add")),
    OpInfo("scatter_reduce", _m("scatter_reduce"), samples_of(*SCATTER_REDUCE), dtypes=FLOAT,
           inplace=_mi("scatter_reduce"), gradcheck=False,
           notes="prod/amax gradients are compared with torch; finite differences break at ties"),
    OpInfo("index_select", _m("index_select"), samples_of(*ISEL), dtypes=NUM + BOOL,
           out=lambda lib, x, *a, out: lib.index_select(x, *a, out=out),
           error_samples=samples_of(*ISEL_ERR)),
    OpInfo("index_add", _m("index_add"), samples_of(*IADD), dtypes=NUM, inplace=_mi("index_add"),
           error_samples=samples_of(((3, 4), False, lambda d: (0, ix(-1), arr((1, 4), d)), {}, "neg"),
                                    ((3, 4), False, lambda d: (0, ix(0), arr((2, 4), d)), {}, "count"))),
    OpInfo("index_copy", _m("index_copy"), samples_of(*ICOPY), dtypes=NUM, inplace=_mi("index_copy"),
           error_samples=samples_of(*ICOPY_ERR)),
    OpInfo("index_fill", _m("index_fill"), samples_of(*IFILL), dtypes=NUM, inplace=_mi("index_fill")),
    OpInfo("masked_fill", _m("masked_fill"), samples_of(*MFILL), dtypes=NUM + BOOL,
           inplace=_mi("masked_fill")),
    OpInfo("masked_select", _m("masked_select"), samples_of(*MSEL), dtypes=NUM + BOOL, meta=False,
           notes=_DATA_DEP),
    OpInfo("nonzero", _m("nonzero"), _nz_samples, dtypes=NUM + BOOL, grad=False, meta=False, notes=_DATA_DEP,
           out=lambda lib, x, out: lib.nonzero(x, out=out)),
    OpInfo("nonzero_tuple", lambda lib, x: lib.nonzero(x, as_tuple=True), _nz_samples, dtypes=INT + BOOL,
           grad=False, meta=False, notes=_DATA_DEP),
    OpInfo("argwhere", lambda lib, x: lib.argwhere(x), _nz_samples, dtypes=INT + BOOL, grad=False,
           meta=False, notes=_DATA_DEP),
    OpInfo("take", _m("take"), samples_of(*TAKE), dtypes=NUM + BOOL,
           error_samples=samples_of(((3,), False, lambda d: (ix(10),), {}, "oob"))),
    OpInfo("take_along_dim", lambda lib, x, *a: lib.take_along_dim(x, *a), samples_of(*TAKE_ALONG),
           dtypes=NUM),
    OpInfo("index_put", _iput, samples_of(*IPUT), dtypes=NUM, inplace=_iput_),
]

# ----------------------------------------------------------------------------- put / masked_scatter / index_reduce
PUT = [((3, 4), False, lambda d: (ix(1, -1, 5), arr((3,), d)), {}, "put"),
       ((3, 4), True, lambda d: (ix([0, 2], [11, 4]), arr((2, 2), d)), {}, "2d index noncontig"),
       ((3, 4), False, lambda d: (ix(1, 1, 0), arr((3,), d)), {"accumulate": True}, "accumulate dups")]
PUT_ERR = [((3,), False, lambda d: (ix(5), arr((1,), d)), {}, "oob"),
           ((3,), False, lambda d: (ix(1), arr((2,), d)), {}, "count")]
MSCAT = [((3, 4), False, lambda d: (arr((3, 4), "bool"), arr((12,), d)), {}, "full"),
         ((3, 4), True, lambda d: (arr((4,), "bool"), arr((3, 5), d)), {}, "bcast mask noncontig"),
         ((3, 4), False, lambda d: (np.zeros((3, 4), bool), arr((2,), d)), {}, "none")]
MSCAT_ERR = [((3,), False, lambda d: (np.array([True, False, True]), arr((1,), d)), {}, "short"),
             ((3,), False, lambda d: (ix(1, 0, 1), arr((3,), d)), {}, "long mask")]
IRED = [((4, 3), False, lambda d: (0, ix(0, 2, 0), arr((3, 3), d), r), kw, f"{r} {kw}")
        for r in ("prod", "mean", "amax", "amin") for kw in ({}, {"include_self": False})] + \
       [((3, 4), True, lambda d: (1, ix(3, 1), arr((3, 2), d), "mean"), {}, "dim1 noncontig")]
IRED_ERR = [((3,), False, lambda d: (0, ix(0), arr((1,), d), "sum"), {}, "sum"),
            ((3,), False, lambda d: (0, ix(0, 0), arr((1,), d), "prod"), {}, "count")]

OPS += [
    OpInfo("put", _m("put"), samples_of(*PUT), dtypes=NUM + BOOL, inplace=_mi("put"),
           error_samples=samples_of(*PUT_ERR)),
    OpInfo("put_function", lambda lib, x, *a, **kw: lib.put(x, *a, **kw), samples_of(*PUT), dtypes=FLOAT),
    OpInfo("masked_scatter", _m("masked_scatter"), samples_of(*MSCAT), dtypes=NUM + BOOL, meta=False,
           inplace=_mi("masked_scatter"), error_samples=samples_of(*MSCAT_ERR),
           notes="reads the mask's count to check source's size, so it needs data"),
    OpInfo("index_reduce", _m("index_reduce"), samples_of(*IRED), dtypes=NUM, inplace=_mi("index_reduce"),
           gradcheck=False, error_samples=samples_of(*IRED_ERR),
           notes="amax/amin/prod gradients are compared with torch; finite differences break at ties"),
]

FILL_DIAG = [((3, 4), False, lambda d: (2,), {}, "wide"), ((4, 3), True, lambda d: (2,), {}, "tall noncontig"),
             ((7, 3), False, lambda d: (2,), {"wrap": True}, "wrap"), ((3, 3, 3), False, lambda d: (5,), {}, "cube")]

OPS += [
    OpInfo("fill_diagonal_", lambda lib, x, *a, **kw: x.clone().fill_diagonal_(*a, **kw),
           samples_of(*FILL_DIAG), dtypes=NUM + BOOL, inplace=_m("fill_diagonal_"),
           error_samples=samples_of(((2, 3, 2), False, lambda d: (2,), {}, "unequal"),
                                    ((3,), False, lambda d: (2,), {}, "1d"))),
]
