"""Convolution, pooling, padding, unfold/fold and pixel shuffles of ``nn.functional`` (layer L4).

Convolutions and pools call the primitives of ``_primitives.conv`` / ``_primitives.pooling`` on batched inputs (an
unbatched input gets a batch dim of 1, 1-d pools run as 2-d ones, as in torch); the rest are
composites of Tensor ops. Resampling (interpolate, grid_sample) lives in ``_functional_sampling``.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv2d(ember.ones(1, 1, 3, 3), ember.ones(1, 1, 2, 2)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
"""
from __future__ import annotations

from .._creation import from_numpy
from ..overrides import public
from .._primitives import conv as _C
from .._primitives import pooling as _P
from .._primitives.sampling import pad_indices

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "pad", "unfold", "fold", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle"]


def _tup(v, n):
    if isinstance(v, (list, tuple)):
        v = tuple(int(x) for x in v)
        return v * n if len(v) == 1 and n > 1 else v
    return (int(v),) * n


_CNAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def _cname(dt):
    return _CNAMES.get(dt.name, dt.name)


# ------------------------------------------------------------------------------ convolution
def _batch(input, weight, nd, name):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, "
                           f"but got input of size: {list(input.shape)}")
    if weight.dim() != nd + 2:
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional "
                           f"weight {list(weight.shape)}, but got {input.dim()}-dimensional input of "
                           f"size {list(input.shape)} instead")
    return input.dim() == nd + 2


