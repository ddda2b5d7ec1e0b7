"""Op database entries for scans (cummax, cummin, logcumsumexp, diff, trapezoid, cumulative_trapezoid)."""
from __future__ import annotations

import math

import numpy as np

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig

NUM = FLOAT + INT
NAN = math.nan


def _s(*specs):
    def samples(dtype):
        out = []
        for shapes, kw, name in specs:
            args = []
            for s in shapes:
                if isinstance(s, list):
                    a = np.array(s, np.float64)
                    if dtype not in FLOAT and not np.isfinite(a).all():
                        break
                    args.append(a.astype(dtype))
                elif s and s[0] == "nc":
                    args.append(noncontig(arr(s[1:], dtype)))
                else:
                    args.append(arr(s, dtype))
            else:
                out.append(Sample(tuple(args), dict(kw), name))
        return out
    return samples


def tup(name):
    def fn(lib, *args, **kw):
        return tuple(getattr(lib, name)(*args, **kw))
    return fn


def function(name):
    def fn(lib, *args, **kw):
        return getattr(lib, name)(*args, **kw)
    fn.__name__ = name
    return fn


CUM = _s((((5,),), {"dim": 0}, "1d"), (((3, 4),), {"dim": 1}, "2d"), (((2, 3, 4),), {"dim": -1}, "3d"),
         ((("nc", 4, 3),), {"dim": 0}, "noncontig"), (((),), {"dim": 0}, "0-d"),
         (((0, 3),), {"dim": 0}, "empty"))
CUM_SPECIAL = _s((([1.0, NAN, 3.0, NAN, 0.0],), {"dim": 0}, "nan"),
                 (([[1, 3, 3, 2], [2, 2, 0, 2]],), {"dim": 1}, "ties"))
LCSE = _s((((5,),), {"dim": 0}, "1d"), (((3, 4),), {"dim": 1}, "2d"), ((("nc", 4, 3),), {"dim": 0}, "nc"),
          (((),), {"dim": 0}, "0-d"), (((0, 3),), {"dim": 0}, "empty"))
LCSE_INF = _s((([-math.inf, 1.0, -math.inf, 50.0, -30.0],), {"dim": 0}, "inf"),
              (([[1000.0, -1000.0, 3.0], [0.5, 800.0, -2.0]],), {"dim": 1}, "large"))
DIFF = _s((((5,),), {}, "1d"), (((3, 4),), {"dim": 0}, "dim0"), (((3, 4),), {"n": 2}, "n2"),
          (((3, 4), (3, 1), (3, 2)), {}, "prepend append"), (((5,),), {"n": 7}, "n large"),
          ((("nc", 4, 3),), {"dim": 1}, "noncontig"))
TRAP = _s((((5,),), {}, "1d"), (((3, 4),), {"dim": 0}, "dim0"), (((3, 4), (4,)), {}, "x 1d"),
          (((3, 4), (3, 4)), {"dim": 0}, "x full"), (((3, 4),), {"dx": 0.5}, "dx"),
          (((0, 3),), {"dim": 0}, "empty"))


def _diff_fn(lib, x, *extra, **kw):
    if extra:
        kw = dict(kw, prepend=extra[0], append=extra[1])
    return lib.diff(x, **kw)


OPS = [
    OpInfo("cummax", tup("cummax"), CUM, dtypes=NUM + BOOL,
           error_samples=_s((((3,),), {"dim": 1}, "bad dim"))),
    OpInfo("cummin", tup("cummin"), CUM, dtypes=NUM),
    OpInfo("cummax_special", tup("cummax"), CUM_SPECIAL, dtypes=NUM, gradcheck=False,
           notes="NaN and ties: finite differences are undefined there"),
    OpInfo("cummin_special", tup("cummin"), CUM_SPECIAL, dtypes=NUM, gradcheck=False,
           notes="NaN and ties"),
    OpInfo("logcumsumexp", function("logcumsumexp"), LCSE, dtypes=FLOAT + ("int64",), gradgrad=True,
           out=lambda lib, x, out, **kw: lib.logcumsumexp(x, out=out, **kw)),
    OpInfo("logcumsumexp_inf", function("logcumsumexp"), LCSE_INF, dtypes=FLOAT, gradcheck=False,
           notes="-inf inputs: finite differences are undefined there"),
    OpInfo("diff", _diff_fn, DIFF, dtypes=NUM + BOOL,
           error_samples=_s((((),), {}, "0-d"))),
    OpInfo("trapezoid", lambda lib, y, *x, **kw: lib.trapezoid(y, *x, **kw), TRAP, dtypes=NUM),
    OpInfo("trapz", lambda lib, y, *x, **kw: lib.trapz(y, *x, **kw), TRAP,
           dtypes=FLOAT),
    OpInfo("cumulative_trapezoid", lambda lib, y, *x, **kw: lib.cumulative_trapezoid(y, *x, **kw),
           TRAP, dtypes=NUM),
]
