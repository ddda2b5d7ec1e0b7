"""Regression tests for edge-value bugs the op database's ``edges`` check found (issue 17): values and
gradients at +-0, +-inf, NaN, ties and singular matrices, compared with torch element by element
(NaN in the same places, infinities equal)."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch

import ember

INF, NAN = float("inf"), float("nan")
SPECIALS = [0.0, 1.0, -1.0, NAN, INF, -INF]


def _np(x):
    return None if x is None else np.array(x.detach().numpy(), copy=True)


def _same(a, b, what):
    assert (a is None) == (b is None), what
    if a is None:
        return
    assert a.shape == b.shape and a.dtype == b.dtype, f"{what}: {a.shape}/{a.dtype} vs {b.shape}/{b.dtype}"
    np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-12, equal_nan=True, err_msg=what)


def _grads(fn, inputs, lib, dtype="float64"):
    """Forward value and the gradient of ``out.sum()`` for every input (float64 leaves)."""
    leaves = [lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True) for v in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, *leaves)
        gs = lib.autograd.grad(out.sum(), leaves, allow_unused=True)
    return [_np(out)] + [_np(g) for g in gs]


def _compare(fn, *inputs):
    for k, (e, t) in enumerate(zip(_grads(fn, inputs, ember), _grads(fn, inputs, torch))):
        _same(e, t, "value" if k == 0 else f"grad of input {k - 1}")


def _table(n):
    """Every combination of the special values for ``n`` operands, as ``n`` flat lists."""
    return [list(c) for c in zip(*itertools.product(SPECIALS, repeat=n))]


def test_clamp_tensor_bounds_route_ties_as_torch():
    _compare(lambda lib, x, lo, hi: lib.clamp(x, lo, hi), *_table(3))
    x, lo = _table(2)
    _compare(lambda lib, x, lo: lib.clamp(x, min=lo), x, lo)
    _compare(lambda lib, x, hi: lib.clamp(x, max=hi), x, lo)


def test_clamp_mixed_tensor_and_number_bounds_is_a_type_error():
    for lib in (ember, torch):
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            lib.clamp(lib.ones(3), lib.zeros(3), 2)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_binary_max_min_nan_and_ties(name):
    _compare(lambda lib, a, b: getattr(lib, name)(a, b), *_table(2))


def test_hardswish_at_inf_and_nan():
    x = SPECIALS + [-3.0, 3.0, -4.0, 5.0, 0.5]
    _compare(lambda lib, x: lib.nn.functional.hardswish(x), x)
    for lib in (ember, torch):
        with pytest.raises(NotImplementedError, match="hardswish_cpu"):
            lib.nn.functional.hardswish(lib.ones(2, dtype=lib.int64))


def test_lgamma_mvlgamma_at_minus_inf():
    x = SPECIALS + [-2.5, 0.5, 3.0]
    _compare(lambda lib, x: lib.lgamma(x), x)
    _compare(lambda lib, x: lib.mvlgamma(x, p=3), x)


def test_foreach_sign_of_nan():
    for dt in ("float64", "float32", "float16"):
        vals = [[NAN, -0.0, 0.0, 1.0, -2.0, INF], NAN]
        e = ember._foreach_sign([ember.tensor(v, dtype=getattr(ember, dt)) for v in vals])
        t = torch._foreach_sign([torch.tensor(v, dtype=getattr(torch, dt)) for v in vals])
        for a, b in zip(e, t):
            _same(_np(a), _np(b), f"_foreach_sign {dt}")


def test_kl_div_target_gradient_at_zero():
    t = [0.0, 1.0, -1.0, 0.5, -0.5, 2.0, INF, NAN]
    x = [0.3] * len(t)
    _compare(lambda lib, x, t: lib.nn.functional.kl_div(x, t, reduction="sum"), x, t)
    _compare(lambda lib, x, t: lib.nn.functional.kl_div(x, t, reduction="sum", log_target=True), x, t)


@pytest.mark.parametrize("pos_weight", [None, 2.0, 0.5])
def test_bce_with_logits_saturated_and_zero_logits(pos_weight):
    x = [0.0, 1.0, -1.0, 0.5, -0.5, 40.0, -40.0, INF, -INF, NAN]
    t = [1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.0, 1.0, 0.5, 1.0]

    def fn(lib, x, t):
        pw = None if pos_weight is None else lib.full((len(x),), pos_weight, dtype=lib.float64)
        return lib.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none", pos_weight=pw)
    _compare(fn, x, t)


def test_bce_with_logits_refuses_differentiable_weights():
    for lib in (ember, torch):
        x, t = lib.zeros(3, requires_grad=True), lib.ones(3)
        for kw in ({"weight": lib.ones(3, requires_grad=True)}, {"pos_weight": lib.ones(3, requires_grad=True)}):
            with pytest.raises(RuntimeError, match="is not differentiable with respect to argument"):
                lib.nn.functional.binary_cross_entropy_with_logits(x, t, **kw)


@pytest.mark.parametrize("p", [1, 2, 3, 0.5, INF])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("maxnorm", [0.0, 1.0, INF])
def test_renorm_with_inf_nan_zero_slices(p, dim, maxnorm):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 5))
    x[0, 0, 0], x[1, 1, 1], x[2] = INF, NAN, 0.0
    w = rng.standard_normal((4, 3, 5))
    _compare(lambda lib, x: lib.renorm(x, p, dim, maxnorm) * lib.tensor(w), x)


def test_renorm_errors_as_torch():
    cases = [((4,), 2, 0, 1.0), ((3, 4), 0, 0, 1.0), ((3, 4), -1, 0, 1.0), ((3, 4), 2, 0, -1.5),
             ((3, 4), 2, 2, 1.0), ((3, 0), INF, 0, 1.0)]
    for shape, p, dim, maxnorm in cases:
        msgs = []
        for lib in (ember, torch):
            with pytest.raises((RuntimeError, IndexError)) as info:
                lib.renorm(lib.ones(shape), p, dim, maxnorm)
            msgs.append((info.type.__name__, str(info.value)))
        assert msgs[0] == msgs[1], (shape, p, dim, maxnorm)


ZERO = [[0.0, 0.0], [0.0, 0.0]]
RANK1 = [[1.0, 2.0], [2.0, 4.0]]
ZERO_DIAG = [[1.0, 0.0], [3.0, 0.0]]
RHS = [[1.0, -1.0], [0.5, 2.0]]
SINGULAR = {
    "slogdet": (lambda lib, a: lib.linalg.slogdet(a)[1], (RANK1,)),
    "slogdet zero": (lambda lib, a: lib.linalg.slogdet(a)[1], (ZERO,)),
    "logdet": (lambda lib, a: lib.logdet(a), (RANK1,)),
    "logdet zero": (lambda lib, a: lib.logdet(a), (ZERO,)),
    "cholesky_ex": (lambda lib, a: lib.linalg.cholesky_ex(a)[0], (RANK1,)),
    "cholesky_ex zero": (lambda lib, a: lib.linalg.cholesky_ex(a)[0], (ZERO,)),
    "solve_triangular": (lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=False), (ZERO_DIAG, RHS)),
    "solve_triangular upper": (lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True),
                               (ZERO_DIAG, RHS)),
    "solve_triangular right": (lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=False, left=False),
                               (ZERO_DIAG, RHS)),
    "solve_triangular zero": (lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=False), (ZERO, RHS)),
    "triangular_solve": (lambda lib, b, a: lib.triangular_solve(b, a, upper=False)[0], (RHS, ZERO_DIAG)),
    "triangular_solve zero": (lambda lib, b, a: lib.triangular_solve(b, a)[0], (RHS, ZERO)),
    "cholesky_solve": (lambda lib, b, a: lib.cholesky_solve(b, a), (RHS, ZERO_DIAG)),
    "cholesky_solve upper": (lambda lib, b, a: lib.cholesky_solve(b, a, upper=True), (RHS, ZERO_DIAG)),
    "cholesky_solve zero": (lambda lib, b, a: lib.cholesky_solve(b, a), (RHS, ZERO)),
}


@pytest.mark.parametrize("case", sorted(SINGULAR))
def test_singular_matrix_values_and_gradients(case):
    fn, inputs = SINGULAR[case]
    _compare(fn, *inputs)


def test_cholesky_solve_gradient_reaches_all_of_l():
    rng = np.random.default_rng(1)
    b, l = rng.standard_normal((2, 3, 2)), rng.standard_normal((3, 3)) + 3 * np.eye(3)
    _compare(lambda lib, b, l: lib.cholesky_solve(b, l), b, l)
    _compare(lambda lib, b, l: lib.cholesky_solve(b, l, upper=True), b, l)


def test_cholesky_inverse_refuses_zero_diagonal():
    l = np.eye(3)[None].repeat(3, 0)
    l[1, 2, 2] = 0
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(lib.linalg.LinAlgError) as info:
            lib.cholesky_inverse(lib.tensor(l))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
