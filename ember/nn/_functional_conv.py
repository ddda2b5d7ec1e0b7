"""Convolutions of ``nn.functional`` (layer L4): ``conv1d/2d/3d`` and ``conv_transpose1d/2d/3d``.

They call the primitives of ``_primitives.conv`` on batched inputs (an unbatched input gets a batch dim
of 1, as in torch). Pooling lives in ``_functional_pooling``, padding, unfold/fold and the shuffles in
``_functional_pad_fold_shuffle``, resampling (interpolate, grid_sample) in ``_functional_sampling``.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv2d(ember.ones(1, 1, 3, 3), ember.ones(1, 1, 2, 2)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
"""
from __future__ import annotations

from ..overrides import public
from .._primitives import conv as _C
from ._functional_pad_fold_shuffle import _tup, pad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


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
