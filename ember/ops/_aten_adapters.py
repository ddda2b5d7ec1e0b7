"""The few aten overloads whose argument forms no generic rule of ``_aten.py`` covers (``:name`` in the
table). Each takes the schema's arguments in order and computes with ember's public functions or
primitives.

Example:
    >>> import ember
    >>> slice_tensor(ember.arange(6), 0, 1, None, 2).tolist()
    [1, 3, 5]
"""
from __future__ import annotations

import sys

from .._dispatch import dispatch
from .._primitives import REGISTRY

_SYS_MAXSIZE = sys.maxsize


def _ember():
    return sys.modules["ember"]  # the public namespace; fully imported before any op is called


def slice_tensor(self, dim=0, start=None, end=None, step=1):
    """``aten.slice.Tensor``: ``self[..., start:end:step]`` along ``dim`` (a view)."""
    if start is not None and end is not None and end == _SYS_MAXSIZE:
        end = None
    index = [slice(None)] * (dim % self.dim())
    return self[(*index, slice(start, end, step))]


def to_copy(self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
            memory_format=None):
    """``aten._to_copy``: always a fresh tensor, in ``dtype`` on ``device``."""
    return self.to(device=device, dtype=dtype, copy=True)


def copy(self, src, non_blocking=False):
    """``aten.copy``: ``src`` broadcast to ``self``'s shape, in ``self``'s dtype (functional copy_)."""
    return self.clone().copy_(src)


def index_tensor(self, indices):
    """``aten.index.Tensor``: advanced indexing, ``None`` entries meaning a full slice."""
    return self[tuple(slice(None) if i is None else i for i in indices)]


def index_put(self, indices, values, accumulate=False):
    """``aten.index_put``: a copy of ``self`` with ``values`` put (or added) at ``indices``."""
    key = tuple(slice(None) if i is None else i for i in indices)
    return self.clone().index_put_(key, values, accumulate)


def einsum(equation, tensors, path=None):
    """``aten.einsum``: the operands come as one list."""
    return _ember().einsum(equation, *tensors)


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    """``aten.native_layer_norm_backward``: (grad_input, grad_weight, grad_bias), None where masked."""
    res = dispatch(REGISTRY["native_layer_norm_backward"], grad_out, input, mean, rstd, weight,
                   normalized_shape=tuple(normalized_shape))
    gi, gw, gb = res
    return (gi if output_mask[0] else None, gw if output_mask[1] and weight is not None else None,
            gb if output_mask[2] and bias is not None else None)


def nll_loss_forward(self, target, weight, reduction, ignore_index):
    """``aten.nll_loss_forward``: (loss, total_weight)."""
    loss = dispatch(REGISTRY["nll_loss"], self, target, weight, reduction=reduction,
                    ignore_index=ignore_index)
    if reduction == 0:
        total = self.new_zeros(())
    elif weight is None:
        total = (target != ignore_index).sum().to(self.dtype)
    else:
        t = target.clamp(0)
        w = weight[t] * (target != ignore_index)
        total = w.sum().to(self.dtype)
    return loss, total


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    """``aten.nll_loss_backward``: the gradient of ``nll_loss_forward`` for ``self``."""
    return dispatch(REGISTRY["nll_loss_backward"], grad_output, target, weight, shape=tuple(self.shape),
                    reduction=reduction, ignore_index=ignore_index)


# random fills: aten's functional forms return a filled copy of ``self``
def uniform(self, from_=0.0, to=1.0, generator=None):
    """``aten.uniform``: a copy of ``self`` filled from U(from, to)."""
    return self.clone().uniform_(from_, to, generator=generator)


def exponential(self, lambd=1.0, generator=None):
    return self.clone().exponential_(lambd, generator=generator)


def cauchy(self, median=0.0, sigma=1.0, generator=None):
    return self.clone().cauchy_(median, sigma, generator=generator)


def log_normal(self, mean=1.0, std=2.0, generator=None):
    return self.clone().log_normal_(mean, std, generator=generator)


def geometric(self, p, generator=None):
    return self.clone().geometric_(p, generator=generator)


def random_from(self, from_, to, generator=None):
    return self.clone().random_(from_, to, generator=generator)


def random_to(self, to, generator=None):
    return self.clone().random_(to, generator=generator)


def random_(self, generator=None):
    return self.clone().random_(generator=generator)


def unique2(self, sorted=True, return_inverse=False, return_counts=False):
    """``aten._unique2``: (values, inverse, counts), empty tensors for the parts not asked for."""
    E = _ember()
    values, inverse, counts = E.unique(self, sorted=sorted, return_inverse=True, return_counts=True)
    empty = self.new_empty(0, dtype=E.int64)
    return values, inverse if return_inverse else empty, counts if return_counts else empty


