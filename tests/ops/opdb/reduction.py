"""Op database entries for the reduction family (sum, mean, prod, extremes, var/std, cumulative,
logsumexp, any/all, norms)."""
from __future__ import annotations

import math

import numpy as np

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig

LOW = ("float16", "bfloat16")
NUM = FLOAT + INT
SHAPES = ((), (5,), (3, 4), (2, 3, 4), (0, 4))
DIMS = ({}, {"dim": 0}, {"dim": -1}, {"dim": 1, "keepdim": True}, {"dim": (0, 2)},
        {"dim": [-1, 0], "keepdim": True}, {"dim": None, "keepdim": True})


def _fits(shape, kw):
    d = kw.get("dim")
    if d is None:
        return True
    dims = d if isinstance(d, (tuple, list)) else (d,)
    return all(-max(len(shape), 1) <= x < max(len(shape), 1) for x in dims)


def red_samples(kwargs_list=DIMS, shapes=SHAPES, lo=-3.0, hi=3.0, extra=()):
    """Every shape with every kwargs that fits it, a non-contiguous input, and ``extra`` samples."""
    def samples(dtype):
        out = [Sample((arr(s, dtype, lo, hi),), dict(kw), f"{s} {kw}")
               for s in shapes for kw in kwargs_list if _fits(s, kw)]
        out.append(Sample((noncontig(arr((4, 3), dtype, lo, hi)),), dict(kwargs_list[-1]), "noncontig"))
        for args, kw, name in extra:
            a = np.array(args, dtype=np.float64)
            if dtype in ("float32", "float64", "float16", "bfloat16"):
                out.append(Sample((a.astype("float32" if dtype == "bfloat16" else dtype),), dict(kw), name))
            elif np.isfinite(a).all():
                out.append(Sample((a.astype(dtype),), dict(kw), name))
        return out
    return samples


def errors(*cases, dtype=None):
    """Samples where torch raises (ember must raise the same class and message)."""
    def samples(dt):
        dt = dtype or (dt if dt != "bfloat16" else "float32")
        return [Sample((np.zeros(shape, dtype=dt),), dict(kw), name) for shape, kw, name in cases]
    return samples


def method(name):
    def fn(lib, x, **kw):
        return getattr(x, name)(**kw)
    fn.__name__ = name
    return fn


def function(name):
    def fn(lib, x, **kw):
        return getattr(lib, name)(x, **kw)
    fn.__name__ = name
    return fn


def with_dtype(name):
    def fn(lib, x, dtype, **kw):
        return getattr(lib, name)(x, dtype=getattr(lib, dtype), **kw)
    return fn


def with_out(name):
    def fn(lib, x, out, **kw):
        if "dim" not in kw:  # torch's out= overloads take a dim
            kw["dim"] = tuple(range(x.dim()))
        return getattr(lib, name)(x, out=out, **kw)
    return fn


ONE_DIM = ({}, {"dim": 0}, {"dim": -1, "keepdim": True}, {"dim": 1}, {"dim": None, "keepdim": True})
SINGLE = ({"dim": 0}, {"dim": -1}, {"dim": 1, "keepdim": True}, {"dim": 0, "keepdim": True})
TIES = [([[1, 3, 3], [2, 2, 0]], {"dim": 1}, "ties"), ([[1, 3, 3], [2, 2, 0]], {}, "ties all")]
ZEROS = [([[1.5, 0, 2], [0, 0, 3], [2, -1, 0.5]], {"dim": 1}, "zeros"),
         ([[1.5, 0, 2], [0, 2, 3], [2, -1, 0.5]], {"dim": 0}, "zeros dim0"),
         ([[1.5, 0, 2]], {}, "one zero"), ([[1.5, 0, 0]], {}, "two zeros")]
EMPTY_FULL = [((0,), {}, "empty"), ((0, 3), {"dim": 0}, "empty dim"), ((2, 3), {"dim": 2}, "bad dim")]
NAN = [([1.0, math.nan, 3.0, math.nan], {}, "nan"), ([[1.0, math.nan], [2.0, 0.0]], {"dim": 1}, "nan dim")]

