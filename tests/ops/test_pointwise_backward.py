"""The fused activation backward primitives (ember/_primitives/pointwise_backward.py): first and second
derivatives equal torch's, and equal the composite formulas they replace."""
import numpy as np
import pytest
import torch

import ember

X = [0.5, -1.0, 2.0, 0.0, -3.0]


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "relu"])
def test_first_and_second_derivatives_match_torch(name):
    out = {}
    for lib in (ember, torch):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        y = getattr(x, name)()
        w = lib.tensor([1.0, 2.0, -1.0, 0.5, 3.0], dtype=lib.float64)
        g, = lib.autograd.grad((y * y * w).sum(), x, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), x)
        out[lib.__name__] = (g.detach().numpy().copy(), gg.numpy().copy())
    for a, b in zip(out["ember"], out["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_inputs_named_out_are_refused():
    from ember._primitives._registry import REGISTRY, OpDef

    def kernel(grad, out):
        return grad

    op = OpDef("_test_bad_out_name", kernel, "pointwise")
    try:
        with pytest.raises(TypeError, match="may not be named 'out'"):
            op.derivative(lambda g, out: g)
    finally:
        REGISTRY.pop("_test_bad_out_name", None)
