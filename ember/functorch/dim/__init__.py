"""``functorch.dim``: first-class dimensions (named dims as Python objects), at torch's import path.

``dims()`` makes ``Dim`` objects; indexing a tensor with them (``t[i, j]``, or ``t.index(positions,
dims)``) gives a first-class ``Tensor`` whose ops broadcast by dim identity, reduce over dims
(``x.sum(i)``) and come back to positional dims with ``order``. Gradients flow to the underlying
tensors (every op is an ember op).

Example:
    >>> import ember
    >>> from ember.functorch.dim import dims
    >>> A, B = ember.arange(6.).reshape(2, 3), ember.arange(12.).reshape(3, 4)
    >>> i, j, k = dims()
    >>> (A[i, k] * B[k, j]).sum(k).order(i, j)      # A @ B
    tensor([[20., 23., 26., 29.],
            [56., 68., 80., 92.]])
"""
from __future__ import annotations

from ...nn import functional as _F
from ..._tensor_methods.shape_copy import cat as _cat, stack as _stack
from ._creation import dimlists, dims
from ._first_class import (Dim, DimensionBindError, DimensionMismatchError, DimList, Tensor, _Tensor,
                           _union, align, wrap)
from ._getitem import getitem, index
from . import _ops  # noqa: F401  (gives the classes their ops)

__all__ = ["dims", "dimlists", "Dim", "DimList", "Tensor", "DimensionBindError",
           "DimensionMismatchError", "index", "softmax", "cat", "stack"]

_Tensor.__getitem__ = getitem  # defined above the classes' module (it needs them)
_Tensor.index = index


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``nn.functional.softmax``, where ``dim`` may be a first-class dim of ``input``."""
    return _F.softmax(input, dim, _stacklevel, dtype)


def _expanded(tensors):
    """The plain tensors of ``tensors`` laid out over the union of their dims, expanded to the
    dims' sizes, and that union."""
    fcs = [t for t in tensors if isinstance(t, _Tensor)]
    dims_ = _union(fcs)
    npos = max(t.ndim if isinstance(t, _Tensor) else t.dim() for t in tensors)
    shape = [d.size for d in dims_]
    return [align(t, dims_, npos).expand(*shape, *([-1] * npos)) for t in tensors], dims_


def cat(tensors, dim, new_dim):
    """Concatenate along the first-class dim ``dim`` (present in each tensor); the result's axis is
    bound to the new dim ``new_dim`` (sized the sum).

    Example:
        >>> import ember
        >>> from ember.functorch.dim import cat, dims
        >>> i, j, k = dims()
        >>> a = ember.arange(6.).reshape(2, 3)
        >>> cat([a[i, j], a[i, j] * 10], j, k).order(i, k)
        tensor([[ 0.,  1.,  2.,  0., 10., 20.],
                [ 3.,  4.,  5., 30., 40., 50.]])
    """
    moved = [t.order(dim) for t in tensors]  # dim becomes positional dim 0
    plain, dims_ = _expanded(moved)
    r = _cat(plain, len(dims_))
    return wrap(r, dims_ + [0] * (r.dim() - len(dims_))).index(0, new_dim)


def stack(tensors, new_dim, dim: int = 0):
    """Stack along a new positional dim at ``dim`` and bind it to ``new_dim``.

    Example:
        >>> import ember
        >>> from ember.functorch.dim import dims, stack
        >>> i, s = dims()
        >>> a = ember.arange(3.)
        >>> stack([a[i], a[i] * 2], s).order(s, i)
        tensor([[0., 1., 2.],
                [0., 2., 4.]])
    """
    plain, dims_ = _expanded(list(tensors))
    n = plain[0].dim() - len(dims_)
    if not -n - 1 <= dim <= n:
        raise IndexError(f"stack: dim {dim} out of range for tensors with {n} positional dimensions")
    r = _stack(plain, len(dims_) + (dim + n + 1 if dim < 0 else dim))
    return wrap(r, dims_ + [0] * (r.dim() - len(dims_))).index(dim, new_dim)

