"""Padding, unfold/fold and pixel/channel shuffles of ``nn.functional`` (layer L4).

``pad`` gathers with ``_primitives.sampling.pad_indices`` (reflect, replicate, circular) or writes into
a filled tensor (constant); ``unfold``/``fold`` call the im2col/col2im primitives; the shuffles are
reshapes and permutes.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pixel_shuffle(ember.arange(4.).reshape(1, 4, 1, 1), 2).tolist()
    [[[[0.0, 1.0], [2.0, 3.0]]]]
"""
from __future__ import annotations

from .._creation import from_numpy
from ..overrides import public
from .._primitives import conv as _C
from .._primitives.sampling import pad_indices

__all__ = ["pad", "unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]


def _tup(v, n):
    """An int or a sequence of ints as an ``n``-tuple (a 1-element sequence is repeated)."""
    if isinstance(v, (list, tuple)):
        v = tuple(int(x) for x in v)
        return v * n if len(v) == 1 and n > 1 else v
    return (int(v),) * n


# ------------------------------------------------------------------------------ pad
_PAD_COMBOS = ("Supported combinations for non-constant padding:\n"
               "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
               "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
               "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


@public
def pad(input, pad, mode: str = "constant", value=None):
    """Pad the last ``len(pad) // 2`` dims; ``pad`` is (left, right) from the last dim backwards.

    Modes: ``'constant'`` (negative amounts crop), ``'reflect'``, ``'replicate'``, ``'circular'``.

    Example:
        >>> import ember
        >>> pad(ember.tensor([[1., 2., 3.]]), (2, 1), mode='reflect').tolist()
        [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """
    pad = [int(v) for v in pad]
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode == "constant":
        return _constant_pad(input, pad, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    npd = len(pad) // 2
    if npd not in (1, 2, 3) or input.dim() not in (npd + 1, npd + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.dim()}D input "
                                  f"tensor.\n{_PAD_COMBOS}")
    out = input
    for i in range(npd):
        d = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        size = input.shape[d]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                               f"{list(input.shape)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "replicate" and size == 0:
            raise RuntimeError(f"padding size is expected to be greater than 0 on dimension {d}")
        if mode == "circular" and (lo < 0 or hi < 0):  # torch crops first, then wraps the rest
            out = out.narrow(d, max(-lo, 0), size - max(-lo, 0) - max(-hi, 0))
            size, lo, hi = out.shape[d], max(lo, 0), max(hi, 0)
        if lo or hi:
            out = out.index_select(d, from_numpy(pad_indices(size, lo, hi, mode)).to(out.device))
    return out


def _constant_pad(input, pad, value):
    x = input
    shape = list(x.shape)
    for i in range(len(pad) // 2):  # negative amounts crop first
        d = x.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0 or hi < 0:
            start, end = max(-lo, 0), shape[d] - max(-hi, 0)
            if end - start < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            x = x.narrow(d, start, end - start)
            shape[d] = end - start
    if all(v <= 0 for v in pad):
        return x if x is not input else input.clone()
    slices = [slice(None)] * x.dim()
    for i in range(len(pad) // 2):
        d = x.dim() - 1 - i
        lo, hi = max(pad[2 * i], 0), max(pad[2 * i + 1], 0)
        slices[d] = slice(lo, lo + shape[d])
        shape[d] += lo + hi
    out = x.new_full(tuple(shape), value)
    out[tuple(slices)] = x
    return out


# ------------------------------------------------------------------------------ unfold / fold
@public
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks (im2col): ``(N, C, H, W) -> (N, C * kH * kW, L)``."""
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got "
                                  f"{input.dim()}D)")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    kw = dict(kernel_size=_tup(kernel_size, 2), dilation=_tup(dilation, 2), padding=_tup(padding, 2),
              stride=_tup(stride, 2))
    out = _C.im2col(x, **kw)
    return out if batched else out.squeeze(0)


@public
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks back into an image (col2im): ``(N, C * kH * kW, L) -> (N, C, *output_size)``."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: {list(input.shape)}")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    out = _C.col2im(x, output_size=_tup(output_size, 2), kernel_size=_tup(kernel_size, 2),
                    dilation=_tup(dilation, 2), padding=_tup(padding, 2), stride=_tup(stride, 2))
    return out if batched else out.squeeze(0)


# ------------------------------------------------------------------------------ shuffles
def _shuffle_factor(input, factor, name: str, what: str) -> int:
    """``factor`` as an int, after torch's checks (input of >= 3 dims, factor > 0)."""
    r = int(factor)
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {r}")
    return r


@public
def pixel_shuffle(input, upscale_factor):
    """``(*, C * r^2, H, W) -> (*, C, H * r, W * r)``."""
    r = _shuffle_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    c, h, w = input.shape[-3:]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by "
                           f"the square of upscale_factor, but input.size(-3)={c} is not divisible by "
                           f"{r * r}")
    lead = tuple(input.shape[:-3])
    n = len(lead)
    x = input.reshape(lead + (c // (r * r), r, r, h, w))  # shape: (*, C, r, r, H, W)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)  # shape: (*, C, H, r, W, r)
    return x.reshape(lead + (c // (r * r), h * r, w * r))


@public
def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H * r, W * r) -> (*, C * r^2, H, W)``."""
    r = _shuffle_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    c, h, w = input.shape[-3:]
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    lead = tuple(input.shape[:-3])
    n = len(lead)
    x = input.reshape(lead + (c, h // r, r, w // r, r))  # shape: (*, C, H, r, W, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)  # shape: (*, C, r, r, H, W)
    return x.reshape(lead + (c * r * r, h // r, w // r))


@public
def channel_shuffle(input, groups):
    """Interleave channel groups: ``(N, g * k, *) -> (N, k * g, *)`` (ShuffleNet)."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:"
                           f"{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and "
                           f"{groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])
    x = input.reshape((n, groups, c // groups) + rest).transpose(1, 2)
    return x.reshape((n, c) + rest)
