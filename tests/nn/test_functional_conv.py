"""nn.functional convolutions, unfold/fold, pad and shuffles against torch: values, gradients,
gradcheck / gradgradcheck in float64, meta shapes and torch's error messages."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

from ._helpers import assert_close, to_ember

TF = torch.nn.functional


def compare(name, args, kwargs=None, dtypes=(torch.float32, torch.float64), grad=True, rtol=None,
            atol=None, outputs=None):
    """Run ``F.<name>`` in ember and torch on the same inputs (Tensors in ``args``); compare the
    outputs, then the gradients of every floating input for a random output gradient."""
    kwargs = kwargs or {}
    for dt in dtypes:
        targs = [a.to(dt).detach().requires_grad_(grad) if isinstance(a, torch.Tensor) and
                 a.is_floating_point() else a for a in args]
        eargs = [to_ember(a) if isinstance(a, torch.Tensor) else a for a in targs]
        tout = getattr(TF, name)(*targs, **kwargs)
        eout = getattr(F, name)(*eargs, **kwargs)
        touts = tout if isinstance(tout, tuple) else (tout,)
        eouts = eout if isinstance(eout, tuple) else (eout,)
        r = rtol if rtol is not None else (1e-4 if dt == torch.float32 else 1e-10)
        a = atol if atol is not None else (1e-5 if dt == torch.float32 else 1e-10)
        for e, t in zip(eouts, touts):
            assert_close(e, t, rtol=r, atol=a)
        if not grad:
            continue
        g = torch.randn_like(touts[0])
        torch.autograd.backward(touts[0], g)
        ember.autograd.backward(eouts[0], to_ember(g))
        for ea, ta in zip(eargs, targs):
            if isinstance(ta, torch.Tensor) and ta.requires_grad:
                assert_close(ea.grad, ta.grad, rtol=r, atol=a)


def check_grads(fn, *inputs, gradgrad=True):
    """gradcheck (and gradgradcheck) of ``fn`` on float64 ember copies of torch ``inputs``."""
    eins = [to_ember(t.double(), requires_grad=True) if t.is_floating_point() else to_ember(t)
            for t in inputs]
    assert gradcheck(fn, eins)
    if gradgrad:
        assert gradgradcheck(fn, eins)


def torch_error(fn, *args, **kw):
    with pytest.raises(Exception) as info:
        fn(*args, **kw)
    return type(info.value), str(info.value)


def same_error(name, targs, kwargs=None):
    """ember raises torch's exception type and message for ``F.<name>``."""
    kwargs = kwargs or {}
    typ, msg = torch_error(getattr(TF, name), *targs, **kwargs)
    eargs = [to_ember(a) if isinstance(a, torch.Tensor) else a for a in targs]
    with pytest.raises(typ) as info:
        getattr(F, name)(*eargs, **kwargs)
    assert str(info.value) == msg


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


# ------------------------------------------------------------------------------ unfold / fold
def test_unfold_fold():
    torch.manual_seed(4)
    x = torch.randn(2, 3, 6, 7)
    kw = dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(1, 2))
    compare("unfold", [x], kw)
    compare("unfold", [torch.randn(3, 5, 5)], dict(kernel_size=2))
    cols = TF.unfold(x, **kw)
    compare("fold", [torch.randn(cols.shape)], dict(output_size=(6, 7), **kw))
    compare("fold", [torch.randn(12, 9)], dict(output_size=4, kernel_size=2))
    check_grads(lambda x: F.unfold(x, **kw), x[:1, :2])
    check_grads(lambda c: F.fold(c, (6, 7), **kw), cols[:1])
    assert F.unfold(to_ember(x, True), 2).grad_fn.name() == "Im2ColBackward0"


def test_unfold_fold_errors():
    same_error("unfold", [torch.randn(1, 2, 3, 3), 4])
    same_error("fold", [torch.randn(3, 3, 3, 3), 2, 2])
    with pytest.raises(NotImplementedError, match=r"Only 3D or 4D input Tensors are supported \(got 2D\)"):
        F.unfold(ember.randn(3, 3), 2)


