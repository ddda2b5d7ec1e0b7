"""Pooling of ``nn.functional`` (layer L4): max, average, adaptive and power-average pools, max_unpool.

Pools call the primitives of ``_primitives.pooling`` on batched inputs (an unbatched input gets a batch
dim of 1, 1-d pools run as 2-d ones over a height of 1, as in torch).

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_pool1d(ember.tensor([[1., 3., 2., 4.]]), 2).tolist()
    [[3.0, 4.0]]
"""
from __future__ import annotations

from ..overrides import public
from .._primitives import pooling as _P
from ._functional_pad_fold_shuffle import _tup

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d"]


# ------------------------------------------------------------------------------ max / avg pool
def _pool_batch(input, nd, name):
    if input.dim() not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[-nd - 1:]):
        if nd == 1:
            raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                               f"batch size for input, but got:{list(input.shape)}")
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    return input.dim() == nd + 2


def _stride(stride, kernel_size, nd):
    return _tup(kernel_size if stride is None or stride == [] or stride == () else stride, nd)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, name):
    batched = _pool_batch(input, nd, name)
    x = input if batched else input.unsqueeze(0)
    k, s = _tup(kernel_size, nd), _stride(stride, kernel_size, nd)
    p, d = _tup(padding, nd), _tup(dilation, nd)
    if nd == 1:  # torch runs 1-d pools as 2-d ones over a height of 1
        x, k, s, p, d = x.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + p, (1,) + d
    _P.check_pool(name, tuple(x.shape), k, s, p, d, ceil_mode)
    op = _P.max_pool3d if nd == 3 else _P.max_pool2d
    out, idx = op(x, kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=bool(ceil_mode))
    if nd == 1:
        out, idx = out.squeeze(-2), idx.squeeze(-2)
    if not batched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return out, idx


def _publish_pair(fn, with_indices, name: str, doc: str):
    """``name`` and ``name_with_indices`` as public functions (a max pool and its indices form)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    with_indices.__name__ = with_indices.__qualname__ = name + "_with_indices"
    with_indices.__doc__ = f"``{name}`` returning ``(output, indices)``."
    return public(fn), public(with_indices)


def _max_pool_fn(nd):
    name = f"max_pool{nd}d"

    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                     return_indices=False):
        return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, name)

    def fn(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
           return_indices=False):
        out, idx = _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, name)
        return (out, idx) if return_indices else out
    return _publish_pair(fn, with_indices, name,
                         f"{nd}-d max pooling over ``(N, C, *S)``; ``return_indices`` also gives each "
                         f"maximum's flat position within its ``(n, c)`` plane.")


max_pool1d, max_pool1d_with_indices = _max_pool_fn(1)
max_pool2d, max_pool2d_with_indices = _max_pool_fn(2)
max_pool3d, max_pool3d_with_indices = _max_pool_fn(3)


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
              nd, name):
    batched = _pool_batch(input, nd, name)
    x = input if batched else input.unsqueeze(0)
    k, s, p = _tup(kernel_size, nd), _stride(stride, kernel_size, nd), _tup(padding, nd)
    if nd == 1:
        x, k, s, p = x.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + p
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _P.check_pool(name, tuple(x.shape), k, s, p, (1,) * len(k), ceil_mode, avg=True)
    op = _P.avg_pool3d if nd == 3 else _P.avg_pool2d
    out = op(x, kernel_size=k, stride=s, padding=p, ceil_mode=bool(ceil_mode),
             count_include_pad=bool(count_include_pad), divisor_override=divisor_override)
    if nd == 1:
        out = out.squeeze(-2)
    return out if batched else out.squeeze(0)


@public
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling over ``(N, C, L)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


@public
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-d average pooling over ``(N, C, H, W)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")


@public
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-d average pooling over ``(N, C, D, H, W)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3, "avg_pool3d")


# ------------------------------------------------------------------------------ adaptive pools
def _adaptive(input, output_size, nd, kind):
    name = f"adaptive_{kind}_pool{nd}d"
    if input.dim() not in (nd + 1, nd + 2):
        if nd == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor "
                               f"for argument #1 'self' (while checking arguments for {name})")
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got"
                           f"{':' if kind == 'max' else ''} {list(input.shape)}")
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    size = tuple(x.shape[2:])
    if isinstance(output_size, (list, tuple)):
        osz = tuple(size[i] if o is None else int(o) for i, o in enumerate(_tup_none(output_size, nd)))
    else:
        osz = (int(output_size),) * nd
    for i, s in enumerate(x.shape[1:]):
        if s == 0 and (batched or i > 0) or (not batched and x.shape[1] == 0):
            dim = i + (1 if batched else 0)
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with dimension "
                               f"{dim} being empty")
    if nd == 1:
        x, osz = x.unsqueeze(-2), (1,) + osz
    nd2 = max(nd, 2)
    if kind == "avg":
        out = (_P.adaptive_avg_pool3d if nd2 == 3 else _P.adaptive_avg_pool2d)(x, output_size=osz)
        idx = None
    else:
        out, idx = (_P.adaptive_max_pool3d if nd2 == 3 else _P.adaptive_max_pool2d)(x, output_size=osz)
    if nd == 1:
        out = out.squeeze(-2)
        idx = idx.squeeze(-2) if idx is not None else None
    if not batched:
        out = out.squeeze(0)
        idx = idx.squeeze(0) if idx is not None else None
    return out, idx


def _tup_none(v, n):
    v = tuple(v)
    return v * n if len(v) == 1 and n > 1 else v


@public
def adaptive_avg_pool1d(input, output_size):
    """Average pooling to a fixed output length: ``(N, C, L) -> (N, C, output_size)``."""
    return _adaptive(input, output_size, 1, "avg")[0]


@public
def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``(H_out, W_out)``; ``None`` keeps that input size."""
    return _adaptive(input, output_size, 2, "avg")[0]


