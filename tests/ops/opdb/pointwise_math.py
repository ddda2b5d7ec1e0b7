"""Op database entries for ``_primitives/pointwise_math.py``: gamma family, xlogy, copysign, sinc, angle
conversions, heaviside, logit, nextafter, ldexp, frexp, gcd/lcm, shifts, complex ops, closeness."""
from __future__ import annotations

import math

import numpy as np

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig
from .pointwise import binary_samples, mixed_samples, unary_samples

LOW = ("float16", "bfloat16")
NUM = FLOAT + INT
COMPLEX = ("complex64", "complex128")


def fn(name):
    def f(lib, *args, **kw):
        return getattr(lib, name)(*args, **kw)
    f.__name__ = name
    return f


def meth(name):
    def f(lib, x, *args, **kw):
        return getattr(x, name)(*args, **kw)
    f.__name__ = name
    return f


def out_fn(name):
    def f(lib, *args, out, **kw):
        return getattr(lib, name)(*args, out=out, **kw)
    return f


def _lit(values, dtype, *rest, **kw):
    def samples(dt):
        a = np.array(values, np.float64).astype(dtype or dt)
        return [Sample((a,) + tuple(np.array(r).astype(dtype or dt) for r in rest), kw, "special")]
    return samples


def _same_dtype_pairs(lo=-3, hi=3):
    """Binary samples whose operands share the dtype (ops refusing mixed dtypes)."""
    base = binary_samples(lo, hi)
    return lambda dtype: [s for s in base(dtype) if all(isinstance(a, np.ndarray) or hasattr(a, "array")
                                                        for a in s.args)]


def _shift_samples(dtype):
    out = [Sample((arr((3, 4), dtype, -50, 50), arr((3, 4), dtype, 0, 6)), {}, "small"),
           Sample((arr((3, 4), dtype, -50, 50), arr((4,), dtype, 0, 3)), {}, "broadcast"),
           Sample((arr((2, 3), dtype, -50, 50), 2), {}, "scalar"),
           Sample((np.array([-8, 8, 5, -5]).astype(dtype), np.array([70, 70, -1, 40]).astype(dtype)), {},
                  "out of range")]
    return out


def _closeness(dtype):
    a = arr((3, 4), dtype)
    b = a + np.array(1e-6, dtype) if dtype in FLOAT else a.copy()
    c = a.copy()
    if dtype in FLOAT:
        c[0, 0], a[0, 1], c[0, 1], a[1, 1], c[1, 1] = np.nan, np.nan, np.nan, np.inf, np.inf
    return [Sample((a, b), {}, "near"), Sample((a, arr((3, 4), dtype)), {}, "far"),
            Sample((a, c), {"equal_nan": True}, "nan inf"), Sample((a, c), {}, "nan no equal"),
            Sample((a, b), {"rtol": 0, "atol": 0}, "exact"), Sample((a, arr((4,), dtype)), {"atol": 1}, "bcast")]


def _angle_samples(dtype):
    return unary_samples()(dtype)


def _parts_expression(z):
    return z.real * z.imag.exp() + z.t().imag.t()


def _complex_pair(dtype):
    return [Sample((arr((3, 4), dtype), arr((3, 4), dtype)), {}, "same"),
            Sample((arr((3, 1), dtype), arr((4,), dtype)), {}, "broadcast"),
            Sample((noncontig(arr((4, 3), dtype)), arr((4, 3), dtype)), {}, "noncontig")]


