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
