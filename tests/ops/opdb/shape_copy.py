"""Op database entries for the shape/copy family (cat, stack, flip, roll, repeat, tile, tril/triu,
broadcasting, meshgrid)."""
from __future__ import annotations

import numpy as np

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig

LOW = ("float16", "bfloat16")
NUM = FLOAT + INT


def _s(*specs):
    """samples from (shapes tuple, kwargs, name): each shape becomes an array of the sample dtype."""
    def samples(dtype):
        out = []
        for shapes, kw, name in specs:
            args = tuple(noncontig(arr(s[1:], dtype)) if s and s[0] == "nc" else arr(s, dtype) for s in shapes)
            out.append(Sample(args, dict(kw), name))
        return out
    return samples


def _list_fn(name):
    def fn(lib, *xs, **kw):
        return getattr(lib, name)(list(xs), **kw)
    fn.__name__ = name
    return fn


def _list_out(name):
    def fn(lib, *xs, out, **kw):
        return getattr(lib, name)(list(xs), out=out, **kw)
    return fn


def _mixed_cat(dtype):
    a = arr((2, 3), dtype)
    return [Sample((a, arr((1, 3), "int64")), {}, "with int64"),
            Sample((a, arr((2, 1), "float64")), {"dim": 1}, "with float64"),
            Sample((np.zeros(0, dtype), a, np.zeros(0, "int32")), {"dim": 1}, "skipped empties")]


CAT = _s((((2, 3), (4, 3)), {}, "dim0"), (((2, 3), (2, 1), ("nc", 2, 4)), {"dim": 1}, "dim1 noncontig"),
         (((2, 3, 1), (2, 3, 2)), {"dim": -1}, "neg dim"), (((0, 3), (2, 3)), {}, "empty"),
         (((3,),), {}, "single"))
CAT_ERR = _s((((2, 3), (2, 4)), {}, "size"), (((2, 3), (3,)), {}, "ndim"), (((2, 3),), {"dim": 2}, "dim"),
             (((), ()), {}, "0-d"))

STACK = _s((((2, 3), (2, 3)), {}, "dim0"), (((2, 3), ("nc", 2, 3)), {"dim": 2}, "last"),
           (((3,), (3,), (3,)), {"dim": -1}, "neg"), (((), ()), {}, "0-d"))
STACK_ERR = _s((((2,), (3,)), {}, "size"),)

FLIP = _s((((2, 3, 4),), {"dims": (0, 2)}, "two"), (((3,),), {"dims": (0,)}, "1d"),
          ((("nc", 3, 4),), {"dims": (-1,)}, "noncontig"), (((2, 3),), {"dims": ()}, "none"),
          (((2, 3),), {"dims": -1}, "int"), (((),), {"dims": (0,)}, "0d"))
ROLL = _s((((2, 3),), {"shifts": 1}, "flat"), (((2, 3),), {"shifts": (1, -5), "dims": (0, 1)}, "two"),
          ((("nc", 3, 4),), {"shifts": 2, "dims": 1}, "noncontig"), (((0, 3),), {"shifts": 1, "dims": 0}, "empty"))
ROLL_ERR = _s((((3,),), {"shifts": (1, 2), "dims": (0,)}, "align"),)
REPEAT = _s((((2, 3),), {"sizes": (2, 1)}, "same rank"), (((3,),), {"sizes": (2, 1, 2)}, "new dims"),
            ((("nc", 2, 3),), {"sizes": (1, 2, 0)}, "zero"), (((),), {"sizes": (3,)}, "0-d"))
REPEAT_ERR = _s((((2, 3),), {"sizes": (2,)}, "too few"),)
TILE = _s((((2, 3),), {"dims": (2,)}, "pad"), (((3,),), {"dims": (2, 2)}, "grow"))
TRI = _s((((3, 4),), {}, "square-ish"), (((2, 3, 4),), {"diagonal": 1}, "batched +1"),
         ((("nc", 4, 3),), {"diagonal": -1}, "noncontig -1"), (((0, 3),), {}, "empty"))