OPS = [
    OpInfo("lgamma", fn("lgamma"), unary_samples(0.1, 5), dtypes=NUM + LOW, inplace=meth("lgamma_"),
           out=out_fn("lgamma"), gradgrad=True),
    OpInfo("lgamma_neg", fn("lgamma"), unary_samples(-4.9, -0.1), dtypes=FLOAT, atol=1e-4, rtol=1e-4),
    OpInfo("lgamma_poles", fn("lgamma"), _lit([0.0, -1.0, -2.0, -0.0], None), dtypes=FLOAT, grad=False),
    OpInfo("digamma", fn("digamma"), unary_samples(0.1, 5), dtypes=NUM + LOW, inplace=meth("digamma_"),
           gradgrad=True, atol=1e-4, rtol=1e-4),
    OpInfo("digamma_poles", fn("digamma"), _lit([0.0, -0.0, -1.0, -2.5], None), dtypes=FLOAT, grad=False),
    OpInfo("polygamma", lambda lib, x, n: lib.polygamma(n, x),
           lambda dt: [Sample((arr((3, 4), dt, 0.2, 4), n), {}, f"n={n}") for n in (0, 1, 2, 3)],
           dtypes=FLOAT + ("int64",), atol=1e-4, rtol=1e-4, grad_rtol=1e-3,
           error_samples=lambda dt: [Sample((arr((3,), dt, 1, 2), -1), {}, "negative n")]),
    OpInfo("polygamma_method", lambda lib, x, n: x.polygamma(n),
           lambda dt: [Sample((arr((3,), dt, 0.2, 4), 2), {}, "n=2")], dtypes=FLOAT,
           inplace=lambda lib, x, n: x.polygamma_(n)),
    OpInfo("xlogy", fn("xlogy"), binary_samples(0, 3, 0.1, 3, scalars=(2, 0.5)), dtypes=NUM + LOW,
           inplace=meth("xlogy_"), out=out_fn("xlogy"), gradgrad=True),
    OpInfo("xlogy_zero", fn("xlogy"),
           lambda dt: [Sample((np.array([0.0, 0.0, 1.0, 0.0], dt), np.array([0.0, np.nan, 2.0, 3.0], dt)),
                              {}, "zeros")], dtypes=FLOAT, gradcheck=False),
    OpInfo("xlogy_scalar_first", lambda lib, y: lib.xlogy(2, y), unary_samples(0.1, 3), dtypes=FLOAT),
    OpInfo("copysign", fn("copysign"), binary_samples(scalars=(-1, 2.5)), dtypes=NUM + LOW,
           inplace=meth("copysign_"), out=out_fn("copysign")),
    OpInfo("copysign_mixed", fn("copysign"), mixed_samples((("int64", "float32"), ("float32", "float64"),
                                                           ("bool", "int32")))),
    OpInfo("sinc", fn("sinc"), unary_samples(), dtypes=NUM + LOW, inplace=meth("sinc_"),
           gradgrad=True, atol=1e-5, rtol=1e-4),
    OpInfo("deg2rad", fn("deg2rad"), unary_samples(-200, 200), dtypes=NUM + LOW, inplace=meth("deg2rad_"),
           out=out_fn("deg2rad")),
    OpInfo("rad2deg", fn("rad2deg"), unary_samples(), dtypes=NUM + LOW, inplace=meth("rad2deg_")),
    OpInfo("heaviside", fn("heaviside"), _same_dtype_pairs(-1, 1), dtypes=NUM + BOOL, grad=False,
           inplace=meth("heaviside_"),
           error_samples=lambda dt: [Sample((arr((3,), dt), arr((3,), "float32" if dt == "float64" else
                                                                 "float64")), {}, "mixed")]),
    OpInfo("logit", fn("logit"), unary_samples(0.05, 0.95), dtypes=NUM + LOW, inplace=meth("logit_"),
           out=out_fn("logit"), gradgrad=True),
    OpInfo("logit_eps", fn("logit"), unary_samples(-0.2, 1.2, eps=0.1), dtypes=FLOAT, gradcheck=False,
           notes="kinks at the clamp edges"),
    OpInfo("nextafter", fn("nextafter"), _same_dtype_pairs(), dtypes=FLOAT, grad=False,
           inplace=meth("nextafter_")),
    OpInfo("ldexp", fn("ldexp"), lambda dt: [Sample((arr((3, 4), dt), arr((3, 4), "int64", 0, 4)), {}, "int"),
                                            Sample((arr((3, 4), dt), arr((4,), "int32", 0, 4)), {}, "bcast")],
           dtypes=FLOAT + ("float16", "int64")),
    OpInfo("ldexp_negative", fn("ldexp"), lambda dt: [Sample((arr((3, 4), dt), arr((3, 4), "int64", -4, 4)))],
           dtypes=FLOAT, grad=False, notes="torch's derivative is 0 for negative integer exponents (it "
           "computes 2 ** other in integers); ember's is 2 ** other, checked by gradcheck on ldexp"),
    OpInfo("frexp", lambda lib, x: tuple(lib.frexp(x)), unary_samples(-100, 100), dtypes=FLOAT + LOW,
           error_samples=lambda dt: [Sample((arr((3,), "int64"),), {}, "int")]),
    OpInfo("gcd", fn("gcd"), _same_dtype_pairs(-30, 30), dtypes=INT, grad=False, inplace=meth("gcd_"),
           error_samples=lambda dt: [Sample((arr((3,), "float32"), arr((3,), "float32")), {}, "float")]),
    OpInfo("lcm", fn("lcm"), _same_dtype_pairs(-30, 30), dtypes=INT, grad=False, inplace=meth("lcm_")),
    OpInfo("bitwise_left_shift", fn("bitwise_left_shift"), _shift_samples, dtypes=INT + ("uint8",),
           grad=False, inplace=meth("bitwise_left_shift_"),
           error_samples=lambda dt: [Sample((arr((3,), "float32"), 1), {}, "float")]),
    OpInfo("bitwise_right_shift", fn("bitwise_right_shift"), _shift_samples, dtypes=INT + ("uint8",),
           grad=False, inplace=meth("bitwise_right_shift_")),
    OpInfo("lshift_operator", lambda lib, a, b: a << b, _shift_samples, dtypes=INT, grad=False,
           inplace=lambda lib, a, b: a.__ilshift__(b)),
    OpInfo("rshift_operator", lambda lib, a, b: a >> b, _shift_samples, dtypes=INT, grad=False),
    OpInfo("rlshift_operator", lambda lib, a: 3 << a, lambda dt: [Sample((arr((3,), dt, 0, 5),))],
           dtypes=INT, grad=False),
    OpInfo("angle", fn("angle"), _angle_samples, dtypes=NUM + COMPLEX),
    OpInfo("angle_signs", fn("angle"), _lit([-1.0, 0.0, -0.0, np.nan, 2.0], None), dtypes=FLOAT,
           gradcheck=False, notes="a jump at 0"),
    OpInfo("complex", fn("complex"), _complex_pair, dtypes=FLOAT,
           error_samples=lambda dt: [Sample((arr((3,), "float32"), arr((3,), "float64")), {}, "mixed"),
                                     Sample((arr((3,), "int64"), arr((3,), "int64")), {}, "int")]),
    OpInfo("polar", fn("polar"), lambda dt: [Sample((arr((3, 4), dt, 0, 3), arr((3, 4), dt)), {}, "p")],
           dtypes=FLOAT),
    OpInfo("view_as_real", fn("view_as_real"),
           lambda dt: [Sample((arr(s, dt),), {}, str(s)) for s in ((), (3,), (2, 3))] +
           [Sample((noncontig(arr((3, 2), dt)),), {}, "noncontig")],
           dtypes=COMPLEX, view=True, grad=False,
           error_samples=lambda dt: [Sample((arr((3,), "float32"),), {}, "real")]),
    OpInfo("view_as_real_grad", lambda lib, x, y: lib.view_as_real(lib.complex(x, y)) * 2, _complex_pair,
           dtypes=FLOAT),
    # real/imag: view_as_real(x).select(-1, k) views (ember/_tensor_methods/complex_parts.py)
    OpInfo("real", fn("real"), lambda dt: [Sample((arr(s, dt),), {}, str(s)) for s in ((), (3,), (2, 3))] +
           [Sample((noncontig(arr((3, 2), dt)),), {}, "noncontig")],
           dtypes=COMPLEX, view=True, grad=False),  # of a real tensor: the tensor itself (test_complex_parts)
    OpInfo("imag", fn("imag"), lambda dt: [Sample((arr(s, dt),), {}, str(s)) for s in ((), (3,), (2, 3))] +
           [Sample((noncontig(arr((3, 2), dt)),), {}, "noncontig")],
           dtypes=COMPLEX, view=True, grad=False,
           error_samples=lambda dt: [Sample((arr((3,), "float32"),), {}, "real")]),
    OpInfo("real_imag_grad", lambda lib, x, y: _parts_expression(lib.complex(x, y)), _complex_pair,
           dtypes=FLOAT),
    OpInfo("view_as_complex", fn("view_as_complex"),
           lambda dt: [Sample((arr(s, dt),), {}, str(s)) for s in ((2,), (3, 2), (2, 3, 2))],
           dtypes=FLOAT, view=True,
           error_samples=lambda dt: [Sample((arr((3, 3), dt),), {}, "last 3"),
                                     Sample((noncontig(arr((3, 2), dt)),), {}, "stride"),
                                     Sample((arr((3, 2), "int64"),), {}, "int")]),
    OpInfo("isreal", fn("isreal"), unary_samples(), dtypes=NUM + BOOL + COMPLEX, grad=False),
    OpInfo("isclose", fn("isclose"), _closeness, dtypes=NUM + BOOL, grad=False,
           error_samples=lambda dt: [Sample((arr((3,), "float32"), arr((3,), "int64")), {}, "dtypes")]),
    OpInfo("allclose", fn("allclose"), _closeness, dtypes=NUM, grad=False, meta=False,
           notes="returns a Python bool"),
    OpInfo("equal", fn("equal"), lambda dt: [Sample((a, a.copy())) for a in (arr((3, 4), dt),)] +
           [Sample((arr((3, 4), dt), arr((3, 4), dt))), Sample((arr((3,), dt), arr((4,), dt))),
            Sample((arr((3,), dt), arr((3,), "float64")))], dtypes=NUM + BOOL, grad=False, meta=False,
           notes="returns a Python bool"),
]


