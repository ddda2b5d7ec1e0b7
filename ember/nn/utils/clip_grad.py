"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_`` (layer L4).

Example:
    >>> import ember
    >>> p = ember.nn.Parameter(ember.zeros(2)); p.grad = ember.tensor([3., 4.])
    >>> clip_grad_norm_([p], max_norm=1.0)
    tensor(5.)
    >>> p.grad
    tensor([0.6000, 0.8000])
"""
from __future__ import annotations

from ..._tensor_methods.shape_copy import stack

import math
import warnings

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _params(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _norm(t, norm_type: float):
    if norm_type == math.inf:
        return t.abs().reshape(-1).amax(0) if t.numel() else t.new_zeros(())
    if norm_type == 2:
        return (t * t).sum().sqrt()
    if norm_type == 1:
        return t.abs().sum()
    return (t.abs() ** norm_type).sum() ** (1.0 / norm_type)


@no_grad()
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None):
    """The ``norm_type`` norm of all ``tensors`` viewed as one vector."""
    tensors = _params(tensors)
    norm_type = float(norm_type)
    if not tensors:
        from ..._creation import tensor
        return tensor(0.0)
    norms = [_norm(t, norm_type) for t in tensors]
    if len(norms) == 1:
        total = norms[0]
    elif norm_type == math.inf:
        total = norms[0]
        for n in norms[1:]:
            total = total.maximum(n)
    else:
        total = _norm(_stack(norms), norm_type)
    if error_if_nonfinite and not math.isfinite(total.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return total


def _stack(scalars):
    return stack(scalars)


@no_grad()
def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Scale every gradient by ``max_norm / (total_norm + 1e-6)`` when that is below 1."""
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    if not grads:
        return
    clip_coef_clamped = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(clip_coef_clamped.to(g.dtype))


@no_grad()
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None):
    """Rescale gradients in place so their total norm is at most ``max_norm``; returns the norm."""
    parameters = _params(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None):
    """Deprecated alias of ``clip_grad_norm_``."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient in place into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    for p in _params(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