TRI_ERR = _s((((3,),), {}, "1d"),)
BCAST = _s((((2, 1), (3,)), {}, "2"), (((1, 3), (2, 1), ()), {}, "3 with scalar"))
BCAST_TO = _s((((3,),), {"size": (2, 3)}, "lead"), (((2, 1),), {"size": (2, -1, 4)}, "minus one"))
MESH = _s((((2,), (3,)), {"indexing": "ij"}, "ij"), (((2,), (3,), (4,)), {"indexing": "xy"}, "xy 3"),
          (((), (3,)), {"indexing": "ij"}, "0-d"))


def method(name):
    def fn(lib, x, **kw):
        return getattr(x, name)(**kw)
    fn.__name__ = name
    return fn


OPS = [
    OpInfo("cat", _list_fn("cat"), CAT, dtypes=NUM + BOOL + LOW, out=_list_out("cat"),
           error_samples=CAT_ERR),
    OpInfo("cat_promote", _list_fn("cat"), _mixed_cat, dtypes=("float32", "int32", "bool")),
    OpInfo("concat", _list_fn("concat"), CAT, dtypes=FLOAT),
    OpInfo("concatenate", _list_fn("concatenate"), CAT, dtypes=("float32",)),
    OpInfo("stack", _list_fn("stack"), STACK, dtypes=NUM + BOOL, out=_list_out("stack"),
           error_samples=STACK_ERR),
    OpInfo("hstack", _list_fn("hstack"), _s((((2, 3), (2, 1)), {}, "2d"), (((3,), (2,)), {}, "1d"))),
    OpInfo("vstack", _list_fn("vstack"), _s((((2, 3), (1, 3)), {}, "2d"), (((3,), (3,)), {}, "1d"))),
    OpInfo("dstack", _list_fn("dstack"), _s((((2, 3), (2, 3)), {}, "2d"), (((3,), (3,)), {}, "1d"))),
    OpInfo("column_stack", _list_fn("column_stack"), _s((((3,), (3, 2)), {}, "mix"),)),
    OpInfo("flip", lambda lib, x, dims: x.flip(dims), FLIP, dtypes=NUM + BOOL + LOW),
    OpInfo("fliplr", lambda lib, x: lib.fliplr(x), _s((((2, 3),), {}, "2d"),)),
    OpInfo("flipud", lambda lib, x: lib.flipud(x), _s((((2, 3),), {}, "2d"),)),
    OpInfo("rot90", lambda lib, x, **kw: lib.rot90(x, **kw),
           _s((((2, 3),), {}, "k1"), (((2, 3),), {"k": 2}, "k2"), (((2, 3, 4),), {"k": -1, "dims": (2, 0)}, "k-1"))),
    OpInfo("roll", lambda lib, x, **kw: x.roll(**kw), ROLL, dtypes=NUM + BOOL, error_samples=ROLL_ERR),
    OpInfo("repeat", lambda lib, x, sizes: x.repeat(*sizes), REPEAT, dtypes=NUM + BOOL,
           error_samples=REPEAT_ERR),
    OpInfo("tile", lambda lib, x, dims: lib.tile(x, dims), TILE, dtypes=NUM),
    OpInfo("tril", method("tril"), TRI, dtypes=NUM + BOOL + LOW, inplace=method("tril_"),
           out=lambda lib, x, out, **kw: lib.tril(x, out=out, **kw), error_samples=TRI_ERR),
    OpInfo("triu", method("triu"), TRI, dtypes=NUM + BOOL, inplace=method("triu_"), error_samples=TRI_ERR),
    OpInfo("broadcast_tensors", lambda lib, *xs: lib.broadcast_tensors(*xs), BCAST,
           skip_checks=("noalias",), notes="results are expanded views of the inputs"),
    OpInfo("broadcast_to", lambda lib, x, size: lib.broadcast_to(x, size), BCAST_TO, view=True,
           skip_checks=("view",), notes="shares memory (test_indexing checks _base); the view check "
           "writes through NumPy and expand's NumPy view is read-only"),
    OpInfo("expand_contiguous", lambda lib, x, size: x.expand(size).contiguous(), BCAST_TO),
    OpInfo("meshgrid", lambda lib, *xs, **kw: lib.meshgrid(*xs, **kw), MESH,
           skip_checks=("noalias",), notes="grids are expanded views of the inputs"),
    OpInfo("clone", lambda lib, x: x.clone(), _s((((2, 3),), {}, "c"), ((("nc", 2, 3),), {}, "nc")),
           dtypes=NUM + BOOL),
]

