"""Helpers shared by the distributions (torch.distributions.utils' names).

Example:
    >>> import ember
    >>> from ember.distributions.utils import broadcast_all
    >>> [t.shape for t in broadcast_all(ember.zeros(3), 1.0)]
    [torch.Size([3]), torch.Size([3])]
"""
from __future__ import annotations

import math
from functools import update_wrapper
from numbers import Number

from .. import _dtype as D
from .._creation import tensor as _tensor
from .._shape import Size
from .._tensor import Tensor
from .._tensor_methods.random import randn
from .._tensor_methods.shape_copy import broadcast_tensors
from ..autograd.grad_mode import enable_grad

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060


def broadcast_all(*values):
    """Broadcast tensors and numbers to one shape (numbers become tensors of the default dtype)."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = D.get_default_dtype()
        for v in values:
            if isinstance(v, Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, Tensor) else _tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return randn(*shape, dtype=dtype, device=device)


def _sum_rightmost(value, dim: int):
    """Sum out the ``dim`` rightmost dims of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    if is_binary:
        return logits.sigmoid()
    return (logits - logits.logsumexp(-1, keepdim=True)).exp()


def clamp_probs(probs):
    eps = D.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ps_clamped.log() - (-ps_clamped).log1p()
    return ps_clamped.log()


class lazy_property:
    """Evaluated once per instance and cached as an attribute (under grad mode, as torch)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag: int = 0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = [], []
    for i in range(n):
        for j in range(n):
            if j - i <= diag:
                rows.append(i)
                cols.append(j)
    return mat[..., _tensor(rows), _tensor(cols)]


def vec_to_tril_matrix(vec, diag: int = 0):
    from .._creation import zeros
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1))
         ** 0.5) / 2
    eps = D.finfo(vec.dtype).eps
    if not round(n) - n < eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n.item()) if isinstance(n, Tensor) else round(n)
    mat = zeros(tuple(vec.shape[:-1]) + (n, n), dtype=vec.dtype)
    rows, cols = [], []
    for i in range(n):
        for j in range(n):
            if j - i <= diag:
                rows.append(i)
                cols.append(j)
    mat[..., _tensor(rows), _tensor(cols)] = vec
    return mat


LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))
_size = Size
