"""Small helpers the distributions share (names follow torch.distributions.utils).

Example:
    >>> import ember
    >>> from ember.distributions.utils import broadcast_all
    >>> [t.shape for t in broadcast_all(ember.zeros(3), 1.0)]
    [torch.Size([3]), torch.Size([3])]
"""
from __future__ import annotations

import math
from numbers import Number

from .. import _dtype as D
from .._creation import tensor as _tensor, zeros as _zeros
from .._shape import Size
from .._tensor import Tensor
from .._tensor_methods.random import randn
from .._tensor_methods.shape_copy import broadcast_tensors
from ..autograd.grad_mode import enable_grad

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # γ = -Γ'(1)
LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_size = Size


def broadcast_all(*values):
    """Tensors and Python numbers broadcast to one common shape; numbers take the dtype of the first
    tensor argument (or the default dtype when there is none)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    if len(tensors) + sum(isinstance(v, Number) for v in values) != len(values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if len(tensors) < len(values):
        dtype = tensors[0].dtype if tensors else D.get_default_dtype()
        values = [v if isinstance(v, Tensor) else _tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return randn(*shape, dtype=dtype, device=device)


def _sum_rightmost(value, dim: int):
    """``value`` with its last ``dim`` dimensions summed away (``dim == 0`` returns it unchanged)."""
    if dim == 0:
        return value
    return value.sum(tuple(range(-dim, 0)))


def clamp_probs(probs):
    """Probabilities pushed into ``[eps, 1 - eps]`` so their logs stay finite."""
    tiny = D.finfo(probs.dtype).eps
    return probs.clamp(min=tiny, max=1 - tiny)


def logits_to_probs(logits, is_binary: bool = False):
    """Sigmoid of binary logits, or softmax over the last dim of categorical ones."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def probs_to_logits(probs, is_binary: bool = False):
    """Inverse of :func:`logits_to_probs` (log-odds, or plain log-probabilities)."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


class lazy_property:
    """A property computed on first access and then stored on the instance, shadowing this descriptor
    (computed with grad enabled, so a cached value made under ``no_grad`` still tracks gradients)."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return _LazyPropertyOnClass(self.fn)
        with enable_grad():
            result = self.fn(obj)
        obj.__dict__[self.__name__] = result
        return result


class _LazyPropertyOnClass(lazy_property, property):
    # what ``Cls.attr`` returns: still a lazy_property, but also a property for introspection
    def __init__(self, fn):
        property.__init__(self, fn)
        lazy_property.__init__(self, fn)


def _tril_positions(n: int, diag: int):
    pairs = [(r, c) for r in range(n) for c in range(n) if c <= r + diag]
    return _tensor([r for r, _ in pairs]), _tensor([c for _, c in pairs])


def tril_matrix_to_vec(mat, diag: int = 0):
    """The entries on and below diagonal ``diag`` of the last two dims, row by row, as a vector."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = _tril_positions(n, diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag: int = 0):
    """Inverse of :func:`tril_matrix_to_vec`: fill a square lower-triangular matrix from a vector."""
    m = vec.shape[-1]
    # solve n(n+1)/2 + diag*n - (diag<0 correction) = m for n; the closed form is the quadratic root
    b = 1 + 2 * diag
    n = (-b + math.sqrt(b * b + 8 * m + 4 * abs(diag) * (diag + 1))) / 2
    if abs(round(n) - n) >= D.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n)
    out = _zeros(tuple(vec.shape[:-1]) + (n, n), dtype=vec.dtype)
    rows, cols = _tril_positions(n, diag)
    out[..., rows, cols] = vec
    return out


class _ProbsOrLogits:
    """Mixin for distributions given by exactly one of ``probs`` / ``logits``: whichever is given is
    stored, the other is derived lazily. ``_binary`` selects sigmoid (True) or softmax (False)."""

    _binary = True

    def _take_probs_or_logits(self, probs, logits):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        return ("probs", probs) if probs is not None else ("logits", logits)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=self._binary)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=self._binary)

    @property
    def _param(self):
        # the parameter the user gave (the other one may not exist yet)
        return self.__dict__["probs" if "probs" in self.__dict__ else "logits"]

    @property
    def param_shape(self):
        return self._param.shape


def _log1pexp(x):
    """``log(1 + exp(x))`` without overflow for large ``x``."""
    return x.clamp(min=0) + (-x.abs()).exp().log1p()
