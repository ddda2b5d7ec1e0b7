"""nn.functional unfold/fold, pad and pixel/channel shuffles against torch: values, gradients,
gradcheck / gradgradcheck in float64 and torch's error messages."""
import pytest
import torch

import ember
import ember.nn.functional as F

from ._helpers import TF, check_grads, compare, same_error, to_ember


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
