"""Op database entries for the pointwise family (unary, binary, ternary, comparisons, conversions)."""
from __future__ import annotations

import numpy as np

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig

LOW = ("float16", "bfloat16")
NUM = FLOAT + INT
ALL = NUM + BOOL + LOW
FLOATS = FLOAT + LOW

UNARY_SHAPES = ((), (0,), (6,), (3, 4))


# ----------------------------------------------------------------------------- sample makers
def unary_samples(lo=-3.0, hi=3.0, **kwargs):
    def samples(dtype):
        out = [Sample((arr(s, dtype, lo, hi),), dict(kwargs), f"shape {s}") for s in UNARY_SHAPES]
        out.append(Sample((noncontig(arr((4, 3), dtype, lo, hi)),), dict(kwargs), "noncontig"))
        return out
    return samples


BINARY_SHAPES = (((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (5,)), ((2, 3), ()),
                 ((0, 4), (4,)))


def binary_samples(lo=-3.0, hi=3.0, lo2=None, hi2=None, scalars=(), other_dtype=None, **kwargs):
    """Pairs of arrays broadcasting against each other, a non-contiguous pair, and Python scalars."""
    lo2 = lo if lo2 is None else lo2
    hi2 = hi if hi2 is None else hi2

    def samples(dtype):
        d2 = other_dtype or dtype
        out = [Sample((arr(a, dtype, lo, hi), arr(b, d2, lo2, hi2)), dict(kwargs), f"{a} {b}")
               for a, b in BINARY_SHAPES]
        out.append(Sample((noncontig(arr((4, 3), dtype, lo, hi)), noncontig(arr((4, 3), d2, lo2, hi2))),
                          dict(kwargs), "noncontig"))
        out.extend(Sample((arr((2, 3), dtype, lo, hi), s), dict(kwargs), f"scalar {s!r}")
                   for s in scalars)
        return out
    return samples


def integral(maker):
    """Samples rounded to integer values: quotients are then exact or far from an integer, so
    float16's rounding of the quotient before trunc/floor (torch computes a/b in half) cannot matter."""
    def samples(dtype):
        out = maker(dtype)
        for s in out:
            s.args = tuple(_round(a) for a in s.args)
        return out
    return samples


def _round(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return np.round(a)
    if hasattr(a, "array") and a.array.dtype.kind == "f":
        return type(a)(np.round(a.array))
    return a


def mixed_samples(pairs, lo=-3.0, hi=3.0, lo2=None, hi2=None, only="float32", **kwargs):
    """Type-promotion samples: (dtype_a, dtype_b) pairs, with dims or 0-dim, emitted once (for the
    dtype ``only``) since they do not depend on the dtype being checked."""
    lo2 = lo if lo2 is None else lo2
    hi2 = hi if hi2 is None else hi2

    def samples(dtype):
        out = []
        if dtype != only:
            return out
        for da, db in pairs:
            out.append(Sample((arr((2, 3), da, lo, hi), arr((3,), db, lo2, hi2)), dict(kwargs), f"{da} {db}"))
            out.append(Sample((arr((2, 3), da, lo, hi), arr((), db, lo2, hi2)), dict(kwargs), f"{da} 0-dim {db}"))
        return out
    return samples


def chain(*makers):
    def samples(dtype):
        return [s for m in makers for s in m(dtype)]
    return samples


PROMO_PAIRS = (("int32", "int64"), ("uint8", "int8"), ("bool", "int64"), ("int64", "float32"),
               ("float32", "float64"), ("int16", "float16"), ("bool", "float32"))


def _fn(name):
    return lambda lib, *a, **k: getattr(lib, name)(*a, **k)


def _method_(name):
    return lambda lib, x, *a, **k: getattr(x, name + "_")(*a, **k)


def _out(name):
    return lambda lib, *a, out, **k: getattr(lib, name)(*a, out=out, **k)


def unary(name, lo=-3.0, hi=3.0, dtypes=ALL, inplace=True, out=True, **opts):
    return OpInfo(name, _fn(name), unary_samples(lo, hi), dtypes=dtypes,
                  inplace=_method_(name) if inplace else None, out=_out(name) if out else None, **opts)


def binary(name, lo=-3.0, hi=3.0, lo2=None, hi2=None, dtypes=ALL, scalars=(2, -1.5), inplace=True,
           promo=PROMO_PAIRS, **opts):
    samples = binary_samples(lo, hi, lo2, hi2, scalars)
    if promo:
        samples = chain(samples, mixed_samples(promo, lo, hi, lo2, hi2, only=dtypes[0]))
    return OpInfo(name, _fn(name), samples, dtypes=dtypes,
                  inplace=_method_(name) if inplace else None, out=_out(name), **opts)


def errors(*cases):
    """error_samples for fixed argument tuples (NumPy arrays / scalars), the same for every dtype."""
    def samples(dtype):
        return [Sample(tuple(c[0]), dict(c[1]) if len(c) > 1 else {}) for c in cases]
    return samples


def _np(d):
    """The NumPy dtype a sample array is built in (bfloat16 samples start as float32)."""
    return "float32" if d == "bfloat16" else d


def _b(shape=(3,), v=True):
    return np.full(shape, v)


def _i(values, dtype="int64"):
    return np.array(values, dtype=dtype)


# ----------------------------------------------------------------------------- arithmetic
OPS = [
    binary("add", scalars=(2, -1.5, True)),
    OpInfo("add_alpha", lambda lib, a, b: lib.add(a, b, alpha=2), binary_samples(), dtypes=NUM + LOW,
           inplace=lambda lib, a, b: a.add_(b, alpha=2), out=lambda lib, a, b, out: lib.add(a, b, alpha=2, out=out)),
    binary("sub", dtypes=NUM + LOW,
           error_samples=errors(((_b(), _b()),), ((_b(), True),),
                                ((np.ones(3, "float32"), np.ones(3, "float32")), {"alpha": 1.5j}))),
    OpInfo("sub_alpha", lambda lib, a, b: lib.sub(a, b, alpha=0.5), binary_samples(), dtypes=FLOATS,
           inplace=lambda lib, a, b: a.sub_(b, alpha=0.5)),
    binary("mul", scalars=(2, -1.5, True)),
    binary("div", lo2=0.5, hi2=3.0, scalars=(2, 0.5)),
    OpInfo("div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
           integral(chain(binary_samples(-9, 9, 1, 4, scalars=(2, -3)), binary_samples(-9, 9, -4, -1))),
           dtypes=NUM + LOW, inplace=lambda lib, a, b: a.div_(b, rounding_mode="trunc"),
           out=lambda lib, a, b, out: lib.div(a, b, rounding_mode="trunc", out=out), gradcheck=False),
    OpInfo("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
           integral(chain(binary_samples(-9, 9, 1, 4, scalars=(2, -3)), binary_samples(-9, 9, -4, -1))),
           dtypes=NUM + LOW, inplace=lambda lib, a, b: a.div_(b, rounding_mode="floor"),
           out=lambda lib, a, b, out: lib.div(a, b, rounding_mode="floor", out=out), gradcheck=False),
    binary("floor_divide", -9, 9, 1, 4, dtypes=NUM, scalars=(2, -3), grad=False),
    OpInfo("truediv_op", lambda lib, a, b: a / b, binary_samples(-3, 3, 1, 3, scalars=(2, 3)),
           dtypes=NUM + BOOL + LOW),
    OpInfo("rtruediv_op", lambda lib, a: 2 / a, unary_samples(0.5, 3), dtypes=NUM + LOW),
    OpInfo("rsub_op", lambda lib, a: 2.5 - a, unary_samples(), dtypes=NUM + LOW),
    OpInfo("scalar_wrap", lambda lib, a: (a + 300, a * 300, a - 300, a == 300, a < 300, a >= -1, a & 300,
                                          a.add(300, alpha=2), a // 300, a % 300),
           unary_samples(0, 200), dtypes=("uint8", "int8", "int16"), grad=False),
    binary("pow", 0.5, 2.0, -2, 2, dtypes=FLOATS, scalars=(2, 0.5, -1, 0, 3)),
    OpInfo("pow_int", lambda lib, a, b: lib.pow(a, b),
           chain(binary_samples(-3, 3, 0, 3, scalars=(2, 0, 3)),
                 lambda d: [Sample((_i([-1, 2, -3, 1, 0], d), _i([-1, -2, -3, -4, 2], d)))]),
           dtypes=INT, error_samples=errors(((_i([1, 2]), -1),))),
    OpInfo("rpow_op", lambda lib, a: 2 ** a, unary_samples(-2, 2), dtypes=FLOATS),
    unary("neg", dtypes=NUM + LOW, error_samples=errors(((_b(),),))),
    unary("abs", dtypes=ALL, grad=True),
    unary("sign", dtypes=ALL),
    unary("sgn", dtypes=NUM + LOW + BOOL),
    # ----------------------------------------------------------------------------- transcendental
    unary("exp", dtypes=ALL),
    unary("log", 0.1, 3, dtypes=ALL),
    unary("sqrt", 0.1, 3, dtypes=ALL),
    unary("rsqrt", 0.1, 3, dtypes=ALL),
    unary("tanh", dtypes=ALL),
    unary("sigmoid", dtypes=ALL),
    unary("relu", dtypes=NUM + LOW, out=False),
    unary("erf", dtypes=ALL),
    unary("erfinv", -0.9, 0.9, dtypes=FLOAT + INT + LOW),
    unary("sin", dtypes=ALL),
    unary("cos", dtypes=ALL),
    # ----------------------------------------------------------------------------- comparison, select
    binary("maximum", dtypes=ALL, scalars=(), inplace=False),
    binary("minimum", dtypes=ALL, scalars=(), inplace=False),
    OpInfo("clamp", lambda lib, x, **k: lib.clamp(x, **k),
           chain(unary_samples(min=-1.0, max=1.5), unary_samples(min=0.5), unary_samples(max=-0.5)),
           dtypes=NUM + LOW, inplace=lambda lib, x, **k: x.clamp_(**k),
           out=lambda lib, x, out, **k: lib.clamp(x, out=out, **k)),
    OpInfo("clamp_int", lambda lib, x, **k: lib.clamp(x, **k), unary_samples(-5, 5, min=-2, max=3),
           dtypes=INT),
    OpInfo("clamp_tensor", lambda lib, x, lo, hi: lib.clamp(x, lo, hi),
           lambda d: [Sample((arr((3, 4), d), arr((4,), d, -2, 0), arr((3, 1), d, 0, 2)))], dtypes=NUM),
    OpInfo("where", lambda lib, c, a, b: lib.where(c, a, b),
           lambda d: [Sample((arr((3, 4), "bool"), arr((3, 4), d), arr((4,), d))),
                      Sample((arr((3, 1), "bool"), arr((1, 4), d), arr((), d))),
                      Sample((arr((0, 4), "bool"), arr((4,), d), arr((0, 1), d))),
                      Sample((noncontig(arr((4, 3), "bool")), noncontig(arr((4, 3), d)), arr((4, 3), d)))],
           dtypes=ALL, out=lambda lib, c, a, b, out: lib.where(c, a, b, out=out)),
    OpInfo("where_scalar", lambda lib, c, a, b: lib.where(c, a, b),
           lambda d: [Sample((arr((2, 3), "bool"), arr((2, 3), d), 1.5)),
                      Sample((arr((2, 3), "bool"), 0, arr((2, 3), d))),
                      Sample((arr((2, 3), "bool"), 1, 2)),
                      Sample((arr((2, 3), "bool"), 1, 2.5))], dtypes=ALL),
    OpInfo("where_promote", lambda lib, c, a, b: lib.where(c, a, b),
           lambda d: [Sample((arr((2, 3), "bool"), arr((2, 3), "int64"), arr((3,), "float32"))),
                      Sample((arr((2, 3), "bool"), arr((2, 3), "float32"), arr((), "float64")))],
           dtypes=("float32",), grad=False),
]

for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    OPS.append(binary(_name, dtypes=ALL, scalars=(0, 1.5), grad=False,
                      inplace=True))
for _name in ("logical_and", "logical_or", "logical_xor"):
    OPS.append(binary(_name, -1, 1, dtypes=ALL, scalars=(0, 1.5), grad=False))
OPS.append(unary("logical_not", -1, 1, dtypes=ALL, grad=False))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    OPS.append(binary(_name, -9, 9, dtypes=INT + BOOL + ("uint8",), scalars=(3,), grad=False,
                      promo=(("int32", "int64"), ("uint8", "int8"), ("bool", "int64"))))
OPS.append(unary("bitwise_not", -9, 9, dtypes=INT + BOOL + ("uint8",), grad=False))
OPS.append(unary("isnan", dtypes=ALL, grad=False, inplace=False, out=False))

# ----------------------------------------------------------------------------- the everyday rest
OPS += [
    binary("remainder", -9, 9, 1, 4, dtypes=NUM + LOW, scalars=(3, -2.5), gradcheck=False,
           error_samples=errors(((_i([1, 2]), 0),), ((_b(), _b()),))),
    OpInfo("remainder_neg", _fn("remainder"), binary_samples(-9, 9, -4, -1, scalars=(-3,)), dtypes=NUM,
           gradcheck=False),
    binary("fmod", -9, 9, 1, 4, dtypes=NUM + LOW, scalars=(3, -2.5), gradcheck=False,
           error_samples=errors(((_i([1, 2]), 0),), ((_b(), _b()),))),
    OpInfo("fmod_neg", _fn("fmod"), binary_samples(-9, 9, -4, -1, scalars=(-3,)), dtypes=NUM, gradcheck=False),
    OpInfo("mod_op", lambda lib, a, b: a % b, binary_samples(-9, 9, 1, 4, scalars=(3, 2.5)), dtypes=NUM,
           inplace=lambda lib, a, b: a.__imod__(b), gradcheck=False),
    OpInfo("rmod_op", lambda lib, a: 7 % a, unary_samples(1, 4), dtypes=NUM, gradcheck=False),
    OpInfo("float_floor_div_zero", lambda lib, a, b: (a // b, a.div(b, rounding_mode="trunc")),
           lambda d: [Sample((np.array([1.5, -2, 0], d), np.array([0.0, 0, 0], d)))], dtypes=FLOAT, grad=False),
    OpInfo("int_div_zero", lambda lib, a, b: a // b, lambda d: [], dtypes=INT, grad=False,
           error_samples=errors(((_i([1, 2]), _i([0, 1])),), ((_i([1, 2]), 0),))),
    unary("floor", dtypes=NUM + LOW, error_samples=errors(((_b(),),))),
    unary("ceil", dtypes=NUM + LOW, error_samples=errors(((_b(),),))),
    unary("trunc", dtypes=NUM + LOW, error_samples=errors(((_b(),),))),
    unary("round", dtypes=NUM + LOW, error_samples=errors(((_b(),),))),
    OpInfo("round_decimals", lambda lib, x, **k: lib.round(x, **k),
           chain(unary_samples(-300, 300, decimals=2), unary_samples(-300, 300, decimals=-1)),
           dtypes=FLOAT, inplace=lambda lib, x, **k: x.round_(**k),
           out=lambda lib, x, out, **k: lib.round(x, out=out, **k),
           error_samples=errors(((_i([1, 2]),), {"decimals": 1}))),
    unary("frac", dtypes=FLOATS, error_samples=errors(((_i([1, 2]),),), ((_b(),),))),
    unary("reciprocal", 0.5, 3, dtypes=ALL),
    unary("square", dtypes=ALL),
    unary("exp2", dtypes=ALL),
    unary("expm1", dtypes=ALL),
    unary("log1p", -0.9, 3, dtypes=ALL),
    unary("log2", 0.1, 3, dtypes=ALL),
    unary("log10", 0.1, 3, dtypes=ALL),
    unary("tan", -1.2, 1.2, dtypes=ALL),
    unary("asin", -0.9, 0.9, dtypes=ALL),
    unary("acos", -0.9, 0.9, dtypes=ALL),
    unary("atan", dtypes=ALL),
    unary("sinh", dtypes=ALL),
    unary("cosh", dtypes=ALL),
    unary("asinh", dtypes=ALL),
    unary("acosh", 1.2, 4, dtypes=ALL),
    unary("atanh", -0.9, 0.9, dtypes=ALL),
    unary("erfc", dtypes=ALL),
    OpInfo("domain_edges", lambda lib, x: (x.log(), x.sqrt(), x.rsqrt(), x.reciprocal(), x.acos(), x.atanh(),
                                           x.log1p(), x.acosh()),
           lambda d: [Sample((np.array([-2.0, -1, 0, 0.5, 1, float("inf"), float("nan")], _np(d)),))],
           dtypes=FLOAT + LOW, grad=False),
    binary("atan2", dtypes=ALL, scalars=(), inplace=True, error_samples=errors(((np.ones(2), 2.0),))),
    binary("logaddexp", dtypes=FLOATS, scalars=(), inplace=False, error_samples=errors(((_i([1, 2]), _i([1, 2])),))),
    binary("logaddexp2", dtypes=FLOATS, scalars=(), inplace=False),
    binary("hypot", dtypes=FLOATS, scalars=(), promo=(("float32", "float64"),)),
    OpInfo("lerp", lambda lib, a, b, w: lib.lerp(a, b, w),
           lambda d: [Sample((arr((3, 4), d), arr((3, 4), d), 0.3)),
                      Sample((arr((3, 4), d), arr((4,), d), 0.7)),
                      Sample((arr((), d), arr((2, 3), d), -0.5)),
                      Sample((arr((3, 4), d), arr((3, 4), d), arr((3, 4), d, 0, 1))),
                      Sample((arr((3, 1), d), arr((1, 4), d), arr((4,), d, 0, 1))),
                      Sample((noncontig(arr((4, 3), d)), arr((4, 3), d), arr((), d)))],
           dtypes=FLOATS, inplace=lambda lib, a, b, w: a.lerp_(b, w),
           out=lambda lib, a, b, w, out: lib.lerp(a, b, w, out=out),
           error_samples=errors(((np.ones(2, "float32"), np.ones(2, "float64"), 0.5),),
                                ((_i([1, 2]), _i([1, 2]), 0.5),))),
    OpInfo("addcmul", lambda lib, a, b, c, **k: lib.addcmul(a, b, c, **k),
           lambda d: [Sample((arr((3, 4), d), arr((3, 4), d), arr((3, 4), d))),
                      Sample((arr((3, 4), d), arr((4,), d), arr((3, 1), d)), {"value": 0.5}),
                      Sample((arr((), d), arr((2, 3), d), arr((3,), d)), {"value": -2}),
                      Sample((noncontig(arr((4, 3), d)), arr((4, 3), d), arr((), d)), {"value": 3})],
           dtypes=FLOATS + INT, inplace=lambda lib, a, b, c, **k: a.addcmul_(b, c, **k),
           out=lambda lib, a, b, c, out, **k: lib.addcmul(a, b, c, out=out, **k)),
    OpInfo("addcdiv", lambda lib, a, b, c, **k: lib.addcdiv(a, b, c, **k),
           lambda d: [Sample((arr((3, 4), d), arr((3, 4), d), arr((3, 4), d, 0.5, 2))),
                      Sample((arr((3, 4), d), arr((4,), d), arr((3, 1), d, 0.5, 2)), {"value": 0.5}),
                      Sample((arr((), d), arr((2, 3), d), arr((3,), d, 0.5, 2)), {"value": -2}),
                      Sample((noncontig(arr((4, 3), d)), arr((4, 3), d), arr((), d, 0.5, 2)), {"value": 3})],
           dtypes=FLOATS, inplace=lambda lib, a, b, c, **k: a.addcdiv_(b, c, **k),
           out=lambda lib, a, b, c, out, **k: lib.addcdiv(a, b, c, out=out, **k),
           error_samples=errors(((_i([1, 2]), _i([1, 2]), _i([1, 2])),))),
    OpInfo("addc_promote", lambda lib, a, b, c: (lib.addcmul(a, b, c), lib.addcmul(b, a, a, value=2)),
           lambda d: [Sample((arr((2, 3), "float32"), arr((2, 3), "int64"), arr((3,), "int32")))],
           dtypes=("float32",), grad=False),
    OpInfo("nan_to_num", lambda lib, x, **k: lib.nan_to_num(x, **k),
           lambda d: [Sample((np.array([1.0, float("nan"), float("inf"), -float("inf")], _np(d)),)),
                      Sample((np.array([1.0, float("nan"), float("inf"), -float("inf")], _np(d)),),
                             {"nan": 1.5, "posinf": 2.0, "neginf": -3.0}),
                      Sample((arr((3, 4), d),))] if d in FLOATS else [Sample((arr((3, 4), d),))],
           dtypes=ALL, inplace=lambda lib, x, **k: x.nan_to_num_(**k),
           out=lambda lib, x, out, **k: lib.nan_to_num(x, out=out, **k)),
    OpInfo("float_power", lambda lib, a, b: lib.float_power(a, b),
           binary_samples(0.5, 2, -2, 2, scalars=(2, 0.5)), dtypes=("float32", "int64", "float64"),
           inplace=lambda lib, a, b: a.float_power_(b)),
    OpInfo("clamp_min_max", lambda lib, x: (lib.clamp_min(x, 0.5), lib.clamp_max(x, -0.5), x.clip(-1, 1)),
           unary_samples(), dtypes=FLOATS + INT),
    OpInfo("clamp_overflow", lambda lib, x: lib.clamp(x, -1, 300), lambda d: [],
           dtypes=("uint8", "int8"), grad=False, error_samples=errors(((np.array([1], "uint8"),),),
                                                                       ((np.array([1], "int8"),),))),
    OpInfo("rsub", lambda lib, a, b, **k: lib.rsub(a, b, **k), binary_samples(alpha=2), dtypes=NUM),
    OpInfo("true_divide", lambda lib, a, b: lib.true_divide(a, b), binary_samples(-3, 3, 1, 3), dtypes=NUM),
    OpInfo("bool_sub_errors", lambda lib, a, b: a - b, lambda d: [], dtypes=BOOL, grad=False,
           error_samples=errors(((_b(), _b()),), ((_b(), True),), ((_b(), 1),), ((_i([1, 2]), True),))),
    OpInfo("alpha_errors", lambda lib, a, b, **k: lib.add(a, b, **k), lambda d: [], dtypes=("int64",),
           grad=False, error_samples=errors(((_i([1]), _i([1])), {"alpha": 1.5}),
                                            ((_i([1]), _i([1])), {"alpha": True}),
                                            ((np.ones(1), np.ones(1)), {"alpha": 2j}))),
    OpInfo("scalar_promotion", lambda lib, a: (a / 2, a * 2.5, a + True, a - 1, a ** 2, 2 ** a, a // 2),
           unary_samples(1, 5), dtypes=INT + ("uint8", "int8", "int16"), grad=False),
    OpInfo("int_pow_neg_scalar", lambda lib, a: a ** -1, lambda d: [], dtypes=INT, grad=False,
           error_samples=errors(((_i([1, 2]),),))),
]
for _name in ("isinf", "isfinite", "isposinf", "isneginf", "signbit"):
    # no NaN for signbit: a NaN's sign bit after rounding to bfloat16 is not specified
    OPS.append(OpInfo(_name, _fn(_name), chain(unary_samples(), lambda d, n=_name: [Sample((np.array(
        [1.0, float("inf"), -float("inf"), -0.0] + ([float("nan")] if n != "signbit" else []), _np(d)),))]
        if d in FLOATS else []),
        dtypes=ALL, grad=False, out=None if _name in ("isinf", "isfinite") else _out(_name)))
