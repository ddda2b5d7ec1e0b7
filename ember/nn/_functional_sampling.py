"""Resampling in ``nn.functional``: interpolate / upsample, grid_sample, affine_grid (layer L4).

Interpolation applies index and weight tables from ``_primitives.sampling`` along one spatial dim at a time
(separable, so bilinear/bicubic/trilinear are 1-d passes of the ``resample_dim`` primitive), and
grid_sample gathers the corners of each sample point with ``gather`` and weights differentiable in
the grid. Autograd (and double backward) comes from the Tensor ops used.

Example:
    >>> import ember
    >>> interpolate(ember.tensor([[[1., 2.]]]), scale_factor=2, mode='linear').tolist()
    [[[1.0, 1.25, 1.75, 2.0]]]
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import _dtype as D
from .._creation import from_numpy
from .._errors import dtype_title
from .._tensor_methods.pointwise import where
from ..overrides import public
from .._primitives.sampling import aa_taps, cubic_taps, linear_taps, nearest_taps, resample_dim
from ._functional_pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample",
           "affine_grid"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _per_spatial_dim(value, dim: int, cast, mismatch_message) -> list:
    """``value`` (a number, or a list/tuple of ``dim`` numbers) as a list of ``dim`` ``cast`` values;
    a sequence of another length raises ``ValueError(mismatch_message())``."""
    if isinstance(value, (list, tuple)):
        if len(value) != dim:
            raise ValueError(mismatch_message())
        return [cast(v) for v in value]
    return [cast(value)] * dim


def _check_integer_input(input, mode: str):
    """torch interpolates integer tensors only for uint8 in nearest(-exact)/bilinear/bicubic modes;
    the others raise NotImplementedError naming the CPU kernel (as torch's messages do)."""
    if input.dtype is D.uint8 and mode in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        return
    if mode == "area":
        kernel = "adaptive_avg_pool3d_cpu" if input.dim() == 5 else "adaptive_avg_pool2d"
    elif mode in ("nearest", "nearest-exact"):
        kernel = "upsample_nearest2d_channels_last" if input.dim() == 4 else "compute_indices_weights_nearest"
    elif mode == "bilinear":
        kernel = "upsample_bilinear2d_channels_last"
    else:
        kernel = "compute_indices_weights_" + ("cubic" if mode == "bicubic" else "linear")
    raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype_title(input.dtype)}\'')


