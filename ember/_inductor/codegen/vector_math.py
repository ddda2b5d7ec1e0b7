"""Float32 ``exp`` / ``erf`` / ``tanh`` / ``sigmoid`` as Numba source that LLVM vectorises (L7).

Numba calls libm's scalar ``expf``/``erff`` per element (no SVML here), which keeps a loop from
vectorising: measured 4.5x slower than NumPy's SIMD ``np.exp``. These helpers use only arithmetic,
``floor``, selects and float<->int bit casts, so a fused kernel stays a SIMD loop: on 262144
float32 values measured 0.19 ms (exp), 0.31 ms (erf), 0.26 ms (tanh), 0.22 ms (sigmoid) against
NumPy's 0.13 (exp), SciPy's 4.7 (erf), NumPy's 0.10 (tanh), SciPy's 0.95 (sigmoid), and a fused
kernel saves the memory passes and the ufunc call around them.

Methods (standard numerics): ``exp`` reduces ``x = n ln2 + r`` with a two-constant ln2 (Cody and
Waite), a degree-7 Taylor polynomial for ``e**r`` on ``|r| <= ln2/2``, and ``2**n`` added to the
exponent bits (a second scale for subnormal results); max relative error measured 3.0e-7 over
[-103.9, 88.72]. ``erf``: its Maclaurin series (12 terms) for ``|x| < 1``, Abramowitz and Stegun
7.1.26 (absolute error <= 1.5e-7) above. ``tanh``: its odd series for ``|x| < 0.3``, else
``1 - 2/(e**(2|x|) + 1)``. ``sigmoid``: ``1/(1 + e)`` or ``e/(1 + e)`` with ``e = e**-|x|`` (subnormal results kept). NaN propagates, ``+-inf`` and
overflow give the IEEE results.

``VECTOR_MATH`` maps helper names to source; ``helper_closure`` orders the helpers a kernel needs
after their dependencies.

Example:
    >>> helper_closure(["erf_float32"], VECTOR_MATH)
    ['_bits', 'exp_float32', 'erf_float32']
"""
from __future__ import annotations

__all__ = ["VECTOR_MATH", "VECTOR_NAMES", "helper_closure"]

_BITS = '''from numba.extending import intrinsic as _intrinsic
from llvmlite import ir as _ir


@_intrinsic
def _f32_from_bits(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _ir.FloatType())
    return nb.float32(nb.int32), codegen


@_intrinsic
def _f32_bits(typingctx, x):
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _ir.IntType(32))
    return nb.int32(nb.float32), codegen
'''

_EXP = '''@nb.njit(inline='always')
def exp_float32(x):
    xs = np.float32(0.0) if x != x else x
    xs = np.float32(88.75) if xs > np.float32(88.75) else xs
    xs = np.float32(-104.0) if xs < np.float32(-104.0) else xs
    n = np.float32(math.floor(xs * np.float32(1.4426950408889634) + np.float32(0.5)))
    r = xs - n * np.float32(0.693145751953125)
    r = r - n * np.float32(1.428606765330187e-06)
    p = np.float32(1.0 / 5040) * r + np.float32(1.0 / 720)
    p = p * r + np.float32(1.0 / 120)
    p = p * r + np.float32(1.0 / 24)
    p = p * r + np.float32(1.0 / 6)
    p = p * r + np.float32(0.5)
    p = p * r + np.float32(1.0)
    p = p * r + np.float32(1.0)
    ni = np.int32(n)
    pb = _f32_bits(p)
    y = _f32_from_bits(pb + (ni << np.int32(23)))
    tiny = _f32_from_bits(pb + ((ni + np.int32(64)) << np.int32(23))) * np.float32(2.0 ** -64)
    y = y if ni >= np.int32(-125) else tiny
    y = np.float32(np.inf) if x > np.float32(88.72283) else y
    return x if x != x else y
'''

