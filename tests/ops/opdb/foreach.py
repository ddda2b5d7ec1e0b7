"""Op-database entries for the out-of-place ``_foreach_*`` ops on lists of differently-shaped tensors
(in-place variants, version counters and the no-grad optimizer path: tests/test_foreach.py)."""
from __future__ import annotations

from ._core import FLOAT, INT, OpInfo, Sample, arr

SHAPES = [(3,), (2, 3), (), (4, 1, 2)]


def _lst(dt, low=-3, high=3):
    return [arr(s, dt, low, high) for s in SHAPES]


def _binary_samples(dt):
    return [Sample((_lst(dt), 1.5 if dt in FLOAT else 2), name="scalar"),
            Sample((_lst(dt), [0.5, 2, -1, 3]), name="scalars"),
            Sample((_lst(dt), _lst(dt)), name="tensors"),
            Sample((_lst(dt), arr((), dt)), name="0-d tensor")]


def _alpha_samples(dt):
    return _binary_samples(dt) + [Sample((_lst(dt), _lst(dt)), dict(alpha=2), name="alpha")]


def _unary_samples(dt):
    return [Sample((_lst(dt),))]


def _positive_samples(dt):
    return [Sample(([arr(s, dt, 0.5, 3) for s in SHAPES],))]


def _addc_samples(dt):
    # no 0-d tensor: torch's own foreach addcdiv backward fails on one (select() on a 0-dim tensor)
    def lst(low=-3, high=3):
        return [arr(s, dt, low, high) for s in SHAPES if s != ()]
    return [Sample((lst(), lst(), lst(0.5, 3)), name="default"),
            Sample((lst(), lst(), lst(0.5, 3), 0.3), name="value"),
            Sample((lst(), lst(), lst(0.5, 3), [0.5, 2, -1]), name="values")]


def _lerp_samples(dt):
    return [Sample((_lst(dt), _lst(dt), 0.3), name="small weight"),
            Sample((_lst(dt), _lst(dt), 0.7), name="large weight"),
            Sample((_lst(dt), _lst(dt), [0.1, 0.9, 0.5, -0.2]), name="weights"),
            Sample((_lst(dt), _lst(dt), [arr(s, dt, 0, 1) for s in SHAPES]), name="tensor weights")]


def _pow_samples(dt):
    pos = [arr(s, dt, 0.5, 3) for s in SHAPES]
    return [Sample((pos, 2), name="scalar"), Sample((pos, [2, 0.5, 3, 1]), name="scalars"),
            Sample((pos, _lst(dt)), name="tensors")]


def _norm_samples(dt):
    return [Sample((_lst(dt),), name="2"), Sample((_lst(dt), 1), name="1"),
            Sample((_lst(dt), float("inf")), name="inf"), Sample((_lst(dt), 3), name="3"),
            Sample((_lst(dt), 0), name="0")]


def _errors(dt):
    return [Sample((_lst(dt), [1, 2]), name="scalar list length"),
            Sample((_lst(dt), _lst(dt)[:2]), name="tensor list length"),
            Sample((_lst(dt), arr((2,), dt)), name="1-d other"),
            Sample(([arr((2,), dt)], [arr((3,), dt)]), name="shapes"),
            Sample(([], 1), name="empty")]


# The generic finite-difference gradcheck rebuilds only top-level tensor args, not tensor lists; the
# gradients of these ops (the per-tensor ops under autograd) are compared with torch by "backward".
NO_GC = dict(skip_checks=("gradcheck",), notes="gradcheck cannot perturb tensors inside lists")


def _fe(name):
    return lambda lib, *a, **k: getattr(lib, f"_foreach_{name}")(*a, **k)


def _fe_(name):
    """The in-place ``_foreach_<name>_`` (returns None, as torch's): the entry returns the written list."""
    def fn(lib, xs, *a, **k):
        assert getattr(lib, f"_foreach_{name}_")(xs, *a, **k) is None
        return xs
    return fn


