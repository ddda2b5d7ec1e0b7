"""Normalisation layers of ``ember.nn.functional`` (layer L4).

layer_norm and group_norm run on the ``native_layer_norm`` primitive (one NumPy pass forward, one
backward); batch/instance norm, rms_norm, local_response_norm and normalize are composites.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.layer_norm(ember.tensor([[1., 3.]]), (2,))
    tensor([[-1.0000,  1.0000]])
"""
from __future__ import annotations

import math

from .. import _dtype as D
from .._dispatch import dispatch
from .._tensor_methods.shape_copy import cat
from ..autograd.grad_mode import no_grad
from .._primitives import nn_ops as NN
from ..overrides import public

__all__ = ["layer_norm", "rms_norm", "normalize", "batch_norm", "group_norm", "instance_norm",
           "local_response_norm"]


@public
def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """Normalise over the trailing ``normalized_shape`` dims, then scale by weight and shift by bias.

    input ``(*, *normalized_shape)``; weight and bias ``normalized_shape``.
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    n = len(normalized_shape)
    if input.dim() < n or tuple(input.shape[input.dim() - n:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
                           f"{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(normalized_shape)}")
    return dispatch(NN.native_layer_norm, input, weight, bias, normalized_shape=normalized_shape,
                    eps=eps)[0]


@public
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` dims."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    n = len(normalized_shape)
    if input.dim() < n or tuple(input.shape[input.dim() - n:]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
                           f"{list(input.shape)}")
    if eps is None:
        eps = D.finfo(input.dtype).eps
    dims = tuple(range(-n, 0))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out


@public
def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    norm = input.norm(p, dim, keepdim=True)  # the vector p-norm (p = 0 counts non-zeros)
    res = input / norm.clamp(min=eps).expand_as(input)
    return out.copy_(res) if out is not None else res


def _channel_view(t, ndim: int):
    """A ``(C,)`` tensor shaped ``(1, C, 1, ...)`` to broadcast against an ``ndim``-d input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def _channel_affine(out, weight, bias, nd: int):
    """``out * weight + bias`` with per-channel ``weight``/``bias`` (either may be None)."""
    if weight is not None:
        out = out * _channel_view(weight, nd)
    if bias is not None:
        out = out + _channel_view(bias, nd)
    return out


def _verify_batch_size(size) -> None:
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


@public
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """Normalise each channel of ``(N, C, *)`` by batch statistics (training) or running ones (eval).

    In training the running stats are updated in place: ``(1 - momentum) * old + momentum * new``
    (the variance unbiased).
    """
    if training:
        _verify_batch_size(input.shape)
    nd = input.dim()
    if nd < 2:  # torch counts no channels in a 1-D input: only an empty one normalises
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is not None and t.numel() != 0:
                raise RuntimeError(f"{name} should contain 0 elements not {t.numel()}")
        if input.numel() == 0 and nd == 1:
            return input * 1
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(nd, 1)}, "
                         f"{max(nd, 1) - 1}], but got 1)")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    dims = (0,) + tuple(range(2, nd))
    if training or running_mean is None or running_var is None:
        if not training and (running_mean is None or running_var is None):
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean = input.mean(dims, keepdim=True)
        xc = input - mean
        var = (xc * xc).mean(dims, keepdim=True)
        out = xc * (var + eps).rsqrt()
        if running_mean is not None and running_var is not None:
            n = input.numel() // c
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.reshape(-1).to(running_mean.dtype),
                                                     alpha=momentum)
                unbiased = var.reshape(-1) * (n / max(n - 1, 1))
                running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype), alpha=momentum)
    else:
        scale = (_channel_view(running_var, nd) + eps).rsqrt()
        out = (input - _channel_view(running_mean, nd)) * scale
    return _channel_affine(out, weight, bias, nd)


@public
def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Normalise ``(N, C, *)`` over groups of ``C // num_groups`` channels (and all spatial dims)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but "
                           f"got input of shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} and "
                               f"input of shape {list(input.shape)}")
    rest = math.prod(input.shape) // max(n * num_groups, 1)
    x = input.reshape(n, num_groups, rest)  # shape: (N, G, C/G * spatial)
    out = dispatch(NN.native_layer_norm, x, None, None, normalized_shape=(rest,), eps=eps)[0]
    return _channel_affine(out.reshape(input.shape), weight, bias, input.dim())


@public
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5):
    """Normalise each ``(n, c)`` instance of ``(N, C, *)`` over its spatial dims."""
    nd = input.dim()
    if use_input_stats:
        size = input.shape
        if math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{size}")
        n, c = size[0], size[1]
        x = input.reshape(n, c, -1)  # shape: (N, C, L)
        out, mean, rstd = dispatch(NN.native_layer_norm, x, None, None,
                                   normalized_shape=(x.shape[-1],), eps=eps)
        out = out.reshape(size)
        if running_mean is not None and running_var is not None:
            length = x.shape[-1]
            with no_grad():
                m = mean.reshape(n, c).mean(0)
                var = (rstd.reshape(n, c) ** -2 - eps) * (length / max(length - 1, 1))
                running_mean.mul_(1 - momentum).add_(m.to(running_mean.dtype), alpha=momentum)
                running_var.mul_(1 - momentum).add_(var.mean(0).to(running_var.dtype), alpha=momentum)
    else:
        out = batch_norm(input, running_mean, running_var, None, None, False, momentum, eps)
    return _channel_affine(out, weight, bias, nd)


@public
def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    """``x / (k + alpha * mean of x^2 over `size` neighbouring channels) ** beta``; input ``(N, C, *)``."""
    nd = input.dim()
    if nd < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {nd} dimensions)")
    if input.numel() == 0:
        return input
    sq = input * input
    c = input.shape[1]
    lo, hi = size // 2, (size - 1) // 2
    zeros_lo = sq.new_zeros((sq.shape[0], lo) + tuple(sq.shape[2:]))
    zeros_hi = sq.new_zeros((sq.shape[0], hi) + tuple(sq.shape[2:]))
    padded = cat([zeros_lo, sq, zeros_hi], 1)
    # a window sum over channels: ``size`` shifted slices (a loop over the window, not the data)
    acc = padded[:, 0:c]
    for i in range(1, size):
        acc = acc + padded[:, i:i + c]
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        # torch averages integer squares with an integer average pool (the mean truncates)
        div = ((acc // size) * alpha + k) ** beta
    else:
        div = (acc * (alpha / size) + k) ** beta
    return input / div