def _functional():
    return _ember().nn.functional


def adaptive_max_pool2d(self, output_size):
    return tuple(_functional().adaptive_max_pool2d(self, output_size, return_indices=True))


def adaptive_max_pool3d(self, output_size):
    return tuple(_functional().adaptive_max_pool3d(self, output_size, return_indices=True))


def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``aten.max_pool2d_with_indices``: an empty ``stride`` means ``kernel_size``."""
    return tuple(_functional().max_pool2d(self, kernel_size, list(stride) or None, padding, dilation,
                                          ceil_mode=ceil_mode, return_indices=True))


def max_pool3d_with_indices(self, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return tuple(_functional().max_pool3d(self, kernel_size, list(stride) or None, padding, dilation,
                                          ceil_mode=ceil_mode, return_indices=True))


def normal_functional(self, mean=0.0, std=1.0, generator=None):
    """``aten.normal_functional``: a copy of ``self`` filled from N(mean, std^2)."""
    return self.clone().normal_(mean, std, generator=generator)


def bernoulli_tensor(self, p, generator=None):
    """``aten.bernoulli.Tensor``: a copy of ``self`` filled with Bernoulli(``p``) draws."""
    return self.clone().bernoulli_(p, generator=generator)


def index_put_(self, indices, values, accumulate=False):
    """``aten.index_put_``: in place, ``None`` entries meaning a full slice."""
    key = tuple(slice(None) if i is None else i for i in indices)
    return self.index_put_(key, values, accumulate)


def fill_tensor(self, value):
    """``aten.fill.Tensor``: a tensor like ``self`` filled with the 0-d ``value``."""
    return self.clone().fill_(value)


# nn overloads: aten passes enums as ints where nn.functional takes strings
_REDUCTIONS = ("none", "mean", "sum")
_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``aten.native_batch_norm``: (output, batch mean, batch 1/std) when training (running stats
    updated in place); in evaluation the last two are empty, as torch's CPU kernel gives."""
    E = _ember()
    out = _functional().batch_norm(input, running_mean, running_var, weight, bias, training,
                                   momentum, eps)
    if not training:
        empty = input.new_empty(0)
        return out, empty, empty
    dims = [0] + list(range(2, input.dim()))
    with E.no_grad():
        mean = input.mean(dims)
        invstd = (input.var(dims, correction=0) + eps).rsqrt()
    return out, mean, invstd


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return _functional().batch_norm(input, running_mean, running_var, weight, bias, training,
                                    momentum, eps)


def native_dropout(input, p, train):
    """``aten.native_dropout``: (output, keep mask); ``train=None`` means training."""
    if train is False:
        return input.clone(), _ember().ones_like(input, dtype=_ember().bool)
    keep = _ember().empty_like(input).bernoulli_(1 - p).bool()
    scale = 1.0 / (1 - p) if p < 1 else 0.0
    return input * keep * scale, keep


def mse_loss(self, target, reduction=1):
    return _functional().mse_loss(self, target, reduction=_REDUCTIONS[reduction])


def l1_loss(self, target, reduction=1):
    return _functional().l1_loss(self, target, reduction=_REDUCTIONS[reduction])


def smooth_l1_loss(self, target, reduction=1, beta=1.0):
    return _functional().smooth_l1_loss(self, target, reduction=_REDUCTIONS[reduction], beta=beta)


def huber_loss(self, target, reduction=1, delta=1.0):
    return _functional().huber_loss(self, target, reduction=_REDUCTIONS[reduction], delta=delta)


def binary_cross_entropy(self, target, weight=None, reduction=1):
    return _functional().binary_cross_entropy(self, target, weight,
                                              reduction=_REDUCTIONS[reduction])


def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction=1):
    return _functional().binary_cross_entropy_with_logits(
        self, target, weight, reduction=_REDUCTIONS[reduction], pos_weight=pos_weight)


def cross_entropy_loss(self, target, weight=None, reduction=1, ignore_index=-100,
                       label_smoothing=0.0):
    return _functional().cross_entropy(self, target, weight, ignore_index=ignore_index,
                                       reduction=_REDUCTIONS[reduction],
                                       label_smoothing=label_smoothing)


def upsample_nearest2d(input, output_size, scale_factors):
    return _functional().interpolate(input, output_size, scale_factors, mode="nearest")


def upsample_bilinear2d(input, output_size, align_corners, scale_factors):
    return _functional().interpolate(input, output_size, scale_factors, mode="bilinear",
                                     align_corners=align_corners)


def constant_pad_nd(self, pad, value=0):
    return _functional().pad(self, list(pad), value=value)


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    return _functional().grid_sample(input, grid, _INTERPOLATION[interpolation_mode],
                                     _PADDING[padding_mode], align_corners)