def _inplace(name, samples, dtypes=FLOAT):
    return OpInfo(f"_foreach_{name}_", _fe_(name), samples, dtypes=dtypes, grad=False,
                  skip_checks=("noalias",), notes="writes into its first argument by design")


OPS = [
    OpInfo("_foreach_add", _fe("add"), _alpha_samples, dtypes=FLOAT + INT, error_samples=_errors, **NO_GC),
    OpInfo("_foreach_sub", _fe("sub"), _alpha_samples, dtypes=FLOAT + INT, **NO_GC),
    OpInfo("_foreach_mul", _fe("mul"), _binary_samples, dtypes=FLOAT + INT, error_samples=_errors,
           **NO_GC),
    OpInfo("_foreach_div", _fe("div"), lambda dt: [Sample((_lst(dt), [arr(s, dt, 1, 3) for s in SHAPES])),
                                                    Sample((_lst(dt), 2.5))], dtypes=FLOAT + INT),
    OpInfo("_foreach_maximum", _fe("maximum"), _binary_samples, dtypes=FLOAT + INT, grad=False),
    OpInfo("_foreach_minimum", _fe("minimum"), _binary_samples, dtypes=FLOAT + INT, grad=False),
    OpInfo("_foreach_pow", _fe("pow"), _pow_samples, dtypes=FLOAT),
    OpInfo("_foreach_pow_scalar_base", lambda lib, x: lib._foreach_pow(2.0, x), _unary_samples,
           dtypes=FLOAT),
    OpInfo("_foreach_sqrt", _fe("sqrt"), _positive_samples, dtypes=FLOAT + INT),
    OpInfo("_foreach_exp", _fe("exp"), _unary_samples, dtypes=FLOAT + INT),
    OpInfo("_foreach_neg", _fe("neg"), _unary_samples, dtypes=FLOAT + INT),
    OpInfo("_foreach_abs", _fe("abs"), _unary_samples, dtypes=FLOAT + INT + ("complex64",), grad=False),
    OpInfo("_foreach_sign", _fe("sign"), _unary_samples, dtypes=FLOAT + INT),
    OpInfo("_foreach_reciprocal", _fe("reciprocal"), _positive_samples, dtypes=FLOAT),
    OpInfo("_foreach_addcmul", _fe("addcmul"), _addc_samples, dtypes=FLOAT + INT),
    OpInfo("_foreach_addcdiv", _fe("addcdiv"), _addc_samples, dtypes=FLOAT),
    OpInfo("_foreach_lerp", _fe("lerp"), _lerp_samples, dtypes=FLOAT),
    OpInfo("_foreach_norm", _fe("norm"), _norm_samples, dtypes=FLOAT, grad=False),
    # in-place variants (the optimizers' path), forward values against torch's
    _inplace("add", _alpha_samples, FLOAT + INT), _inplace("sub", _alpha_samples, FLOAT + INT),
    _inplace("mul", _binary_samples, FLOAT + INT),
    _inplace("div", lambda dt: [Sample((_lst(dt), [arr(s, dt, 1, 3) for s in SHAPES])), Sample((_lst(dt), 2.5))]),
    _inplace("maximum", _binary_samples), _inplace("minimum", _binary_samples),
    _inplace("pow", _pow_samples), _inplace("sqrt", _positive_samples), _inplace("exp", _unary_samples),
    _inplace("neg", _unary_samples, FLOAT + INT), _inplace("abs", _unary_samples, FLOAT + INT),
    _inplace("sign", _unary_samples), _inplace("reciprocal", _positive_samples),
    _inplace("addcmul", _addc_samples), _inplace("addcdiv", _addc_samples), _inplace("lerp", _lerp_samples),
    _inplace("zero", _unary_samples, FLOAT + INT),
    OpInfo("_foreach_copy_", lambda lib, xs, ys: (lib._foreach_copy_(xs, ys), xs)[1],
           lambda dt: [Sample((_lst(dt), _lst(dt)))], grad=False, skip_checks=("noalias",),
           notes="writes into its first argument by design"),
]
