"""Gradients at the points where derivative formulas special-case (issue 17), compared with torch."""
import numpy as np
import pytest
import torch

import ember

EDGE = [0.0, 0.0, 1.0, 1.0, 0.5, -0.5]

CASES = {
    "softplus": lambda lib, x: lib.nn.functional.softplus(x),
    "softplus_beta": lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=1.0),
    "logsigmoid": lambda lib, x: lib.nn.functional.logsigmoid(x),
    "hardtanh_0_1": lambda lib, x: lib.nn.functional.hardtanh(x, 0.0, 1.0),
    "relu6": lambda lib, x: lib.nn.functional.relu6(x * 6),
    "hardtanh_inplace": lambda lib, x: lib.nn.functional.hardtanh(x.clone(), 0.0, 1.0, inplace=True),
    "pdist_equal_rows": lambda lib, x: lib.nn.functional.pdist(x.reshape(3, 2)),
    "pdist_p1": lambda lib, x: lib.nn.functional.pdist(x.reshape(3, 2), 1),
    "pdist_p3": lambda lib, x: lib.nn.functional.pdist(x.reshape(3, 2), 3),
    "pdist_p0": lambda lib, x: lib.nn.functional.pdist(x.reshape(3, 2), 0),
    "atan2_self": lambda lib, x: lib.atan2(x, x),
    "atan2_zero": lambda lib, x: lib.atan2(x, x * 0),
    "bce_saturated": lambda lib, x: lib.nn.functional.binary_cross_entropy(
        x.clamp(0, 1), lib.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 0.0], dtype=x.dtype)),
    "bce_dtype_mismatch": lambda lib, x: lib.nn.functional.binary_cross_entropy(
        x.clamp(0, 1), lib.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 0.0], dtype=lib.float16)),
    "bce_loss_module": lambda lib, x: lib.nn.BCELoss()(x.clamp(0, 1), lib.tensor([1.0, 1, 0, 0, 1, 0], dtype=x.dtype)),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_edge_gradient(name, dtype):
    res = []
    for lib in (torch, ember):
        x = lib.tensor(EDGE, dtype=getattr(lib, dtype), requires_grad=True)
        try:
            y = CASES[name](lib, x)
        except RuntimeError as e:
            if lib is torch:
                with pytest.raises(RuntimeError, match=str(e)):
                    CASES[name](ember, ember.tensor(EDGE, dtype=getattr(ember, dtype), requires_grad=True))
                return
            raise
        g, = lib.autograd.grad(y.sum(), x)
        res.append((y.detach().numpy(), g.numpy()))
    (ty, tg), (ey, eg) = res
    np.testing.assert_allclose(ey, ty, rtol=1e-6, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(eg, tg, rtol=1e-5, atol=1e-6, err_msg=name)


def test_bce_reported_values():
    """The issue's example: torch gives [-3.3e11, 3.3e11, -0.67], not NaN."""
    for lib in (torch, ember):
        x = lib.tensor([0.0, 1.0, 0.5], requires_grad=True)
        t = lib.tensor([1.0, 0.0, 1.0], requires_grad=True)
        lib.nn.functional.binary_cross_entropy(x, t).backward()
        if lib is torch:
            tx, tt = x.grad.numpy(), t.grad.numpy()
    np.testing.assert_allclose(x.grad.numpy(), tx, rtol=1e-6)
    np.testing.assert_array_equal(t.grad.numpy(), tt)  # +-inf at the saturated points, as torch


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_relu_inactive_unit_ignores_nonfinite_grad(bad):
    """threshold_backward gives 0 at an inactive unit even for a NaN/inf incoming gradient."""
    out = []
    for lib in (torch, ember):
        x = lib.tensor([-1.0, 0.0, 2.0, -3.0], requires_grad=True)
        g, = lib.autograd.grad(lib.relu(x), x, lib.tensor([bad, bad, bad, 1.0]))
        out.append(g.numpy())
    np.testing.assert_array_equal(out[1], out[0])