@public
def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed ``(D_out, H_out, W_out)``."""
    return _adaptive(input, output_size, 3, "avg")[0]


def _adaptive_max_fn(nd):
    def with_indices(input, output_size, return_indices=False):
        return _adaptive(input, output_size, nd, "max")

    def fn(input, output_size, return_indices=False):
        out, idx = _adaptive(input, output_size, nd, "max")
        return (out, idx) if return_indices else out
    return _publish_pair(fn, with_indices, f"adaptive_max_pool{nd}d",
                         f"Max pooling to a fixed output size over {nd} spatial dims (indices optional).")


adaptive_max_pool1d, adaptive_max_pool1d_with_indices = _adaptive_max_fn(1)
adaptive_max_pool2d, adaptive_max_pool2d_with_indices = _adaptive_max_fn(2)
adaptive_max_pool3d, adaptive_max_pool3d_with_indices = _adaptive_max_fn(3)


# ------------------------------------------------------------------------------ lp pool, unpool
def _lp(input, norm_type, kernel_size, stride, ceil_mode, nd):
    k = _tup(kernel_size, nd)
    avg = (avg_pool1d, avg_pool2d, avg_pool3d)[nd - 1]
    out = avg(input.pow(norm_type), k, stride if stride is not None else k, 0, ceil_mode)
    n = 1
    for v in k:
        n *= v
    return (out.sign() * out.abs().relu()).mul(n).pow(1.0 / norm_type)


@public
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: ``(sum x^p over each window)^(1/p)``."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 1)


@public
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """2-d power-average pooling: ``(sum x^p over each window)^(1/p)``."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 2)


@public
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-d power-average pooling: ``(sum x^p over each window)^(1/p)``."""
    return _lp(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _unpool(input, indices, kernel_size, stride, padding, output_size, nd):
    k, s, p = _tup(kernel_size, nd), _stride(stride, kernel_size, nd), _tup(padding, nd)
    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    idx = indices if batched else indices.unsqueeze(0)
    default = tuple((x.shape[2 + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(nd))
    if output_size is None:
        size = default
    else:
        size = tuple(output_size)[-nd:] if len(output_size) in (nd + 1, nd + 2) else tuple(output_size)
        if len(size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, "
                             f"but it has a length of '{len(output_size)}'")
        for i in range(nd):
            lo, hi = default[i] - s[i], default[i] + s[i]
            if not lo < size[i] < hi:
                raise ValueError(f"invalid output_size \"{list(size)}\" (dim {i} must be between {lo} "
                                 f"and {hi})")
    n, c = x.shape[:2]
    plane = 1
    for v in size:
        plane *= v
    out = x.new_zeros((n, c, plane)).scatter(2, idx.reshape(n, c, -1), x.reshape(n, c, -1))
    out = out.reshape((n, c) + size)
    return out if batched else out.squeeze(0)


@public
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of ``max_pool1d``: maxima back at ``indices``, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 1)


@public
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of ``max_pool2d``: maxima back at ``indices``, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@public
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Inverse of ``max_pool3d``: maxima back at ``indices``, zeros elsewhere."""
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 3)