@public
def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False):
    """Resize the spatial dims of ``(N, C, *S)`` to ``size`` or ``S * scale_factor``.

    Modes: nearest, nearest-exact, linear (3-D), bilinear/bicubic (4-D), trilinear (5-D), area.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        output_size = _per_spatial_dim(size, dim, int, lambda: (
            f"Input and output must have the same number of spatial dimensions, "
            f"but got input with spatial dimensions of {list(input.shape[2:])} "
            f"and output size of {size}. Please provide input tensor in (N, C, "
            f"d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."))
        scales = None
    elif scale_factor is not None:
        scales = _per_spatial_dim(scale_factor, dim, float, lambda: (
            f"Input and scale_factor must have the same number of spatial "
            f"dimensions, but got input with spatial dimensions of "
            f"{list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
            f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            f"scale_factor in (s1, s2, ...,sK) format."))
        output_size = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(float(input.shape[i + 2]) * scales[i]) for i in range(dim)]
        scales = None
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.dim() == 4):
            raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and "
                             "requires a 4-D tensor as input")
    if input.dim() not in (3, 4, 5) or mode not in ("nearest", "nearest-exact", "area", *_NEEDS):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: {_MODES} (got {mode})")
    if mode in _NEEDS and input.dim() != _NEEDS[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_NEEDS[mode]}D "
                                  f"input")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        _check_integer_input(input, mode)
    if output_size is None:
        output_size = [int(input.shape[i + 2] * scales[i]) for i in range(dim)]
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](
            input, tuple(output_size))
    if any(o <= 0 for o in output_size) or any(s <= 0 for s in input.shape[2:]):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(str(s) for s in input.shape[2:])}) and output "
                           f"({', '.join(str(s) for s in output_size)})")
    dt = np.float64 if input.dtype.name == "float64" else np.float32
    x = input
    weighted = mode not in ("nearest", "nearest-exact")
    order = range(dim)
    if weighted and input.dtype is D.uint8:
        # torch's uint8 kernel: float64 weights in fixed point, last dim first, each pass rounded
        # to uint8; a dim whose size does not change is not resampled
        dt, order = np.float64, [i for i in reversed(range(dim)) if input.shape[2 + i] != output_size[i]]
    for i in order:
        n_in, n_out = input.shape[2 + i], output_size[i]
        sc = scales[i] if scales is not None else None
        if mode in ("nearest", "nearest-exact"):
            idx = nearest_taps(n_in, n_out, sc, mode == "nearest-exact")
            if not (n_in == n_out and np.array_equal(idx, np.arange(n_in))):
                x = resample_dim(x, dim=2 + i, idx=idx[:, None])
        elif antialias:
            idx, w = aa_taps(n_in, n_out, sc, align_corners, dt, mode == "bicubic")
            x = resample_dim(x, dim=2 + i, idx=idx, weight=w)
        elif mode == "bicubic":
            idx, w = cubic_taps(n_in, n_out, sc, align_corners, dt)
            x = resample_dim(x, dim=2 + i, idx=idx, weight=w)
        else:
            idx, w = linear_taps(n_in, n_out, sc, align_corners, dt)
            x = resample_dim(x, dim=2 + i, idx=idx, weight=w)
    return x if x is not input else input.clone()


@public
def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):
    """Deprecated alias of ``interpolate``."""
    return interpolate(input, size, scale_factor, mode, align_corners)


@public
def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate(..., mode='nearest')``."""
    return interpolate(input, size, scale_factor, mode="nearest")


@public
def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate(..., mode='bilinear', align_corners=True)``."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ------------------------------------------------------------------------------ grid_sample
def _unnormalize(c, size, align_corners):
    if align_corners:
        return (c + 1) / 2 * (size - 1)
    return ((c + 1) * size - 1) / 2


def _reflect(c, twice_low, twice_high):
    if twice_low == twice_high:
        return c * 0
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = (c - mn).abs()
    extra = c.fmod(span)
    flips = (c.detach() / span).floor()
    return where(flips.remainder(2) == 0, extra + mn, -extra + (span + mn))


