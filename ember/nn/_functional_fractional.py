"""Fractional max pooling (Graham, 2014) in 2-D and 3-D (layer L4), a composite of ember ops.

Each ``(N, C)`` plane draws one uniform sample ``u`` per spatial dim (or takes them from
``_random_samples``, shape ``(N, C, 2|3)``); along a dim of input size ``L``, output size ``O`` and
window ``k``, window ``i`` starts at ``int((i + u) * a) - int(u * a)`` with ``a = (L - k) / (O - 1)``,
and the last window at ``L - k``. Windows are gathered with advanced indexing and reduced by ``max``,
so the gradient reaches the selected elements as in torch. As in torch, the 2-D samples are ordered
(width, height) and the 3-D ones (time, height, width). Indices are flat within each plane.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.arange(16.).reshape(1, 1, 4, 4)
    >>> F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=ember.zeros(1, 1, 2)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._creation import tensor
from .._tensor_methods.random import rand
from ..overrides import public

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _starts(u, L, O, k):
    """Window starts ``(P, O)`` for the per-plane samples ``u`` ``(P,)``."""
    if O == 1:
        return np.full((u.shape[0], 1), L - k, dtype=np.int64)
    a = (L - k) / (O - 1)
    i = np.arange(O - 1, dtype=np.float64)
    s = ((i[None, :] + u[:, None]) * a).astype(np.int64) - (u * a).astype(np.int64)[:, None]
    return np.concatenate([s, np.full((u.shape[0], 1), L - k, dtype=np.int64)], 1)


def _pool(name, nd, input, kernel_size, output_size, output_ratio, _random_samples):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (nd + 1, nd + 2):
        lo = -(input.dim())
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {-lo - 1}], "
                         f"but got {-(nd + 1)})")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    N, C = x.shape[0], x.shape[1]
    spatial = tuple(x.shape[2:])
    k = _tuple(kernel_size, nd)
    if output_size is None:
        ratio = _tuple(output_ratio, nd)
        for r in ratio:
            if not 0 < r < 1:
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")
        out = tuple(int(s * r) for s, r in zip(spatial, ratio))
    else:
        out = _tuple(output_size, nd)
    dims = ("time", "height", "width")[3 - nd:]
    for d, (L, O, kk) in enumerate(zip(spatial, out, k)):
        if O + kk - 1 > L:
            raise RuntimeError(f"{name}(): pool {dims[d]} {kk} too large relative to input "
                               f"{dims[d]} {L}")
    if _random_samples is None:
        if not x.dtype.is_floating_point:
            raise NotImplementedError(f'"check_uniform_bounds" not implemented for '
                                      f"'{str(x.dtype).replace('torch.', '').capitalize()}'")
        samples = rand(N, C, nd, dtype=x.dtype)
    else:
        samples = _random_samples
        if samples.dim() != 3:
            raise RuntimeError(f"Expect _random_samples to be 3D tensor, but got: "
                               f"{samples.dim()}D")
        if samples.shape[2] != nd:
            raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                               f"{samples.shape[2]}.")
        if samples.shape[0] < N:
            raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
        if samples.shape[1] != C:
            raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    u = samples.detach()[:N].to(D.float64).numpy().reshape(N * C, nd)
    if nd == 2:
        u = u[:, ::-1]  # 2-D samples are (width, height)
    # per plane, per dim: the element coordinates of every window, shape (P, O_d, k_d)
    coords = [(_starts(u[:, d], spatial[d], out[d], k[d])[:, :, None] + np.arange(k[d]))
              for d in range(nd)]
    P = N * C
    if nd == 2:
        rows = coords[0][:, :, None, :, None]  # shape: (P, OH, 1, KH, 1)
        cols = coords[1][:, None, :, None, :]  # shape: (P, 1, OW, 1, KW)
        flat = rows * spatial[1] + cols  # shape: (P, OH, OW, KH, KW)
    else:
        t = coords[0][:, :, None, None, :, None, None]
        h = coords[1][:, None, :, None, None, :, None]
        w = coords[2][:, None, None, :, None, None, :]
        flat = (t * spatial[1] + h) * spatial[2] + w  # shape: (P, OT, OH, OW, KT, KH, KW)
    plane = int(np.prod(spatial))
    win = int(np.prod(k))
    n_out = int(np.prod(out))
    flat = flat.reshape(P, n_out, win)  # explicit sizes: P may be 0 (an empty batch)
    gidx = tensor(flat + (np.arange(P) * plane)[:, None, None], dtype=D.int64)
    vals = x.reshape(-1)[gidx.reshape(-1)].reshape(P, n_out, win)
    best, arg = vals.max(-1)
    which = tensor(flat, dtype=D.int64).gather(2, arg.unsqueeze(-1)).squeeze(-1)
    shape = (N, C) + out
    best, which = best.reshape(shape), which.reshape(shape)
    if not batched:
        best, which = best.squeeze(0), which.squeeze(0)
    return best, which


@public
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``(output, indices)`` of :func:`fractional_max_pool2d`."""
    return _pool("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                 _random_samples)


@public
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """2-D fractional max pooling of ``(N, C, H, W)`` or ``(C, H, W)`` to ``output_size`` (or
    ``output_ratio`` times the input size) with ``kernel_size`` windows at pseudo-random starts.

    Returns ``(N, C, oH, oW)``, plus the flat ``H * W`` indices when ``return_indices``.
    """
    out, idx = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                                  return_indices, _random_samples)
    return (out, idx) if return_indices else out


@public
def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``(output, indices)`` of :func:`fractional_max_pool3d`."""
    return _pool("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                 _random_samples)


@public
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """3-D fractional max pooling of ``(N, C, T, H, W)`` or ``(C, T, H, W)``; indices are flat
    ``T * H * W`` positions."""
    out, idx = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                                  return_indices, _random_samples)
    return (out, idx) if return_indices else out