# ------------------------------------------------------------------------------ pad
@pytest.mark.parametrize("shape,p,mode", [
    ((1, 2, 5), (2, 3), "reflect"), ((2, 5), (1, 0), "reflect"), ((1, 2, 4, 5), (1, 2, 3, 0), "reflect"),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2), "reflect"), ((1, 2, 5), (2, 3), "replicate"),
    ((1, 2, 4, 5), (3, 2, 0, 4), "replicate"), ((2, 3, 3, 3), (1, 2, 2, 1, 0, 3), "replicate"),
    ((1, 2, 5), (2, 3), "circular"), ((1, 2, 4, 5), (5, 1, 2, 4), "circular"),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2), "circular"), ((1, 2, 5), (-1, 2), "circular"),
    ((1, 2, 5), (-1, 2), "reflect"), ((2, 3, 4), (1, 2, 0, 3, 1, 1), "constant"),
    ((2, 3, 4), (-1, 2, 3, -2), "constant"), ((3, 4), (-1, -1), "constant"),
])
def test_pad_modes(shape, p, mode):
    torch.manual_seed(5)
    compare("pad", [torch.randn(shape), p], dict(mode=mode))


def test_pad_value_and_grads():
    torch.manual_seed(6)
    compare("pad", [torch.randn(2, 3), (1, 2)], dict(value=2.5))
    check_grads(lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), torch.randn(1, 2, 3, 4))
    check_grads(lambda x: F.pad(x, (2, 1), mode="circular"), torch.randn(1, 2, 3))
    check_grads(lambda x: F.pad(x, (-1, 2), value=1.0), torch.randn(2, 3))


@pytest.mark.parametrize("shape,p,kw", [
    ((1, 2, 3), (1,), {}), ((3,), (1, 1, 1, 1), {}), ((1, 2, 3), (1, 1), dict(mode="reflect", value=1.)),
    ((1, 2, 3), (1, 1), dict(mode="foo")), ((1, 2, 3), (3, 3), dict(mode="reflect")),
    ((1, 2, 3), (1, 1, 1, 1, 1, 1), dict(mode="reflect")), ((1, 2, 3), (4, 1), dict(mode="circular")),
    ((1, 2, 4, 4), (1, 1), dict(mode="replicate")), ((1, 2, 3), (-4, 2), {}),
])
def test_pad_errors(shape, p, kw):
    same_error("pad", [torch.randn(shape), p], kw)


# ------------------------------------------------------------------------------ shuffles
def test_pixel_and_channel_shuffle():
    torch.manual_seed(7)
    compare("pixel_shuffle", [torch.randn(2, 8, 3, 4), 2])
    compare("pixel_shuffle", [torch.randn(2, 3, 9, 2, 2), 3])
    compare("pixel_unshuffle", [torch.randn(2, 2, 4, 6), 2])
    compare("channel_shuffle", [torch.randn(2, 6, 3, 2), 3])
    x = torch.randn(1, 8, 2, 2)
    assert torch.equal(torch.from_numpy(F.pixel_unshuffle(F.pixel_shuffle(to_ember(x), 2), 2).numpy()), x)
    same_error("pixel_shuffle", [torch.randn(1, 3, 2, 2), 2])
    same_error("pixel_shuffle", [torch.randn(3, 2), 2])
    same_error("pixel_unshuffle", [torch.randn(1, 3, 3, 2), 2])
    same_error("channel_shuffle", [torch.randn(1, 3, 3, 2), 2])


def test_conv_output_is_float_exactly_like_torch_on_integers_in_float():
    # small integer values: every sum is exact, so results must be bit-identical
    x = torch.randint(-3, 4, (2, 3, 6, 6)).float()
    w = torch.randint(-2, 3, (4, 3, 3, 3)).float()
    out = F.conv2d(to_ember(x), to_ember(w), padding=1, stride=2)
    assert np.array_equal(out.numpy(), TF.conv2d(x, w, padding=1, stride=2).numpy())
