"""Pooling, upsampling, pixel-shuffle and fold modules against torch: outputs, grads, repr."""
import pytest
import torch

from ember import nn

from ._helpers import assert_close, to_ember

CASES = [  # (class name, args, kwargs, input shape)
    ("MaxPool1d", (3,), dict(stride=2, padding=1), (2, 3, 9)),
    ("MaxPool2d", (2,), {}, (2, 3, 8, 8)),
    ("MaxPool2d", ((3, 2),), dict(stride=1, padding=1, dilation=(1, 2), ceil_mode=True), (2, 3, 7, 8)),
    ("MaxPool3d", (2,), dict(ceil_mode=True), (1, 2, 5, 5, 5)),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 9)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 7, 8)),
    ("AvgPool2d", (2,), dict(divisor_override=3), (2, 3, 6, 6)),
    ("AvgPool3d", (2,), {}, (1, 2, 4, 4, 4)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveAvgPool2d", ((3, None),), {}, (2, 3, 7, 8)),
    ("AdaptiveAvgPool3d", (2,), {}, (1, 2, 5, 4, 3)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveMaxPool2d", ((3, 5),), {}, (2, 3, 7, 8)),
    ("AdaptiveMaxPool3d", (2,), {}, (1, 2, 5, 4, 3)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 9)),
    ("LPPool2d", (3, 2), {}, (2, 3, 6, 6)),
    ("Upsample", (), dict(scale_factor=2, mode="nearest"), (2, 3, 4, 5)),
    ("Upsample", (), dict(size=(7, 9), mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    ("Upsample", (), dict(scale_factor=1.5, mode="bicubic"), (1, 2, 4, 5)),
    ("UpsamplingNearest2d", (), dict(scale_factor=2), (1, 2, 3, 3)),
    ("UpsamplingBilinear2d", (), dict(size=(5, 4)), (1, 2, 3, 3)),
    ("PixelShuffle", (2,), {}, (2, 8, 3, 4)),
    ("PixelUnshuffle", (2,), {}, (2, 2, 4, 6)),
    ("Unfold", (2,), dict(padding=1, stride=2), (2, 3, 5, 6)),
    ("Fold", ((4, 5), 2), {}, (2, 12, 12)),
]


@pytest.mark.parametrize("cls,args,kw,shape", CASES)
def test_module_matches_torch(cls, args, kw, shape):
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(*args, **kw)
    em = getattr(nn, cls)(*args, **kw)
    assert repr(em) == repr(tm)
    x = (torch.rand(shape) + 0.1) if cls.startswith("LP") else torch.randn(shape)
    x.requires_grad_()
    ex = to_ember(x)
    out, eout = tm(x), em(ex)
    assert_close(eout, out, rtol=1e-4, atol=1e-5)
    g = torch.randn_like(out)
    out.backward(g)
    eout.backward(to_ember(g))
    assert_close(ex.grad, x.grad, rtol=1e-4, atol=1e-5)


def test_max_pool_return_indices_and_unpool():
    torch.manual_seed(1)
    x = torch.randn(2, 3, 6, 8)
    tp, ep = torch.nn.MaxPool2d(2, return_indices=True), nn.MaxPool2d(2, return_indices=True)
    (to, ti), (eo, ei) = tp(x), ep(to_ember(x))
    assert_close(eo, to)
    assert_close(ei, ti)
    tu, eu = torch.nn.MaxUnpool2d(2), nn.MaxUnpool2d(2)
    assert repr(eu) == repr(tu)
    assert_close(eu(eo, ei), tu(to, ti))
    assert_close(eu(eo, ei, output_size=(7, 9)), tu(to, ti, output_size=(7, 9)))
    am_t, am_e = torch.nn.AdaptiveMaxPool2d(3, return_indices=True), nn.AdaptiveMaxPool2d(3, return_indices=True)
    for a, b in zip(am_e(to_ember(x)), am_t(x)):
        assert_close(a, b)
