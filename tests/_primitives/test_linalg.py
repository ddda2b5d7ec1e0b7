"""Gradient layout of products: a transposed weight (Linear's ``weight.t()``) gets its gradient
contiguous in the weight's own layout, as torch gives it, with torch's values."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("shape", [(6, 5), (2, 6, 5)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_weight_grad_is_contiguous_like_torch(shape, bias):
    x = np.random.default_rng(0).standard_normal(shape)
    grads = []
    for lib in (ember, torch):
        layer = lib.nn.Linear(5, 3, bias=bias).double()
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(np.arange(15.0).reshape(3, 5) / 7))
            if bias:
                layer.bias.fill_(0.25)
        layer(lib.tensor(x)).square().sum().backward()
        g = layer.weight.grad
        assert g.is_contiguous() and g.stride() == (5, 1)
        grads.append(g.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_plain_mm_operand_keeps_row_major_grad():
    a = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    b = ember.randn(3, 2, dtype=ember.float64, requires_grad=True)
    (a @ b).sum().backward()
    assert b.grad.is_contiguous() and a.grad.is_contiguous()
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy().sum(0)[:, None].repeat(2, 1))