def _view_dtype_samples(dtype):
    x = arr((3, 4), dtype, 1, 3)  # no int whose bits read as NaN: a write through the view must show
    targets = ("int32", "float16", "float64", "uint8", dtype) if dtype == "float32" else \
        ("float32", "int16", "int64", "uint8", dtype)
    out = [Sample((x, t), {}, t) for t in targets]
    out.append(Sample((x[:, :2].copy(), "int64"), {}, "wider"))
    return out


def _view_dtype_fn(lib, x, dt):
    return x.view(getattr(lib, dt))


def _view_dtype_sliced(lib, x, dt):
    return x[1:, 2:6].view(getattr(lib, dt))


OPS += [
    OpInfo("view_dtype", _view_dtype_fn, _view_dtype_samples, dtypes=("float32", "int32"), view=True,
           grad=False),
    OpInfo("view_dtype_sliced", _view_dtype_sliced,
           lambda dt: [Sample((arr((4, 8), dt), t), {}, t) for t in ("float64", "int16", "uint8")],
           dtypes=("float32",), grad=False, view=True, skip_checks=("view",),
           notes="a view of a slice: the view check looks at the sample's own tensor"),
    OpInfo("view_dtype_errors", _view_dtype_fn, lambda dt: [Sample((arr((3, 3), dt), "float64"))],
           dtypes=("float32",), grad=False,
           error_samples=lambda dt: [Sample((arr((3, 3), dt), "float64"), {}, "odd last"),
                                     Sample((arr((), dt), "float16"), {}, "0-d"),
                                     Sample((noncontig(arr((3, 4), dt)), "float16"), {}, "stride")]),
]