# ----------------------------------------------------------------------------- repeat_interleave, diagonals, combinatorics
def _rep_int_samples(dtype):
    x = arr((3, 4), dtype)
    return [Sample((x,), {"repeats": 2}, "int flat"), Sample((x,), {"repeats": 3, "dim": 1}, "int dim1"),
            Sample((x,), {"repeats": 1, "dim": 0}, "once"), Sample((arr((), dtype),), {"repeats": 3}, "0-d")]


def _rep_samples(dtype):
    x = arr((3, 4), dtype)
    return [Sample((x,), {"repeats": np.array([1, 0, 2]), "dim": 0}, "tensor dim0"),
            Sample((noncontig(x),), {"repeats": np.array([2, 1, 1, 0]), "dim": -1}, "noncontig"),
            Sample((x,), {"repeats": np.array([2]), "dim": 0}, "one repeat")]


def _rep_err(dtype):
    x = arr((3,), dtype)
    return [Sample((x,), {"repeats": np.array([1, 2])}, "count"), Sample((x,), {"repeats": -1}, "negative"),
            Sample((x,), {"repeats": np.array([1, -1, 2])}, "negative tensor")]


def _tri(name):
    def fn(lib, *a, dtype=None):
        return getattr(lib, name)(*a, **({} if dtype is None else {"dtype": getattr(lib, dtype)}))
    return fn


def _two(shape_a, shape_b, **kw):
    return lambda dtype: [Sample((arr(shape_a, dtype), arr(shape_b, dtype)), kw, f"{shape_a} {shape_b}")]


def _merge(*makers):
    return lambda dtype: [s for m in makers for s in m(dtype)]


def _scatter_err(dtype):
    return [Sample((arr((3, 4), dtype), arr((2,), dtype)), {}, "diag size")]


