"""interpolate / upsample, grid_sample and affine_grid against torch."""
import pytest
import torch

import ember
import ember.nn.functional as F

from ._helpers import assert_close, check_grads, compare, same_error, to_ember

INTERP = [  # (shape, kwargs)
    ((2, 3, 5), dict(size=9, mode="nearest")), ((2, 3, 5), dict(scale_factor=2)),
    ((2, 3, 5), dict(scale_factor=1.7, mode="nearest")), ((2, 3, 9), dict(size=4)),
    ((2, 3, 5, 6), dict(size=(7, 3), mode="nearest-exact")), ((2, 3, 5), dict(scale_factor=0.6, mode="nearest-exact")),
    ((2, 3, 5), dict(size=8, mode="linear")), ((2, 3, 5), dict(size=8, mode="linear", align_corners=True)),
    ((2, 3, 8), dict(scale_factor=0.5, mode="linear")), ((2, 3, 5, 6), dict(size=(8, 4), mode="bilinear")),
    ((2, 3, 5, 6), dict(scale_factor=(1.5, 2.3), mode="bilinear", align_corners=True)),
    ((2, 3, 5, 6), dict(scale_factor=2.3, mode="bilinear", recompute_scale_factor=True)),
    ((2, 3, 5, 6), dict(scale_factor=2.3, mode="bilinear")), ((1, 2, 5, 6), dict(size=(9, 4), mode="bicubic")),
    ((1, 2, 5, 6), dict(size=(9, 11), mode="bicubic", align_corners=True)),
    ((1, 2, 3, 4, 5), dict(size=(5, 3, 7), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(scale_factor=2, mode="trilinear", align_corners=True)),
    ((1, 2, 3, 4, 5), dict(scale_factor=(2, 1, 0.5), mode="nearest")),
    ((2, 3, 7, 9), dict(size=(3, 4), mode="area")), ((2, 3, 10), dict(scale_factor=0.5, mode="area")),
    ((1, 2, 6, 6, 6), dict(size=4, mode="area")), ((2, 3, 1, 1), dict(size=(3, 3), mode="bilinear")),
]


@pytest.mark.parametrize("shape,kw", INTERP)
def test_interpolate(shape, kw):
    torch.manual_seed(0)
    compare("interpolate", [torch.randn(shape)], kw)


def test_interpolate_gradcheck():
    torch.manual_seed(1)
    check_grads(lambda x: F.interpolate(x, size=(4, 7), mode="bilinear"), torch.randn(1, 2, 3, 4))
    check_grads(lambda x: F.interpolate(x, size=(4, 5), mode="bicubic", align_corners=True),
                torch.randn(1, 1, 3, 3))
    check_grads(lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), torch.randn(1, 2, 3))
    check_grads(lambda x: F.interpolate(x, size=(2, 3, 4), mode="trilinear"), torch.randn(1, 1, 2, 2, 3))


def test_upsample_aliases():
    torch.manual_seed(2)
    x = torch.randn(1, 2, 3, 4)
    assert_close(F.upsample_bilinear(to_ember(x), scale_factor=2),
                 torch.nn.functional.upsample_bilinear(x, scale_factor=2))
    assert_close(F.upsample_nearest(to_ember(x), size=(5, 5)),
                 torch.nn.functional.upsample_nearest(x, size=(5, 5)))
    assert_close(F.upsample(to_ember(x), scale_factor=3), torch.nn.functional.upsample(x, scale_factor=3))


@pytest.mark.parametrize("shape,kw", [
    ((1, 2, 3), dict(size=4, mode="bilinear")), ((1, 2, 3), dict(size=4, scale_factor=2)),
    ((1, 2, 3), dict(size=4, mode="nearest", align_corners=True)), ((1, 2, 3), dict(size=4, mode="foo")),
    ((1, 2, 3), dict(size=(2, 3))), ((1, 2, 3), dict(scale_factor=(2, 3))), ((1, 2, 3), {}),
    ((1, 2, 3, 3), dict(size=4, mode="linear")), ((1, 2, 3, 3), dict(size=4, mode="trilinear")),
    ((1, 2, 3, 3), dict(size=4, mode="bicubic", recompute_scale_factor=True)),
])
def test_interpolate_errors(shape, kw):
    same_error("interpolate", [torch.randn(shape)], kw)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_2d(mode, padding_mode, align_corners):
    torch.manual_seed(3)
    x = torch.randn(2, 3, 5, 6)
    grid = torch.rand(2, 4, 7, 2) * 2.6 - 1.3  # some points outside [-1, 1]
    compare("grid_sample", [x, grid], dict(mode=mode, padding_mode=padding_mode,
                                           align_corners=align_corners))


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_3d(padding_mode):
    torch.manual_seed(4)
    x = torch.randn(1, 2, 3, 4, 5)
    grid = torch.rand(1, 2, 3, 4, 3) * 2.4 - 1.2
    compare("grid_sample", [x, grid], dict(padding_mode=padding_mode, align_corners=False))


def test_grid_sample_gradcheck_and_errors():
    torch.manual_seed(5)
    grid = torch.rand(1, 3, 2, 2) * 2.2 - 1.1
    for pm in ("zeros", "border", "reflection"):
        check_grads(lambda x, g: F.grid_sample(x, g, padding_mode=pm, align_corners=False),
                    torch.randn(1, 2, 3, 4), grid, gradgrad=False)
    same_error("grid_sample", [torch.randn(1, 4, 3, 2), torch.randn(1, 2, 2, 2)], dict(mode="foo"))
    same_error("grid_sample", [torch.randn(1, 4, 3, 2), torch.randn(1, 2, 2, 2)], dict(padding_mode="foo"))
    same_error("grid_sample", [torch.randn(1, 4, 3, 2), torch.randn(1, 2, 2, 3)], dict(align_corners=False))


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid(align_corners):
    torch.manual_seed(6)
    compare("affine_grid", [torch.randn(2, 2, 3), (2, 3, 4, 5)], dict(align_corners=align_corners))
    compare("affine_grid", [torch.randn(2, 3, 4), (2, 3, 2, 4, 5)], dict(align_corners=align_corners))
    compare("affine_grid", [torch.randn(1, 2, 3), (1, 1, 1, 3)], dict(align_corners=align_corners))
    same_error("affine_grid", [torch.randn(1, 2, 2), (1, 1, 2, 2)], dict(align_corners=False))


def test_affine_grid_then_grid_sample_identity():
    x = ember.randn(1, 2, 4, 5)
    theta = ember.tensor([[[1., 0., 0.], [0., 1., 0.]]])
    out = F.grid_sample(x, F.affine_grid(theta, (1, 2, 4, 5), align_corners=False), align_corners=False)
    assert_close(out, torch.from_numpy(x.numpy()), rtol=1e-5, atol=1e-6)
