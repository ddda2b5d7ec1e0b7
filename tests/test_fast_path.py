"""dispatch's generated fast path against the general path, on the whole op database: the same
outputs (values, shapes, dtypes), the same gradients, and for error samples the same exception type
and message (a failing fast path re-runs the op on the general path)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import ember
from ember._dispatch import general_path_only
from tests.ops.opdb import OPS
from tests.ops.opdb import _core
from tests.ops.test_ops import _diff_outputs, _grad_leaves, convert, flat_tensors

FAMILIES = sorted({op.family for op in OPS})


def _run(op, sample, dtype, grad):
    """(outputs as (shape, dtype, array), gradients) or ("raised", type, message)."""
    args, kw = convert(sample, ember, dtype)
    leaves = []
    if grad:
        args, leaves = _grad_leaves(args, ember)
    try:
        res = op.fn(ember, *args, **kw)
    except Exception as e:  # noqa: BLE001 - both paths must raise the same
        return ("raised", type(e), str(e))
    outs = [(tuple(t.shape), t.dtype, t.detach().numpy().copy()) for t in flat_tensors(res)]
    grads = []
    diff = _diff_outputs(res) if grad else []
    if diff and leaves:
        cots = [ember.ones_like(o) for o in diff]
        try:
            grads = ember.autograd.grad(diff, leaves, cots, allow_unused=True)
        except Exception as e:  # noqa: BLE001
            return ("raised in backward", type(e), str(e))
        grads = [None if g is None else (tuple(g.shape), g.dtype, g.numpy().copy()) for g in grads]
    return outs, grads


def _same(a, b, label):
    if isinstance(a, tuple) and isinstance(a[0], str):
        assert a == b, f"{label}: fast {a} vs general {b}"
        return
    assert not (isinstance(b, tuple) and isinstance(b[0], str)), f"{label}: general raised {b}"
    for x, y in zip(a[0] + a[1], b[0] + b[1]):
        if x is None or y is None:
            assert x is y, label
            continue
        assert x[0] == y[0] and x[1] is y[1], f"{label}: {x[:2]} vs {y[:2]}"
        xa, ya = x[2], y[2]
        if xa.dtype.kind == "V" or xa.dtype.name == "bfloat16":  # NumPy sees NaN != NaN there
            xa, ya = xa.astype(np.float32), ya.astype(np.float32)
        np.testing.assert_array_equal(xa, ya, err_msg=label)
    assert len(a[0]) == len(b[0]) and len(a[1]) == len(b[1]), label


def _both(op, sample, dtype, grad):
    state = np.random.default_rng(0).bit_generator.state
    _core.RNG.bit_generator.state = state
    ember.manual_seed(0)
    fast = _run(op, sample, dtype, grad)
    ember.manual_seed(0)
    with general_path_only():
        general = _run(op, sample, dtype, grad)
    return fast, general


@pytest.mark.timeout(300)
@pytest.mark.parametrize("family", FAMILIES)
def test_fast_path_equals_general_path(family):
    for op in (o for o in OPS if o.family == family):
        grad_dtype = next((d for d in op.dtypes if d in ("float32", "float64")), None)
        for dtype in op.dtypes:
            grad = op.grad and dtype == grad_dtype  # one dtype's gradients: the suite's time matters
            for i, s in enumerate(itertools.islice(op.samples(dtype), 4)):
                fast, general = _both(op, s, dtype, grad)
                _same(fast, general, f"{op.name} {dtype} sample {i}")
            for i, s in enumerate(op.error_samples(dtype) if op.error_samples else ()):
                fast, general = _both(op, s, dtype, False)
                assert fast[0] == "raised", f"{op.name} {dtype} error sample {i} did not raise"
                assert fast == general, f"{op.name} {dtype} error sample {i}: {fast} vs {general}"


def test_fast_path_is_taken_and_switch_works():
    from ember._primitives import pointwise as P
    a, b = ember.ones(3), ember.ones(3)
    a + b
    assert P.add.fast  # generated on first call
    with general_path_only():
        assert (a + b).tolist() == [2.0, 2.0, 2.0]


# ---- Python operators with scalars, flip, neg and comparisons on the fast path, against torch
_EXPRS = ["x * 2.0", "x * 2", "2.5 * x", "1 - x", "1.5 - x", "x - 1", "x / 3", "3 / x", "x / 2.5",
          "x ** 2", "x ** 0.5", "x ** -1", "2 ** x", "0.5 ** x", "x + True", "x * y", "x - y", "x / y",
          "x ** y", "-x", "x.neg()", "x.flip(0)", "x.flip(-1)", "x == 2", "x != y", "x < 0.5", "x >= y",
          "x > 1", "x <= 2.5", "x * 1e40", "x * 3j", "x + x0", "x0 * 2.5", "x0 + y"]
_DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64"]


def _values(lib, dtype):
    a = np.array([[0.0, 1.5, -2.0], [3.0, 0.5, 4.0]])
    if dtype in ("bool", "uint8"):
        a = np.abs(a) > 1 if dtype == "bool" else np.abs(a).astype(np.uint8)
    x = lib.tensor(a).to(getattr(lib, dtype))
    return {"x": x, "y": x.flip(0) + (0 if dtype == "bool" else 1), "x0": x[0, 1]}


def _eval(expr, env):
    try:
        r = eval(expr, {}, env)  # noqa: S307 - fixed expressions from this file
    except Exception as e:  # noqa: BLE001 - both libraries must raise alike
        return ("raised", type(e).__name__)
    return r


@pytest.mark.parametrize("dtype", _DTYPES)
def test_scalar_operators_match_torch_and_the_general_path(dtype):
    import torch
    for expr in _EXPRS:
        with np.errstate(all="ignore"):
            e = _eval(expr, _values(ember, dtype))
            t = _eval(expr, _values(torch, dtype))
            with general_path_only():
                g = _eval(expr, _values(ember, dtype))
        label = f"{expr} on {dtype}"
        if isinstance(t, tuple):
            assert isinstance(e, tuple) and isinstance(g, tuple), f"{label}: torch raised {t}, ember {e}"
            continue
        assert not isinstance(e, tuple), f"{label}: ember raised {e}, torch gave {t.dtype}"
        assert str(e.dtype) == str(t.dtype) == str(g.dtype), f"{label}: {e.dtype} {g.dtype} vs {t.dtype}"
        assert tuple(e.shape) == tuple(t.shape), label
        e, g = (x.cdouble() if x.dtype is ember.complex32 else x for x in (e, g))  # no NumPy complex32
        ev, tv = e.numpy().astype(np.complex128), t.to(torch.complex128).numpy()
        np.testing.assert_array_equal(ev, g.numpy().astype(np.complex128), err_msg=label)
        rtol = 1e-2 if dtype in ("float16", "bfloat16") else 1e-6
        np.testing.assert_allclose(ev, tv, rtol=rtol, atol=rtol, equal_nan=True, err_msg=label)