def _check_dtypes(input, weight, bias):
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.name.capitalize()} but found "
                           f"{weight.dtype.name.capitalize()}".replace("Float32", "Float")
                           .replace("Float64", "Double"))
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_cname(input.dtype)}) and bias type ({_cname(bias.dtype)}) "
                           f"should be the same")


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, name):
    batched = _batch(input, weight, nd, name)
    x = input if batched else input.unsqueeze(0)
    stride, dilation = _tup(stride, nd), _tup(dilation, nd)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            total = [dilation[i] * (weight.shape[2 + i] - 1) for i in range(nd)]
            padding = tuple(t // 2 for t in total)
            extra = [t - 2 * (t // 2) for t in total]
            if any(extra):  # an even kernel: the extra element goes at the end, as in torch
                widths = []
                for e in reversed(extra):
                    widths += [0, e]
                x = pad(x, widths)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _tup(padding, nd)
    _check_dtypes(x, weight, bias)
    _C.check_conv(tuple(x.shape), tuple(weight.shape), None if bias is None else tuple(bias.shape),
                  stride=stride, padding=padding, dilation=dilation, groups=groups, transposed=False,
                  output_padding=(0,) * nd)
    out = _C.convolution(x, weight, bias, stride=stride, padding=padding, dilation=dilation,
                         groups=groups, transposed=False, output_padding=(0,) * nd)
    return out if batched else out.squeeze(0)


@public
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution: input ``(N, C_in, L)``, weight ``(C_out, C_in / groups, k)``."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@public
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution: input ``(N, C_in, H, W)``, weight ``(C_out, C_in / groups, kH, kW)``.

    ``padding`` is an int, a tuple, ``'valid'`` or ``'same'``."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@public
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution: input ``(N, C_in, D, H, W)``, weight ``(C_out, C_in / groups, kD, kH, kW)``."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


_AXES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name):
    batched = _batch(input, weight, nd, name)
    x = input if batched else input.unsqueeze(0)
    stride, padding, dilation = _tup(stride, nd), _tup(padding, nd), _tup(dilation, nd)
    op = _tup(output_padding, nd)
    if any(o >= s and o >= d for o, s, d in zip(op, stride, dilation)):
        ax = _AXES[nd]
        parts = [f"output_padding_{a}: {v}" for a, v in zip(ax, op)]
        parts += [f"stride_{a}: {v}" for a, v in zip(ax, stride)]
        parts += [f"dilation_{a}: {v}" for a, v in zip(ax, dilation)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           + " ".join(parts))
    _check_dtypes(x, weight, bias)
    _C.check_conv(tuple(x.shape), tuple(weight.shape), None if bias is None else tuple(bias.shape),
                  stride=stride, padding=padding, dilation=dilation, groups=groups, transposed=True,
                  output_padding=op)
    out = _C.convolution(x, weight, bias, stride=stride, padding=padding, dilation=dilation,
                         groups=groups, transposed=True, output_padding=op)
    return out if batched else out.squeeze(0)


@public
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-d convolution: weight ``(C_in, C_out / groups, k)``."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                   "conv_transpose1d")


@public
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-d convolution: weight ``(C_in, C_out / groups, kH, kW)``."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                   "conv_transpose2d")


@public
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 3-d convolution: weight ``(C_in, C_out / groups, kD, kH, kW)``."""
    return _conv_t(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                   "conv_transpose3d")


# ------------------------------------------------------------------------------ max / avg pool
def _pool_batch(input, nd, name):
    if input.dim() not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[-nd - 1:]):
        if nd == 1:
            raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                               f"batch size for input, but got:{list(input.shape)}")
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    return input.dim() == nd + 2


def _stride(stride, kernel_size, nd):
    return _tup(kernel_size if stride is None or stride == [] or stride == () else stride, nd)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, name):
    batched = _pool_batch(input, nd, name)
    x = input if batched else input.unsqueeze(0)
    k, s = _tup(kernel_size, nd), _stride(stride, kernel_size, nd)
    p, d = _tup(padding, nd), _tup(dilation, nd)
    if nd == 1:  # torch runs 1-d pools as 2-d ones over a height of 1
        x, k, s, p, d = x.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + p, (1,) + d
    _P.check_pool(name, tuple(x.shape), k, s, p, d, ceil_mode)
    op = _P.max_pool3d if nd == 3 else _P.max_pool2d
    out, idx = op(x, kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=bool(ceil_mode))
    if nd == 1:
        out, idx = out.squeeze(-2), idx.squeeze(-2)
    if not batched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return out, idx


def _max_pool_fn(nd):
    name = f"max_pool{nd}d"

    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                     return_indices=False):
        return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, name)

    def fn(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
           return_indices=False):
        out, idx = _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, name)
        return (out, idx) if return_indices else out
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{nd}-d max pooling over ``(N, C, *S)``; ``return_indices`` also gives each "
                  f"maximum's flat position within its ``(n, c)`` plane.")
    with_indices.__name__ = with_indices.__qualname__ = name + "_with_indices"
    with_indices.__doc__ = f"``{name}`` returning ``(output, indices)``."
    return public(fn), public(with_indices)


max_pool1d, max_pool1d_with_indices = _max_pool_fn(1)
max_pool2d, max_pool2d_with_indices = _max_pool_fn(2)
max_pool3d, max_pool3d_with_indices = _max_pool_fn(3)


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
              nd, name):
    batched = _pool_batch(input, nd, name)
    x = input if batched else input.unsqueeze(0)
    k, s, p = _tup(kernel_size, nd), _stride(stride, kernel_size, nd), _tup(padding, nd)
    if nd == 1:
        x, k, s, p = x.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + p
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _P.check_pool(name, tuple(x.shape), k, s, p, (1,) * len(k), ceil_mode, avg=True)
    op = _P.avg_pool3d if nd == 3 else _P.avg_pool2d
    out = op(x, kernel_size=k, stride=s, padding=p, ceil_mode=bool(ceil_mode),
             count_include_pad=bool(count_include_pad), divisor_override=divisor_override)
    if nd == 1:
        out = out.squeeze(-2)
    return out if batched else out.squeeze(0)


@public
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling over ``(N, C, L)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


@public
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-d average pooling over ``(N, C, H, W)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")


@public
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-d average pooling over ``(N, C, D, H, W)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3, "avg_pool3d")


# ------------------------------------------------------------------------------ adaptive pools
def _adaptive(input, output_size, nd, kind):
    name = f"adaptive_{kind}_pool{nd}d"
    if input.dim() not in (nd + 1, nd + 2):
        if nd == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor "
                               f"for argument #1 'self' (while checking arguments for {name})")
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got"
                           f"{':' if kind == 'max' else ''} {list(input.shape)}")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    size = tuple(x.shape[2:])
    if isinstance(output_size, (list, tuple)):
        osz = tuple(size[i] if o is None else int(o) for i, o in enumerate(_tup_none(output_size, nd)))
    else:
        osz = (int(output_size),) * nd
    for i, s in enumerate(x.shape[1:]):
        if s == 0 and (batched or i > 0) or (not batched and x.shape[1] == 0):
            dim = i + (1 if batched else 0)
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with dimension "
                               f"{dim} being empty")
    if nd == 1:
        x, osz = x.unsqueeze(-2), (1,) + osz
    nd2 = max(nd, 2)
    if kind == "avg":
        out = (_P.adaptive_avg_pool3d if nd2 == 3 else _P.adaptive_avg_pool2d)(x, output_size=osz)
        idx = None
    else:
        out, idx = (_P.adaptive_max_pool3d if nd2 == 3 else _P.adaptive_max_pool2d)(x, output_size=osz)
    if nd == 1:
        out = out.squeeze(-2)
        idx = idx.squeeze(-2) if idx is not None else None
    if not batched:
        out = out.squeeze(0)
        idx = idx.squeeze(0) if idx is not None else None
    return out, idx


def _tup_none(v, n):
    v = tuple(v)
    return v * n if len(v) == 1 and n > 1 else v


@public
def adaptive_avg_pool1d(input, output_size):
    """Average pooling to a fixed output length: ``(N, C, L) -> (N, C, output_size)``."""
    return _adaptive(input, output_size, 1, "avg")[0]


@public
def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``(H_out, W_out)``; ``None`` keeps that input size."""
    return _adaptive(input, output_size, 2, "avg")[0]


@public
def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed ``(D_out, H_out, W_out)``."""
    return _adaptive(input, output_size, 3, "avg")[0]


def _adaptive_max_fn(nd):
    def with_indices(input, output_size, return_indices=False):
        return _adaptive(input, output_size, nd, "max")

    def fn(input, output_size, return_indices=False):
        out, idx = _adaptive(input, output_size, nd, "max")
        return (out, idx) if return_indices else out
    name = f"adaptive_max_pool{nd}d"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Max pooling to a fixed output size over {nd} spatial dims (indices optional)."
    with_indices.__name__ = with_indices.__qualname__ = name + "_with_indices"
    with_indices.__doc__ = f"``{name}`` returning ``(output, indices)``."
    return public(fn), public(with_indices)


adaptive_max_pool1d, adaptive_max_pool1d_with_indices = _adaptive_max_fn(1)
adaptive_max_pool2d, adaptive_max_pool2d_with_indices = _adaptive_max_fn(2)
adaptive_max_pool3d, adaptive_max_pool3d_with_indices = _adaptive_max_fn(3)


# ------------------------------------------------------------------------------ lp pool, unpool
def _lp(input, norm_type, kernel_size, stride, ceil_mode, nd):
    k = _tup(kernel_size, nd)
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    out = avg(input.pow(norm_type), k, stride if stride is not None else k, 0, ceil_mode)
    n = 1
    for v in k:
        n *= v
    return (out.sign() * out.abs().relu()).mul(n).pow(1.0 / norm_type)


@public
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: ``(sum x^p over each window)^(1/p)``."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 1)


@public
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling: ``(sum x^p over each window)^(1/p)``."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 2)


@public
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling: ``(sum x^p over each window)^(1/p)``."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _unpool(input, indices, kernel_size, stride, padding, output_size, nd):
    k, s, p = _tup(kernel_size, nd), _stride(stride, kernel_size, nd), _tup(padding, nd)
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    idx = indices if batched else indices.unsqueeze(0)
    default = tuple((x.shape[2 + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(nd))
    if output_size is None:
        size = default
    else:
        size = tuple(output_size)[-nd:] if len(output_size) in (nd + 1, nd + 2) else tuple(output_size)
        if len(size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, "
                             f"but it has a length of '{len(output_size)}'")
        for i in range(nd):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < size[i] < hi:
                raise ValueError(f"invalid output_size \"{list(size)}\" (dim {i} must be between {lo} "
                                 f"and {hi})")
    n, c = x.shape[:2]
    plane = 1
    for v in size:
        plane *= v
    out = x.new_zeros((n, c, plane)).scatter(2, idx.reshape(n, c, -1), x.reshape(n, c, -1))
    out = out.reshape((n, c) + size)
    return out if batched else out.squeeze(0)


@public
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of ``max_pool1d``: maxima back at ``indices``, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@public
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of ``max_pool2d``: maxima back at ``indices``, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@public
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of ``max_pool3d``: maxima back at ``indices``, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 3)


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
@public
def pixel_shuffle(input, upscale_factor):
    """``(*, C * r^2, H, W) -> (*, C, H * r, W * r)``."""
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
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
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
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