OPS += [
    OpInfo("repeat_interleave", lambda lib, x, **kw: lib.repeat_interleave(x, **kw), _rep_int_samples,
           dtypes=NUM + BOOL, error_samples=_rep_err),
    OpInfo("repeat_interleave_tensor", lambda lib, x, **kw: lib.repeat_interleave(x, **kw), _rep_samples,
           dtypes=NUM + BOOL, meta=False, notes="tensor repeats: the length depends on the data"),
    OpInfo("repeat_interleave_method", lambda lib, x, **kw: x.repeat_interleave(**kw), _rep_int_samples,
           dtypes=("float64",)),
    OpInfo("repeat_interleave_index", lambda lib, r: lib.repeat_interleave(r),
           lambda dt: [Sample((np.array([2, 0, 1]),)), Sample((np.array([], np.int64),)),
                       Sample((np.array([3]),))], dtypes=("int64",), meta=False,
           notes="the output length depends on the data (pass output_size for a meta kernel)",
           error_samples=lambda dt: [Sample((np.array([[1, 2]]),)), Sample((np.array([1, -2]),))]),
    OpInfo("tril_indices", _tri("tril_indices"),
           lambda dt: [Sample((3, 4, 1)), Sample((4, 3)), Sample((3, 3, -1), {"dtype": "int32"}), Sample((0, 3))],
           dtypes=("int64",), grad=False, meta=False, notes="no tensor inputs: device='meta' is "
           "shown by the docstring's doctest",
           error_samples=lambda dt: [Sample((3, 3), {"dtype": "float32"}, "float")]),
    OpInfo("triu_indices", _tri("triu_indices"),
           lambda dt: [Sample((3, 4, 1)), Sample((4, 3)), Sample((3, 3, -2)), Sample((2, 5, 7))],
           dtypes=("int64",), grad=False, meta=False, notes="no tensor inputs"),
    OpInfo("diag", lambda lib, x, **kw: lib.diag(x, **kw),
           _s((((4,),), {}, "1d"), (((3,),), {"diagonal": 2}, "1d +2"), (((3, 4),), {}, "2d"),
              ((("nc", 4, 3),), {"diagonal": -1}, "2d noncontig -1"), (((3, 4),), {"diagonal": 7}, "empty")),
           dtypes=NUM + BOOL, error_samples=_s((((2, 2, 2),), {}, "3d")),
           out=lambda lib, x, out, **kw: lib.diag(x, out=out, **kw)),
    OpInfo("diag_embed", lambda lib, x, **kw: lib.diag_embed(x, **kw),
           _s((((2, 3),), {}, "default"), (((2, 3),), {"offset": 1, "dim1": 0, "dim2": 2}, "offset dims"),
              ((("nc", 3, 2),), {"offset": -2, "dim1": -1, "dim2": 0}, "noncontig neg")), dtypes=NUM + BOOL),
    OpInfo("diagflat", lambda lib, x, **kw: lib.diagflat(x, **kw),
           _s((((3,),), {}, "1d"), (((2, 2),), {"offset": -1}, "2d"))),
    OpInfo("diagonal_scatter", lambda lib, x, s, **kw: lib.diagonal_scatter(x, s, **kw),
           _merge(_two((3, 4), (3,)), _two((3, 4), (2,), offset=2), _two((2, 3, 4), (2, 3), dim1=0, dim2=2)),
           dtypes=NUM + BOOL, error_samples=_scatter_err),
    OpInfo("select_scatter", lambda lib, x, s, *a: lib.select_scatter(x, s, *a),
           lambda dt: [Sample((arr((3, 4), dt), arr((4,), dt), 0, 1)),
                       Sample((arr((3, 4), dt), arr((3,), dt), 1, -1))], dtypes=NUM,
           error_samples=lambda dt: [Sample((arr((3, 4), dt), arr((3,), dt), 0, 0))]),
    OpInfo("slice_scatter", lambda lib, x, s, **kw: lib.slice_scatter(x, s, **kw),
           _merge(_two((4, 3), (2, 3), start=1, end=3), _two((3, 5), (3, 2), dim=1, start=0, step=3),
                  _two((4, 3), (4, 3))), dtypes=NUM,
           error_samples=lambda dt: [Sample((arr((3, 4), dt), arr((3, 4), dt)), {"dim": 1, "end": 2})]),
    OpInfo("narrow_copy", lambda lib, x, *a: lib.narrow_copy(x, *a),
           lambda dt: [Sample((arr((3, 4), dt), 1, 1, 2)), Sample((noncontig(arr((4, 3), dt)), 0, 0, 2))],
           dtypes=NUM, error_samples=lambda dt: [Sample((arr((3,), dt), 0, 2, 2))]),
    OpInfo("cartesian_prod", lambda lib, *xs: lib.cartesian_prod(*xs),
           _s((((2,), (3,)), {}, "two"), (((2,), (1,), (3,)), {}, "three"), (((3,),), {}, "one")),
           dtypes=NUM + BOOL, skip_checks=("noalias",), notes="one input is returned as is (as torch does)",
           error_samples=_s((((2, 2),), {}, "2d"))),
    OpInfo("combinations", lambda lib, x, **kw: lib.combinations(x, **kw),
           _s((((4,),), {}, "r2"), (((4,),), {"r": 3}, "r3"), (((3,),), {"with_replacement": True}, "repl"),
              (((3,),), {"r": 4}, "r > n"), (((3,),), {"r": 0}, "r0")), dtypes=NUM + BOOL,
           error_samples=_s((((2, 2),), {}, "2d"))),
    OpInfo("block_diag", lambda lib, *xs: lib.block_diag(*xs),
           _s((((2,), (), (2, 2)), {}, "mixed ranks"), (((2, 3), ("nc", 3, 1)), {}, "noncontig"),
              (((0, 2), (2, 0)), {}, "empties")), dtypes=NUM + BOOL,
           error_samples=_s((((2, 2, 2),), {}, "3d"))),
    OpInfo("block_diag_promote", lambda lib, a, b: lib.block_diag(a, b.long()), _s((((2,), (2, 2)), {}, "p")),
           dtypes=("float32",)),
    OpInfo("atleast_1d", lambda lib, *xs: lib.atleast_1d(*xs), _s((((),), {}, "0d"), (((), (2,), (2, 2)), {}, "many")),
           skip_checks=("noalias",), notes="views of the inputs"),
    OpInfo("atleast_2d", lambda lib, *xs: lib.atleast_2d(*xs), _s((((),), {}, "0d"), (((), (2,), (2, 2, 1)), {}, "many")),
           skip_checks=("noalias",), notes="views of the inputs"),
    OpInfo("atleast_3d", lambda lib, *xs: lib.atleast_3d(*xs), _s((((),), {}, "0d"), (((), (2,), (2, 2)), {}, "many")),
           skip_checks=("noalias",), notes="views of the inputs"),
    OpInfo("hsplit", lambda lib, x, s: lib.hsplit(x, s),
           lambda dt: [Sample((arr((4, 6), dt), 3)), Sample((arr((6,), dt), [1, 4])), Sample((arr((2, 4, 2), dt), 2))],
           skip_checks=("noalias",), notes="split pieces are views",
           error_samples=lambda dt: [Sample((arr((4, 4), dt), 3))]),
    OpInfo("vsplit", lambda lib, x, s: lib.vsplit(x, s),
           lambda dt: [Sample((arr((4, 6), dt), 2)), Sample((arr((6, 2), dt), [1, 4]))],
           skip_checks=("noalias",), notes="split pieces are views",
           error_samples=lambda dt: [Sample((arr((4,), dt), 2))]),
    OpInfo("dsplit", lambda lib, x, s: lib.dsplit(x, s),
           lambda dt: [Sample((arr((2, 2, 6), dt), 3)), Sample((arr((2, 1, 6), dt), [2]))],
           skip_checks=("noalias",), notes="split pieces are views",
           error_samples=lambda dt: [Sample((arr((4, 4), dt), 2))]),
]


