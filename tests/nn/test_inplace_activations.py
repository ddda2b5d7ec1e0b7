"""In-place activations after layers whose derivatives must not save their output (issue 17): torch's
derivatives of norms and poolings save inputs, indices or statistics, so writing into their output is
legal; every in-place activation runs on every producer and the result (error or gradients) is torch's."""
import numpy as np
import pytest
import torch

import ember

ACTS = {
    "relu": lambda F, y: F.relu(y, inplace=True),
    "leaky_relu": lambda F, y: F.leaky_relu(y, 0.2, inplace=True),
    "elu": lambda F, y: F.elu(y, inplace=True),
    "selu": lambda F, y: F.selu(y, inplace=True),
    "celu": lambda F, y: F.celu(y, 0.7, inplace=True),
    "silu": lambda F, y: F.silu(y, inplace=True),
    "mish": lambda F, y: F.mish(y, inplace=True),
    "hardsigmoid": lambda F, y: F.hardsigmoid(y, inplace=True),
    "hardswish": lambda F, y: F.hardswish(y, inplace=True),
    "threshold": lambda F, y: F.threshold(y, 0.1, 2.0, inplace=True),
    "hardtanh": lambda F, y: F.hardtanh(y, inplace=True),
    "relu6": lambda F, y: F.relu6(y, inplace=True),
}

PRODUCERS = {
    "conv_batchnorm": lambda lib: lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4)),
    "maxpool": lambda lib: lib.nn.MaxPool2d(2),
    "adaptive_maxpool": lambda lib: lib.nn.AdaptiveMaxPool2d(2),
    "layernorm": lambda lib: lib.nn.LayerNorm(5),
    "exp (saves its output)": lambda lib: lib.exp,
}


def _run(lib, producer, act, x, state):
    m = PRODUCERS[producer](lib)
    if isinstance(m, lib.nn.Module):
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    xt = lib.tensor(x, requires_grad=True)
    y = m(xt)
    ACTS[act](lib.nn.functional, y)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return type(e)
    return xt.grad.numpy()


@pytest.mark.parametrize("producer", list(PRODUCERS))
def test_inplace_activation_after_layer(producer):
    torch.manual_seed(0)
    ref = PRODUCERS[producer](torch)
    state = {k: v.detach().numpy() for k, v in ref.state_dict().items()} if isinstance(ref, torch.nn.Module) \
        else {}
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    for act in ACTS:
        t = _run(torch, producer, act, x, state)
        e = _run(ember, producer, act, x, state)
        if isinstance(t, type):
            assert e is t, f"{act} after {producer}: ember {e}, torch raised {t}"
        else:
            assert not isinstance(e, type), f"{act} after {producer}: ember raised {e}, torch trains"
            np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-5, err_msg=f"{act} after {producer}")


def test_dcgan_block_trains():
    """The reported model: Conv2d -> BatchNorm2d -> LeakyReLU(inplace=True), one training step."""
    m = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.BatchNorm2d(4),
                            ember.nn.LeakyReLU(0.2, inplace=True))
    m(ember.randn(2, 3, 6, 6)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