def _source_coords(c, size, padding_mode, align_corners):
    c = _unnormalize(c, size, align_corners)
    if padding_mode == "border":
        c = c.clamp(0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = c.clamp(0, size - 1)
    return c


def _cubic_weights(t, a=-0.75):
    """The 4 cubic-convolution weights (torch's A = -0.75) of taps at -1, 0, 1, 2 for offset ``t``."""
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    u = 1 - t
    return far(t + 1), near(t), near(u), far(u + 1)


def _bound_tap(c, size, padding_mode, align_corners):
    """An integer tap coordinate moved inside by the padding mode (zeros: left for ``sample`` to
    zero)."""
    if padding_mode == "border":
        return c.clamp(0, size - 1)
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        return c.clamp(0, size - 1)
    return c


@public
def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) at ``grid`` (N, H_out, W_out, 2) points in [-1, 1] (x, y order);
    5-D inputs take (N, D_out, H_out, W_out, 3) grids."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                         f"'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', "
                         f"or 'reflection', but got: '{padding_mode}'")
    align_corners = bool(align_corners)
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid with "
                           f"sizes {list(grid.shape)}")
    nd = input.dim() - 2
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, but "
                           f"got grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])
    out_sp = tuple(grid.shape[1:-1])
    # spatial dim i (D, H, W order) reads grid component nd - 1 - i (x is the width)
    if mode == "bicubic":  # the 4x4 taps are bounded one by one, so the padding applies per tap
        coords = [_unnormalize(grid[..., nd - 1 - i], sizes[i], align_corners) for i in range(nd)]
    else:
        coords = [_source_coords(grid[..., nd - 1 - i], sizes[i], padding_mode, align_corners)
                  for i in range(nd)]
    npix = math.prod(out_sp)  # explicit sizes: -1 cannot be inferred for an empty batch
    flat_in = input.reshape(n, c, math.prod(sizes))

    def sample(corner_idx, weight):
        """Gather the input at integer ``corner_idx`` (per dim), zero outside, times ``weight``."""
        inside = None
        flat = None
        inner = 1
        for i in range(nd - 1, -1, -1):
            ix = corner_idx[i]
            ok = (ix >= 0) & (ix <= sizes[i] - 1)
            inside = ok if inside is None else inside & ok
            term = ix.clamp(0, sizes[i] - 1).long() * inner
            flat = term if flat is None else flat + term
            inner *= sizes[i]
        vals = flat_in.gather(2, flat.reshape(n, 1, npix).expand(n, c, npix))
        w = where(inside, weight, 0)
        return vals * w.reshape(n, 1, npix)

    if mode == "bicubic":
        lows = [co.detach().floor() for co in coords]
        taps = [_cubic_weights(co - lo) for co, lo in zip(coords, lows)]
        out = None
        for a in range(4):
            iy = _bound_tap(lows[0] + (a - 1), sizes[0], padding_mode, align_corners)
            for b in range(4):
                ix = _bound_tap(lows[1] + (b - 1), sizes[1], padding_mode, align_corners)
                term = sample([iy, ix], taps[0][a] * taps[1][b])
                out = term if out is None else out + term
    elif mode == "nearest":
        # the grid gets a zero gradient (not none), as torch's grid_sampler backward gives
        one = 1 + sum((co - co.detach()) for co in coords) * 0
        out = sample([co.detach().round() for co in coords], one)
    else:
        lows = [co.detach().floor() for co in coords]
        fracs = [co - lo for co, lo in zip(coords, lows)]
        out = None
        for bits in itertools.product((0, 1), repeat=nd):
            w = None
            for i, b in enumerate(bits):
                wi = fracs[i] if b else 1 - fracs[i]
                w = wi if w is None else w * wi
            term = sample([lo + b for lo, b in zip(lows, bits)], w)
            out = term if out is None else out + term
    return out.reshape((n, c) + out_sp)


def _base(steps, align_corners, dt):
    if steps <= 1:
        return np.zeros(max(steps, 1), dt)
    r = np.linspace(-1, 1, steps, dtype=dt)
    return r if align_corners else r * dt((steps - 1) / steps)


@public
def affine_grid(theta, size, align_corners=None):
    """Sampling grid for ``grid_sample`` from affine matrices: theta (N, 2, 3) and size (N, C, H, W)
    give (N, H, W, 2); theta (N, 3, 4) and a 5-D size give (N, D, H, W, 3)."""
    align_corners = bool(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine "
                                  f"transforms, respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise ValueError(f"Expected theta to have batch size {size[0]}, but got {theta.shape[0]}")
    dt = np.float64 if theta.dtype.name == "float64" else np.float32
    sp = size[2:]
    axes = [_base(s, align_corners, dt) for s in sp]
    mesh = np.meshgrid(*axes, indexing="ij")  # D, H, W order
    base = np.stack(list(mesh)[::-1] + [np.ones(sp, dt)], -1)  # (*sp, nd + 1) as (x, y[, z], 1)
    nd = len(sp)
    base = from_numpy(np.ascontiguousarray(base.reshape(1, -1, nd + 1))).to(theta.dtype)
    grid = base.matmul(theta.transpose(1, 2))  # shape: (N, prod(sp), nd)
    return grid.reshape((size[0],) + tuple(sp) + (nd,))