def _copy_fn(name):
    def f(lib, x, *a, **kw):
        return getattr(lib, name)(x, *a, **kw)
    f.__name__ = name
    return f


OPS += [
    OpInfo("diagonal_copy", _copy_fn("diagonal_copy"), _s((((3, 4),), {"offset": 1}, "d"),), dtypes=NUM),
    OpInfo("permute_copy", _copy_fn("permute_copy"), _s((((2, 3, 4),), {"dims": (2, 0, 1)}, "p"),)),
    OpInfo("transpose_copy", lambda lib, x: lib.transpose_copy(x, 0, 1), _s((((2, 3),), {}, "t"),)),
    OpInfo("slice_copy", _copy_fn("slice_copy"), _s((((4, 5),), {"dim": 1, "start": 1, "end": 4, "step": 2}, "s"),)),
    OpInfo("split_copy", lambda lib, x: lib.split_copy(x, 2, 1), _s((((3, 5),), {}, "s"),)),
    OpInfo("unbind_copy", lambda lib, x: lib.unbind_copy(x, 1), _s((((3, 2),), {}, "u"),)),
    OpInfo("view_copy", lambda lib, x: lib.view_copy(x, (4, 3)), _s((((3, 4),), {}, "v"),)),
    OpInfo("expand_copy", lambda lib, x: lib.expand_copy(x, (2, 3, 4)), _s((((3, 1),), {}, "e"),)),
    OpInfo("as_strided_scatter", lambda lib, x, s: lib.as_strided_scatter(x, s, (2, 2), (4, 1), 1),
           _two((3, 4), (2, 2)), dtypes=NUM, skip_checks=("backward", "inplace_output"),
           notes="torch 2.13's gradient for input keeps the written window instead of zeroing it (a torch "
           "bug); gradcheck checks ember's"),
    OpInfo("fill", lambda lib, x: lib.fill(x, 2.5), _s((((3, 4),), {}, "f"),)),
    OpInfo("fill_tensor", lambda lib, x, v: lib.fill(x, v), _two((3, 4), ())),
]
