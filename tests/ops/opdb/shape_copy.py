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
          ((("nc", 3, 4),), {"dims": (-1,)}, "noncontig"), (((2, 3),), {"dims": ()}, "none"))
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