# Maclaurin coefficients of erf(x) / (2/sqrt(pi) x) in z = x*x: (-1)^k / (k! (2k+1))
_ERF_SERIES = [(-1) ** k / (__import__("math").factorial(k) * (2 * k + 1)) for k in range(12)]


def _horner(var: str, coeffs: list, acc: str) -> list:
    lines = [f"    {acc} = np.float32({coeffs[-1]!r}) * {var} + np.float32({coeffs[-2]!r})"]
    for c in reversed(coeffs[:-2]):
        lines.append(f"    {acc} = {acc} * {var} + np.float32({c!r})")
    return lines


_ERF = "\n".join([
    "@nb.njit(inline='always')", "def erf_float32(x):", "    ax = abs(x)", "    z = x * x",
    *_horner("z", _ERF_SERIES, "s"),
    "    small = x * (s * np.float32(1.1283791670955126))",
    "    t = np.float32(1.0) / (np.float32(1.0) + np.float32(0.3275911) * ax)",
    *_horner("t", [0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429], "q"),
    "    big = np.float32(1.0) - (q * t) * exp_float32(-z)",
    "    big = big if x >= np.float32(0.0) else -big",
    "    y = small if ax < np.float32(1.0) else big",
    "    return x if x != x else y"]) + "\n"

# tanh(x) = x + x * z * S(z), S from the odd Taylor series: -1/3, 2/15, -17/315, 62/2835, ...
_TANH = "\n".join([
    "@nb.njit(inline='always')", "def tanh_float32(x):", "    ax = abs(x)", "    z = x * x",
    *_horner("z", [-1 / 3, 2 / 15, -17 / 315, 62 / 2835, -1382 / 155925, 21844 / 6081075], "s"),
    "    small = x + x * (z * s)",
    "    e = exp_float32(np.float32(2.0) * ax)",
    "    big = np.float32(1.0) - np.float32(2.0) / (e + np.float32(1.0))",
    "    big = big if x >= np.float32(0.0) else -big",
    "    y = small if ax < np.float32(0.3) else big",
    "    return x if x != x else y"]) + "\n"

_SIGMOID = '''@nb.njit(inline='always')
def sigmoid_float32(x):
    e = exp_float32(-abs(x))
    d = np.float32(1.0) + e
    y = np.float32(1.0) / d if x >= np.float32(0.0) else e / d
    return x if x != x else y
'''

# llvm.maxnum (NaN-ignoring max): LLVM vectorises a maxnum reduction, not a compare-select one
# without no-NaN flags (measured 0.34 ms against 2.2 ms for 4096 rows of 1024 float32)
_MAXNUM = '''from numba.extending import intrinsic as _intrinsic
from llvmlite import ir as _ir


@_intrinsic
def _maxnum(typingctx, a, b):
    def codegen(context, builder, sig, args):
        ty = args[0].type
        fn = builder.module.declare_intrinsic("llvm.maxnum", [ty], _ir.FunctionType(ty, [ty, ty]))
        return builder.call(fn, args)
    return a(a, b), codegen
'''

VECTOR_MATH = {"_maxnum": _MAXNUM, "_bits": _BITS, "exp_float32": _EXP, "erf_float32": _ERF,
               "tanh_float32": _TANH, "sigmoid_float32": _SIGMOID}
VECTOR_NAMES = ("exp_float32", "erf_float32", "tanh_float32", "sigmoid_float32")
_DEPS = {"exp_float32": ["_bits"], "erf_float32": ["exp_float32"],
         "tanh_float32": ["exp_float32"], "sigmoid_float32": ["exp_float32"]}


def helper_closure(names: list, table: dict) -> list:
    """``names`` and the helpers they call, each after its dependencies, in a stable order."""
    out: list = []

    def visit(n):
        if n in out:
            return
        for d in _DEPS.get(n, ()):
            visit(d)
        out.append(n)
    for n in sorted(names):
        if n in table:
            visit(n)
    return out
