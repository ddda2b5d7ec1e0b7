"""Conv modules against torch with copied weights: outputs, gradients, init bounds, repr, errors."""
import math

import numpy as np
import pytest
import torch

import ember
from ember import nn

from ._helpers import assert_close, copy_module_params, to_ember

CASES = [  # (class name, args, kwargs, input shape)
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1), (2, 4, 9)),
    ("Conv1d", (4, 6, 4), dict(padding="same", padding_mode="circular"), (2, 4, 9)),
    ("Conv2d", (3, 8, 3), dict(padding=1), (2, 3, 8, 8)),
    ("Conv2d", (4, 8, (3, 2)), dict(padding=(2, 1), padding_mode="reflect", groups=2, bias=False), (2, 4, 7, 6)),
    ("Conv2d", (4, 4, 3), dict(padding="same", padding_mode="replicate", groups=4, dilation=2), (4, 7, 6)),
    ("Conv3d", (2, 4, 3), dict(stride=(1, 2, 2), padding=1), (1, 2, 4, 6, 5)),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 5)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, groups=2, dilation=2), (2, 4, 4, 5)),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=2, bias=False), (1, 2, 2, 3, 2)),
]


@pytest.mark.parametrize("cls,args,kw,shape", CASES)
def test_conv_module_matches_torch(cls, args, kw, shape):
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(*args, **kw)
    em = getattr(nn, cls)(*args, **kw)
    assert repr(em) == repr(tm)
    assert [tuple(p.shape) for p in em.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    copy_module_params(em, tm)
    x = torch.randn(shape, requires_grad=True)
    ex = to_ember(x)
    out, eout = tm(x), em(ex)
    assert_close(eout, out, rtol=1e-4, atol=1e-5)
    g = torch.randn_like(out)
    out.backward(g)
    eout.backward(to_ember(g))
    assert_close(ex.grad, x.grad, rtol=1e-4, atol=1e-5)
    for (n, ep), tp in zip(em.named_parameters(), tm.parameters()):
        assert_close(ep.grad, tp.grad, rtol=1e-4, atol=1e-4)


def test_default_init_bounds():
    m = nn.Conv2d(6, 8, 3, groups=2)
    bound = 1 / math.sqrt(3 * 9)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.7 * bound
    assert np.abs(b).max() <= bound
    t = nn.ConvTranspose2d(4, 6, 3)
    assert tuple(t.weight.shape) == (4, 6, 3, 3)
    assert np.abs(t.weight.detach().numpy()).max() <= 1 / math.sqrt(6 * 9)


def test_conv_transpose_output_size():
    torch.manual_seed(1)
    tm = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    em = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    copy_module_params(em, tm)
    x = torch.randn(1, 3, 4, 4)
    assert_close(em(to_ember(x), output_size=[8, 8]), tm(x, output_size=[8, 8]), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="requested an output size of"):
        em(to_ember(x), output_size=[10, 10])


@pytest.mark.parametrize("args,kw,msg", [
    ((4, 6, 3), dict(groups=0), "groups must be a positive integer"),
    ((4, 6, 3), dict(groups=3), "in_channels must be divisible by groups"),
    ((4, 6, 3), dict(groups=4), "out_channels must be divisible by groups"),
    ((4, 6, 3), dict(padding="foo"), "Invalid padding string 'foo'"),
    ((4, 6, 3), dict(padding="same", stride=2), "padding='same' is not supported for strided"),
    ((4, 6, 3), dict(padding_mode="bar"), "padding_mode must be one of"),
])
def test_conv_module_errors(args, kw, msg):
    with pytest.raises(ValueError) as t:
        torch.nn.Conv2d(*args, **kw)
    assert msg in str(t.value)
    with pytest.raises(ValueError) as e:
        nn.Conv2d(*args, **kw)
    if "must be one of" not in msg:  # set order in the message is not stable
        assert str(e.value) == str(t.value)
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")


def test_conv_module_state_dict_roundtrip():
    m = nn.Conv2d(2, 3, 3)
    m2 = nn.Conv2d(2, 3, 3)
    m2.load_state_dict(m.state_dict())
    x = ember.randn(1, 2, 5, 5)
    assert np.array_equal(m(x).detach().numpy(), m2(x).detach().numpy())


def test_lazy_convs_materialise_like_torch():
    import numpy as np
    import torch

    import ember
    cases = [("LazyConv1d", (4, 3), (2, 3, 7)), ("LazyConv2d", (4, 3), (1, 2, 5, 5)),
             ("LazyConv3d", (2, 2), (1, 2, 3, 3, 3)), ("LazyConvTranspose2d", (6, 3), (1, 4, 3, 3))]
    for name, args, shape in cases:
        e, t = getattr(ember.nn, name)(*args), getattr(torch.nn, name)(*args)
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        t(torch.tensor(x))
        e(ember.tensor(x))
        assert type(e).__name__ == type(t).__name__ and repr(e) == repr(t)
        assert tuple(e.weight.shape) == tuple(t.weight.shape)
        e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
        np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(),
                                   t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