OPS += [
    OpInfo("fmax", fn("fmax"), binary_samples(), dtypes=NUM + LOW, out=out_fn("fmax")),
    OpInfo("fmin", fn("fmin"), binary_samples(), dtypes=NUM + LOW),
    OpInfo("fmax_nan", fn("fmax"), _lit([1.0, np.nan, np.nan, 2.0], None, [np.nan, 1.0, np.nan, 2.0]),
           dtypes=FLOAT, gradcheck=False, notes="NaN and ties"),
    OpInfo("fmin_nan", fn("fmin"), _lit([1.0, np.nan, np.nan, 2.0], None, [np.nan, 1.0, np.nan, 2.0]),
           dtypes=FLOAT, gradcheck=False, notes="NaN and ties"),
    OpInfo("mvlgamma", fn("mvlgamma"), lambda dt: [Sample((arr((3, 4), dt, 1.6, 5), p), {}, f"p={p}")
                                                   for p in (1, 2, 4)],
           dtypes=FLOAT, inplace=meth("mvlgamma_"), atol=1e-4, rtol=1e-4),
    OpInfo("mvlgamma_poles", fn("mvlgamma"), lambda dt: [Sample((np.array([0.5, 0.9, 1.0, -1.0], dt), 3))],
           dtypes=FLOAT, grad=False),
    OpInfo("positive", fn("positive"), unary_samples(), dtypes=NUM, skip_checks=("noalias",),
           notes="returns its input, as torch does",
           error_samples=lambda dt: [Sample((arr((3,), "bool"),), {}, "bool")]),
    OpInfo("view_as_real_copy", fn("view_as_real_copy"), lambda dt: [Sample((arr((2, 3), dt),))],
           dtypes=COMPLEX, grad=False),
]