OPS = [
    OpInfo("sum", method("sum"), red_samples(), dtypes=NUM + BOOL + LOW, out=with_out("sum"),
           error_samples=errors(((2, 3), {"dim": 2}, "bad dim"), ((2, 3), {"dim": (0, 0)}, "dup"))),
    OpInfo("sum_dtype", with_dtype("sum"),
           red_samples(({"dtype": "float64"}, {"dim": 1, "dtype": "float64"}, {"dim": 0, "dtype": "int32"})),
           dtypes=("float32", "int64", "bool", "float16"), gradcheck=False),
    OpInfo("mean", method("mean"), red_samples(), dtypes=FLOAT + LOW + ("int64", "bool"),
           out=with_out("mean"),
           error_samples=errors(((2, 3), {}, "int"), dtype="int64")),
    OpInfo("nansum", function("nansum"), red_samples(ONE_DIM, extra=NAN), dtypes=NUM),
    OpInfo("nanmean", function("nanmean"), red_samples(ONE_DIM, extra=NAN), dtypes=FLOAT),
    OpInfo("prod", method("prod"), red_samples(ONE_DIM[:-1], lo=-2, hi=2, extra=ZEROS),
           dtypes=NUM + BOOL + LOW, gradgrad=True),
    OpInfo("amax", method("amax"), red_samples(DIMS[1:], extra=TIES + NAN), dtypes=NUM + BOOL + LOW,
           out=with_out("amax"), error_samples=errors(*EMPTY_FULL)),
    OpInfo("amin", method("amin"), red_samples(DIMS[1:], extra=TIES + NAN), dtypes=NUM + LOW,
           error_samples=errors(*EMPTY_FULL)),
    OpInfo("max", method("max"), red_samples(({},), extra=TIES[1:]), dtypes=NUM + BOOL + LOW,
           error_samples=errors(((0,), {}, "empty"))),
    OpInfo("min", method("min"), red_samples(({},), extra=TIES[1:]), dtypes=NUM + LOW),
    OpInfo("max_dim", method("max"), red_samples(SINGLE, extra=TIES[:1]), dtypes=NUM + BOOL + LOW,
           error_samples=errors(((0, 3), {"dim": 0}, "empty dim"), ((2, 3), {"dim": 2}, "bad dim"))),
    OpInfo("min_dim", method("min"), red_samples(SINGLE, extra=TIES[:1]), dtypes=NUM + LOW),
    OpInfo("max_binary", lambda lib, x, y: lib.max(x, y),
           lambda dtype: [Sample((arr((3, 4), dtype), arr((4,), dtype)))], dtypes=FLOAT),
    OpInfo("argmax", method("argmax"), red_samples(ONE_DIM, extra=NAN), dtypes=NUM + LOW, grad=False,
           error_samples=errors(((0,), {}, "empty"), ((0, 3), {"dim": 0}, "empty dim"))),
    OpInfo("argmin", method("argmin"), red_samples(ONE_DIM, extra=NAN), dtypes=NUM + LOW, grad=False),
    OpInfo("aminmax", lambda lib, x, **kw: tuple(x.aminmax(**kw)), red_samples(ONE_DIM[1:]),
           dtypes=NUM, error_samples=errors(((0,), {}, "empty"))),
    OpInfo("median", method("median"), red_samples(({},), extra=TIES[1:]), dtypes=NUM + LOW),
    OpInfo("median_dim", method("median"), red_samples(SINGLE), dtypes=FLOAT + LOW,
           notes="int medians with ties may pick another index than torch"),
    OpInfo("var", method("var"),
           red_samples(DIMS + ({"unbiased": False}, {"dim": 1, "correction": 0},
                               {"dim": 0, "correction": 2.5, "keepdim": True}), shapes=SHAPES[1:],
                       extra=[(2.0, {"correction": 0}, "0-dim")]),
           dtypes=FLOAT + LOW, out=with_out("var"), gradgrad=True),
    OpInfo("std", method("std"),
           red_samples(DIMS + ({"unbiased": False}, {"dim": 1, "correction": 0}), shapes=SHAPES[1:],
                       extra=[(2.0, {"correction": 0}, "0-dim"), ([[1.0, 1.0], [2.0, 3.0]], {"dim": 1},
                                                                   "std 0")]),
           dtypes=FLOAT + LOW, gradgrad=True),
    OpInfo("var_int", method("var"), red_samples(({},), shapes=SHAPES[1:]), dtypes=INT,
           error_samples=errors(((2, 3), {}, "int"), dtype="int64")),
    OpInfo("var_mean", lambda lib, x, **kw: lib.var_mean(x, **kw),
           red_samples(({}, {"dim": 1}, {"dim": 0, "unbiased": False, "keepdim": True}),
                       shapes=SHAPES[1:]), dtypes=FLOAT),
    OpInfo("std_mean", lambda lib, x, **kw: lib.std_mean(x, **kw),
           red_samples(({}, {"dim": 1, "correction": 0}), shapes=SHAPES[1:]), dtypes=FLOAT),
    OpInfo("cumsum", method("cumsum"),
           red_samples(SINGLE[:2], shapes=((), (5,), (3, 4), (0, 4))), dtypes=NUM + BOOL + LOW,
           out=with_out("cumsum"), gradgrad=True),
    OpInfo("cumsum_dtype", with_dtype("cumsum"),
           red_samples(({"dim": 0, "dtype": "float64"}, {"dim": -1, "dtype": "int32"}),
                       shapes=((5,), (3, 4))), dtypes=("float32", "int64"), gradcheck=False),
    OpInfo("cumprod", method("cumprod"),
           red_samples(SINGLE[:2], shapes=((), (5,), (3, 4), (0, 4)), lo=-2, hi=2, extra=[
               ([[1.5, 0, 2, 3], [0, 0, 3, 1], [2, -1, 0.5, 0]], {"dim": 1}, "zeros"),
               ([[1.5, 0, 2], [0, 2, 3], [2, -1, 0.5]], {"dim": 0}, "zeros dim0")]),
           dtypes=NUM + LOW, out=with_out("cumprod"), gradgrad=True),
    OpInfo("logsumexp", function("logsumexp"),
           red_samples(DIMS[1:], extra=[([-math.inf, -math.inf], {"dim": 0}, "all -inf"),
                                        ([math.inf, 1.0], {"dim": 0}, "inf")]),
           dtypes=FLOAT + INT + LOW, out=with_out("logsumexp")),
    OpInfo("any", method("any"), red_samples(DIMS, lo=0, hi=1), dtypes=NUM + BOOL + ("uint8",),
           grad=False),
    OpInfo("all", method("all"), red_samples(DIMS, lo=0, hi=1), dtypes=NUM + BOOL + ("uint8",),
           grad=False),
    OpInfo("hash_tensor", function("hash_tensor"),
           red_samples(({}, {"dim": 0}, {"dim": (0, -1), "keepdim": True}), lo=-3, hi=3),
           dtypes=NUM + BOOL + ("uint8",), grad=False),
    OpInfo("count_nonzero", function("count_nonzero"),
           red_samples(({}, {"dim": 0}, {"dim": (0, -1)}), lo=-1, hi=1), dtypes=NUM + BOOL, grad=False),
    OpInfo("norm", method("norm"),
           red_samples(({}, {"dim": 1}, {"p": 1}, {"p": math.inf, "dim": 0}, {"p": -math.inf, "dim": -1},
                        {"p": 3, "dim": (0, 1)}, {"p": 0.5}, {"p": 0, "dim": 0}, {"p": 1.5, "dim": 0},
                        {"p": "fro", "dim": (0, 1), "keepdim": True}),
                       shapes=((), (5,), (3, 4), (0, 4))),
           dtypes=FLOAT + LOW, gradgrad=True,
           error_samples=errors(((0,), {"p": math.inf}, "empty inf"))),
]
