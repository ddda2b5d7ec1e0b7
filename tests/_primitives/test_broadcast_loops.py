"""Binary add/sub/mul/div on float tensors of different sizes: the Numba loops dispatch's fast path
runs for operands that broadcast as (1s, some dims, 1s) give NumPy's bits and torch's values, in
both operand orders, with NaN/inf/zero division; other shapes and layouts keep NumPy's ufunc."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember import _dispatch as Dp

# (first operand's shape, second's), all of rank 3 (each pair of ranks compiles its own loop: a cold
# cache compiles few): a channel mean, batch x channel, a trailing bias, one value for all, the small
# operand first (as a block value and as a row); then a bias of lower rank
LOOP_SHAPES = [((3, 32, 32), (3, 1, 1)), ((4, 3, 64), (1, 3, 1)), ((4, 8, 64), (1, 1, 64)),
               ((3, 32, 32), (1, 1, 1)), ((1, 300, 1), (2, 300, 4)), ((1, 1, 300), (4, 8, 300))]
LOWER_RANK = ((64, 20), (20,))
NUMPY_SHAPES = [((5, 1, 1), (1, 1, 300)), ((2, 3, 100), (2, 1, 100)), ((3, 1, 1), (3, 32, 32))]
OPS = ["+", "-", "*", "/"]


@pytest.fixture(autouse=True)
def _loops_from_the_first_call(monkeypatch):
    monkeypatch.setattr(Dp, "BROADCAST_WARMUP", 0)


def _operands(sa, sb, dtype):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40], dtype)
    for x in (a, b):
        x.reshape(-1)[:len(specials)] = specials[:x.size]
    return a, b


# every op on every pattern in float32; float64 and a lower-rank operand on a few
CASES = [(op, shapes, "float32") for op in OPS for shapes in LOOP_SHAPES + NUMPY_SHAPES] + \
    [(op, LOOP_SHAPES[0], "float64") for op in "-/"] + [("+", LOWER_RANK, "float32")]


def test_broadcast_ops_match_numpy_bits_and_torch():
    for op, (sa, sb), dtype in CASES:
        a, b = _operands(sa, sb, dtype)
        with np.errstate(all="ignore"):
            want = eval(f"a {op} b")  # noqa: S307 - fixed expressions
            got = eval(f"x {op} y", {"x": ember.from_numpy(a), "y": ember.from_numpy(b)})  # noqa: S307
        ref = eval(f"x {op} y", {"x": torch.from_numpy(a), "y": torch.from_numpy(b)})  # noqa: S307
        label = f"{sa} {op} {sb} {dtype}"
        assert str(got.dtype) == str(ref.dtype) and tuple(got.shape) == want.shape, label
        np.testing.assert_array_equal(got.numpy().view(np.uint8), want.view(np.uint8), label)
        np.testing.assert_array_equal(got.numpy(), ref.numpy(), label)
    assert all(Dp._LOOPS[k][0] for k in ("add", "subtract", "multiply", "divide"))  # compiled loops
    assert ((2, 3, 100), (2, 1, 100)) in Dp._NO_LOOP  # refused by the loop: NumPy broadcast it


def test_broadcast_loop_skips_non_contiguous_operands_and_keeps_autograd():
    base = np.arange(2 * 3 * 64, dtype=np.float32).reshape(2, 3, 64)
    for lib in (ember, torch):
        x = lib.from_numpy(base.copy())[:, :, ::2]  # strided: NumPy's ufunc
        m = lib.tensor([1.0, 2.0, 3.0]).reshape(1, 3, 1)
        assert (x - m)[1, 2, :3].tolist() == [317.0, 319.0, 321.0]
    e_x, t_x = (lib.from_numpy(base.copy()).requires_grad_() for lib in (ember, torch))
    e_m, t_m = (lib.tensor([1.0, 2.0, 4.0]).reshape(1, 3, 1).requires_grad_() for lib in (ember, torch))
    for x, m in ((e_x, e_m), (t_x, t_m)):
        ((x - m) / m * x).sum().backward()
    np.testing.assert_allclose(e_m.grad.numpy(), t_m.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(e_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-6)


def test_integer_and_mixed_dtype_broadcasts_keep_numpy():
    a, b = np.arange(600).reshape(2, 300), np.array([[3], [0]])
    for lhs, rhs in ((a, b), (a.astype(np.float32), b.astype(np.float64))):
        for op in OPS:
            with np.errstate(all="ignore"):
                got = eval(f"x {op} y", {"x": ember.from_numpy(lhs), "y": ember.from_numpy(rhs)})  # noqa: S307
            ref = eval(f"x {op} y", {"x": torch.from_numpy(lhs), "y": torch.from_numpy(rhs)})  # noqa: S307
            assert str(got.dtype) == str(ref.dtype)
            np.testing.assert_array_equal(got.numpy(), ref.numpy())


def test_loops_load_only_after_the_warmup(monkeypatch):
    monkeypatch.setattr(Dp, "BROADCAST_WARMUP", 3)
    monkeypatch.setattr(Dp, "_BROADCAST_CALLS", {})
    cell = Dp._LOOPS["subtract"]  # the cell cached plans hold: emptied, so the loop loads again
    loaded, cell[0] = cell[0], None
    try:
        x, m = ember.ones(3, 16, 16), ember.tensor([1.0, 2.0, 3.0]).reshape(3, 1, 1)
        for i in range(3):
            assert (x - m)[2, 0, 0].item() == -2.0
            assert bool(cell[0]) == (i == 2)  # NumPy broadcasts until the third call
    finally:
        cell[0] = cell[0] or loaded
