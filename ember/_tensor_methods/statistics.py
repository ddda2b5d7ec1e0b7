"""Covariance, correlation, numerical gradients and renormalisation (layer L2), as composites over
ember ops so they are differentiable.

Example:
    >>> import ember
    >>> ember.gradient(ember.tensor([1., 4., 9., 16.]))
    (tensor([3., 4., 6., 7.]),)
"""
from __future__ import annotations

import warnings

import numpy as np

from .._dispatch import dispatch
from .._primitives import reduction as R
from .._shape import normalize_dim
from ..overrides import PLAIN_TYPES, handle_torch_function, has_torch_function
from .. import _dtype as D
from ._args import TensorBase

__all__ = ["StatisticsMixin", "FUNCTIONS"]


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows of ``input`` (variables) over its columns (observations).

    Args:
        input: ``(V, N)`` or ``(N,)``.
        fweights: integer frequency weights ``(N,)``; aweights: observation weights ``(N,)``.
    """
    if input.dim() > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input "
                         f"with {input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if x.dtype is D.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.float() if D.get_default_dtype() is D.float32 else x.double()  # the default float dtype
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        total = n
        avg = x.mean(1, keepdim=True)
        norm = n - correction
    else:
        # the weights' sums stay in the weights' own dtype (a float32 aweights gives a float32
        # normaliser for a float64 input, as in torch)
        total = w.sum()
        avg = (x * w).sum(1, keepdim=True) / total
        norm = total - correction * (w * aweights).sum() / total if aweights is not None \
            else total - correction
    xc = x - avg
    xw = xc if w is None else xc * w
    c = xw @ xc.mT.conj()
    if not getattr(norm, "is_meta", False) and (float(norm) if isinstance(norm, TensorBase) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "number of observations.", UserWarning, stacklevel=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = c / norm.clamp(min=0) if isinstance(norm, TensorBase) else c / max(norm, 0) if norm > 0 \
            else c / 0.0
    return c.reshape(()) if x.shape[0] == 1 else c  # one variable: a 0-d variance


def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``, clipped to [-1, 1]."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1) if not c.dtype.is_complex else c


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Central differences of ``input`` along ``dim`` (all dims when None), with one- or two-sided
    differences at the edges; ``spacing`` is a scalar or one scalar per dim (uniform grids)."""
    if edge_order not in (1, 2):
        raise ValueError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [d % input.dim() for d in dims]
    if spacing is None:
        spacing = 1
    if isinstance(spacing, (int, float)):
        hs = [float(spacing)] * len(dims)
    else:
        hs = [float(h.item()) if isinstance(h, TensorBase) and h.dim() == 0 else h for h in spacing]
        if len(hs) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or its "
                               f"length to match the number of dimensions ({len(dims)})")
    out = []
    for d, h in zip(dims, hs):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(f"torch.gradient expected each dimension size to be at least "
                               f"edge_order+1")
        x = input if input.dtype.category >= 2 else input.float()
        s = lambda a, b: x.narrow(d, a, b - a)  # noqa: E731 - a slice along d
        if isinstance(h, TensorBase):  # coordinates along d: non-uniform second-order differences
            shape = [1] * input.dim()
            shape[d] = n
            c = h.to(x.dtype).reshape(shape)
            cs = lambda a, b: c.narrow(d, a, b - a)  # noqa: E731
            hl, hr = cs(1, n - 1) - cs(0, n - 2), cs(2, n) - cs(1, n - 1)
            mid = (hl * hl * s(2, n) - hr * hr * s(0, n - 2) + (hr * hr - hl * hl) * s(1, n - 1)) \
                / (hl * hr * (hl + hr))
            if edge_order == 1:
                first = (s(1, 2) - s(0, 1)) / (cs(1, 2) - cs(0, 1))
                last = (s(n - 1, n) - s(n - 2, n - 1)) / (cs(n - 1, n) - cs(n - 2, n - 1))
            else:
                a1, a2 = cs(1, 2) - cs(0, 1), cs(2, 3) - cs(1, 2)
                first = (-(2 * a1 + a2) / (a1 * (a1 + a2)) * s(0, 1) + (a1 + a2) / (a1 * a2) * s(1, 2)
                         - a1 / (a2 * (a1 + a2)) * s(2, 3))
                b1, b2 = cs(n - 2, n - 1) - cs(n - 3, n - 2), cs(n - 1, n) - cs(n - 2, n - 1)
                last = (b2 / (b1 * (b1 + b2)) * s(n - 3, n - 2) - (b1 + b2) / (b1 * b2) * s(n - 2, n - 1)
                        + (2 * b2 + b1) / (b2 * (b1 + b2)) * s(n - 1, n))
            from .shape_copy import cat
            out.append(cat([first, mid, last], d))
            continue
        mid = (s(2, n) - s(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (s(1, 2) - s(0, 1)) / h
            last = (s(n - 1, n) - s(n - 2, n - 1)) / h
        else:
            first = (s(0, 1) * -3 + s(1, 2) * 4 - s(2, 3)) / (2 * h)
            last = (s(n - 3, n - 2) - s(n - 2, n - 1) * 4 + s(n - 1, n) * 3) / (2 * h)
        from .shape_copy import cat
        out.append(cat([first, mid, last], d))
    return tuple(out)


def _scalar_str(v) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def renorm(input, p, dim, maxnorm):
    """Rescale each slice along ``dim`` whose p-norm (over the other dims) exceeds ``maxnorm`` to
    ``maxnorm`` (``input`` of 2 or more dims, ``p > 0``, ``maxnorm >= 0``)."""
    if type(input) not in PLAIN_TYPES and has_torch_function((input,)):
        return handle_torch_function(renorm, (input,), input, p, dim, maxnorm)
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {_scalar_str(maxnorm)}")
    return dispatch(R.renorm, input, p=float(p), dim=normalize_dim(dim, input.dim()), maxnorm=float(maxnorm))


class StatisticsMixin:
    __slots__ = ()
    cov = cov
    corrcoef = corrcoef
    renorm = renorm

    def renorm_(self, p, dim, maxnorm):
        return self.copy_(renorm(self.detach() if not self.requires_grad else self, p, dim, maxnorm))


FUNCTIONS = dict(cov=cov, corrcoef=corrcoef, gradient=gradient, renorm=renorm)
