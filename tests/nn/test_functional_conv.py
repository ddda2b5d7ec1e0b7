"""nn.functional convolutions against torch: values, gradients, gradcheck / gradgradcheck in float64,
meta shapes and torch's error messages."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F

from ._helpers import TF, assert_close, check_grads, compare, same_error, to_ember


# ------------------------------------------------------------------------------ conv
CONV_CASES = [  # (name, input shape, weight shape, kwargs)
    ("conv1d", (2, 4, 9), (6, 4, 3), {}),
    ("conv1d", (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    ("conv1d", (4, 9), (6, 4, 2), dict(padding="same")),
    ("conv2d", (2, 3, 7, 8), (5, 3, 3, 3), dict(padding=1)),
    ("conv2d", (2, 4, 7, 8), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ("conv2d", (2, 4, 6, 6), (4, 1, 3, 3), dict(padding=1, groups=4)),  # depthwise
    ("conv2d", (2, 3, 6, 7), (4, 3, 2, 4), dict(padding="same", dilation=(2, 1))),
    ("conv2d", (3, 6, 7), (4, 3, 3, 3), dict(padding="valid")),
    ("conv2d", (1, 2, 5, 5), (3, 2, 5, 5), {}),
    ("conv3d", (2, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    ("conv3d", (2, 4, 4, 4, 4), (4, 2, 3, 3, 3), dict(padding="same", groups=2)),
]


@pytest.mark.parametrize("name,xs,ws,kw", CONV_CASES)
def test_conv_forward_backward(name, xs, ws, kw):
    torch.manual_seed(0)
    x, w, b = torch.randn(xs), torch.randn(ws), torch.randn(ws[0])
    compare(name, [x, w, b], kw)
    compare(name, [x, w], kw, dtypes=(torch.float64,))


CONVT_CASES = [
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose1d", (4, 5), (4, 3, 2), {}),
    ("conv_transpose2d", (2, 4, 4, 5), (4, 3, 3, 2), dict(stride=(2, 3), padding=(1, 0), dilation=(1, 2),
                                                          output_padding=(1, 2), groups=2)),
    ("conv_transpose2d", (2, 3, 4, 4), (3, 2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose3d", (1, 2, 3, 3, 2), (2, 2, 2, 3, 2), dict(stride=2, padding=(0, 1, 0))),
]


@pytest.mark.parametrize("name,xs,ws,kw", CONVT_CASES)
def test_conv_transpose_forward_backward(name, xs, ws, kw):
    torch.manual_seed(1)
    g = kw.get("groups", 1)
    x, w, b = torch.randn(xs), torch.randn(ws), torch.randn(ws[1] * g)
    compare(name, [x, w, b], kw)


def test_conv_gradcheck_and_double_backward():
    torch.manual_seed(2)
    x, w, b = torch.randn(2, 4, 5, 4), torch.randn(4, 2, 2, 3), torch.randn(4)
    kw = dict(stride=(2, 1), padding=(1, 1), dilation=(1, 2), groups=2)
    check_grads(lambda x, w, b: F.conv2d(x, w, b, **kw), x, w, b)
    wt = torch.randn(4, 3, 3, 2)
    kwt = dict(stride=2, padding=1, output_padding=1, groups=2)
    check_grads(lambda x, w: F.conv_transpose2d(x, w, **kwt), x, wt)
    check_grads(lambda x, w: F.conv1d(x, w, padding="same"), torch.randn(2, 2, 5), torch.randn(3, 2, 4))
    check_grads(lambda x, w: F.conv3d(x, w, stride=2, padding=1), torch.randn(1, 2, 3, 4, 3),
                torch.randn(2, 2, 2, 2, 2))


def test_conv_double_backward_matches_torch():
    torch.manual_seed(3)
    x = torch.randn(2, 3, 5, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, 3, 3, 3, dtype=torch.float64, requires_grad=True)
    ex, ew = to_ember(x), to_ember(w)
    gx, gw = torch.autograd.grad(TF.conv2d(x, w, stride=2, padding=1).pow(2).sum(), (x, w),
                                 create_graph=True)
    egx, egw = ember.autograd.grad(F.conv2d(ex, ew, stride=2, padding=1).pow(2).sum(), (ex, ew),
                                   create_graph=True)
    assert_close(egx, gx, rtol=1e-10, atol=1e-10)
    assert_close(egw, gw, rtol=1e-10, atol=1e-10)
    t = torch.autograd.grad((gx.sum() + (gw * gw).sum()), (x, w))
    e = ember.autograd.grad((egx.sum() + (egw * egw).sum()), (ex, ew))
    for a, b in zip(e, t):
        assert_close(a, b, rtol=1e-9, atol=1e-9)


def test_conv_grad_fn_and_meta():
    x = ember.randn(2, 3, 8, 8, requires_grad=True)
    w = ember.randn(4, 3, 3, 3)
    assert F.conv2d(x, w).grad_fn.name() == "ConvolutionBackward0"
    m = F.conv2d(ember.empty(2, 3, 8, 8, device="meta"), ember.empty(4, 3, 3, 3, device="meta"),
                 stride=2, padding=1)
    assert tuple(m.shape) == (2, 4, 4, 4) and m.device.type == "meta"
    m = F.conv_transpose2d(ember.empty(2, 4, 4, 4, device="meta"), ember.empty(4, 3, 3, 3, device="meta"),
                           stride=2, padding=1, output_padding=1)
    assert tuple(m.shape) == (2, 3, 8, 8)


@pytest.mark.parametrize("name,args,kw", [
    ("conv2d", [(2, 4, 5, 5), (6, 3, 3, 3)], {}),
    ("conv2d", [(2, 3, 2, 2), (6, 3, 3, 3)], {}),
    ("conv2d", [(2, 3), (6, 3, 3, 3)], {}),
    ("conv2d", [(2, 4, 5, 5), (6, 2, 3, 3)], dict(groups=4)),
    ("conv2d", [(2, 4, 5, 5), (6, 2, 3, 3), (5,)], dict(groups=2)),
    ("conv2d", [(2, 4, 5, 5), (6, 4, 3, 3)], dict(stride=0)),
    ("conv2d", [(2, 4, 5, 5), (6, 4, 3, 3)], dict(padding=-1)),
    ("conv2d", [(2, 4, 5, 5), (6, 4, 3, 3)], dict(padding="same", stride=2)),
    ("conv2d", [(2, 4, 5, 5), (6, 4, 3, 3)], dict(padding="foo")),
    ("conv1d", [(1, 2, 3), (2, 2, 1, 1)], {}),
    ("conv_transpose2d", [(2, 4, 5, 5), (4, 3, 3, 3)], dict(stride=2, output_padding=2)),
    ("conv_transpose3d", [(1, 2, 3, 3, 3), (2, 2, 3, 3, 3)], dict(stride=2, output_padding=2)),
    ("conv_transpose2d", [(2, 5, 3, 3), (4, 3, 3, 3)], {}),
])
def test_conv_errors(name, args, kw):
    same_error(name, [torch.randn(s) for s in args], kw)


def test_conv_dtype_errors():
    same_error("conv2d", [torch.randn(1, 2, 3, 3), torch.randn(2, 2, 1, 1).double()])
    same_error("conv2d", [torch.randn(1, 2, 3, 3), torch.randn(2, 2, 1, 1), torch.randn(2).double()])


def test_conv_output_is_float_exactly_like_torch_on_integers_in_float():
    # small integer values: every sum is exact, so results must be bit-identical
    x = torch.randint(-3, 4, (2, 3, 6, 6)).float()
    w = torch.randint(-2, 3, (4, 3, 3, 3)).float()
    out = F.conv2d(to_ember(x), to_ember(w), padding=1, stride=2)
    assert np.array_equal(out.numpy(), TF.conv2d(x, w, padding=1, stride=2).numpy())
