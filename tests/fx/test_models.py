"""Tracing real models and every nn layer: same graph as torch.fx, same outputs and gradients."""
import numpy as np
import pytest
import torch
import torch.fx

import ember
import ember.fx
from ember import nn

from ._models import INPUT_SHAPES, build, copy_params


def _np(t):
    return t.detach().numpy()


def _target(n):
    """A comparable name for a node's target in either library."""
    t = n.target
    if isinstance(t, str):
        return t
    return getattr(t, "__name__", str(t))


def _signature(gm):
    return [(n.op, n.name, _target(n)) for n in gm.graph.nodes]


@pytest.mark.parametrize("name", sorted(INPUT_SHAPES))
def test_model_graph_outputs_and_grads_match(name):
    tm, em = build(torch, name), build(ember, name)
    copy_params(tm, em, ember)
    tg, eg = torch.fx.symbolic_trace(tm), ember.fx.symbolic_trace(em)
    assert _signature(eg) == _signature(tg)
    assert isinstance(eg, nn.Module) and type(eg).__name__ == type(em).__name__
    x = np.random.default_rng(0).standard_normal(INPUT_SHAPES[name]).astype(np.float32)
    # the GraphModule computes exactly what the module does, and what torch computes
    ex1 = ember.tensor(x, requires_grad=True)
    ex2 = ember.tensor(x, requires_grad=True)
    out_m, out_g = em(ex1), eg(ex2)
    np.testing.assert_array_equal(_np(out_m), _np(out_g))
    np.testing.assert_allclose(_np(out_g), _np(tg(torch.tensor(x))), rtol=1e-4, atol=1e-5)
    # gradients flow through the generated code into the same parameters
    (out_m * out_m).sum().backward()
    grads_m = {k: _np(p.grad).copy() for k, p in em.named_parameters()}
    em.zero_grad()
    (out_g * out_g).sum().backward()
    for k, p in eg.named_parameters():
        np.testing.assert_allclose(_np(p.grad), grads_m[k], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(ex1.grad), _np(ex2.grad), rtol=1e-5, atol=1e-6)


def _layers():
    return [
        (nn.Linear(4, 3), (2, 4)), (nn.Bilinear(4, 4, 2), None), (nn.ReLU(), (2, 4)),
        (nn.GELU(), (2, 4)), (nn.Tanh(), (2, 4)), (nn.Sigmoid(), (2, 4)), (nn.SiLU(), (2, 4)),
        (nn.LeakyReLU(0.2), (2, 4)), (nn.ELU(), (2, 4)), (nn.Softmax(dim=-1), (2, 4)),
        (nn.LogSoftmax(dim=1), (2, 4)), (nn.Hardtanh(), (2, 4)), (nn.Softplus(), (2, 4)),
        (nn.LayerNorm(4), (2, 4)), (nn.RMSNorm(4), (2, 4)), (nn.Dropout(0.5).eval(), (2, 4)),
        (nn.Flatten(), (2, 3, 4)), (nn.Unflatten(1, (2, 2)), (2, 4)), (nn.Identity(), (2, 4)),
        (nn.Conv1d(2, 3, 3), (1, 2, 8)), (nn.Conv2d(2, 3, 3, padding=1), (1, 2, 5, 5)),
        (nn.ConvTranspose2d(2, 3, 3), (1, 2, 4, 4)), (nn.MaxPool2d(2), (1, 2, 4, 4)),
        (nn.AvgPool2d(2), (1, 2, 4, 4)), (nn.AdaptiveAvgPool2d(1), (1, 2, 4, 4)),
        (nn.Upsample(scale_factor=2), (1, 2, 3, 3)), (nn.PixelShuffle(2), (1, 4, 2, 2)),
        (nn.Sequential(nn.Linear(4, 4), nn.ReLU()), (2, 4)),
    ]


@pytest.mark.parametrize("layer,shape", _layers(), ids=lambda v: type(v).__name__
                         if isinstance(v, nn.Module) else "")
def test_every_layer_traces_as_a_leaf(layer, shape):
    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer

        def forward(self, x):
            return self.layer(x)

    class Wrap2(Wrap):
        def forward(self, x, y):
            return self.layer(x, y)
    gm = ember.fx.symbolic_trace(Wrap() if shape is not None else Wrap2())
    inputs = [ember.randn(2, 4), ember.randn(2, 4)] if shape is None else [ember.randn(*shape)]
    kinds = [n.op for n in gm.graph.nodes]
    if isinstance(layer, nn.Sequential):
        assert kinds.count("call_module") == 2  # containers are traced through
    else:
        assert kinds.count("call_module") == 1
    np.testing.assert_array_equal(_np(gm(*inputs)), _np(layer(*inputs)))


def test_embedding_and_kwargs_function():
    weight = ember.randn(10, 3)

    def f(idx, *, scale=2.0):
        return ember.nn.functional.embedding(idx, weight) * scale
    gm = ember.fx.symbolic_trace(f)
    # a tensor captured from outside becomes an attribute of the GraphModule
    assert [n.target for n in gm.graph.find_nodes(op="get_attr")] == ["_tensor_constant0"]
    assert gm._tensor_constant0 is weight
    idx = ember.tensor([[1, 2], [3, 4]])
    np.testing.assert_array_equal(_np(gm(idx, 3.0)), _np(f(idx, scale=3.0)))
    assert [n.op for n in gm.graph.nodes][:2] == ["placeholder", "placeholder"]
