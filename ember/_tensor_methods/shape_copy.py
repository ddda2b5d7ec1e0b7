"""Copying shape methods (layer L2): cat, stack, flip, roll, repeat, tile, tril/triu, broadcasting.

Primitives (cat, flip, roll, tril, triu) live in ``ops/shape_copy.py``; the rest are composites of
ember ops, so they get autograd and meta shapes for free.

Example:
    >>> import ember
    >>> ember.cat([ember.zeros(1, 2), ember.ones(2, 2)]).shape
    torch.Size([3, 2])
"""
from __future__ import annotations

import warnings

from .._dispatch import dispatch, dispatch_inplace, dispatch_out
from .._shape import broadcast_shapes as _broadcast_shapes, normalize_dim
from ..ops import shape_copy as SC
from ..overrides import public
from ._args import TensorBase, size_args

__all__ = ["ShapeCopyMixin", "FUNCTIONS"]


def _tensor_list(tensors, name: str) -> list:
    if isinstance(tensors, TensorBase) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for t in tensors:
        if not isinstance(t, TensorBase):
            raise TypeError(f"expected Tensor as element {list(tensors).index(t)} in argument 0, but got "
                            f"{type(t).__name__}")
    return list(tensors)


@public
def cat(tensors, dim=0, *, out=None):
    """Concatenate tensors along ``dim`` (dtypes promote; 1-D empty tensors are skipped).

    >>> import ember
    >>> ember.cat([ember.tensor([1, 2]), ember.tensor([3.])])
    tensor([1., 2., 3.])
    """
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    ref = next((t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)), tensors[0])
    dim = normalize_dim(dim, ref.dim())
    sizes = tuple(None if t.dim() == 1 and t.shape[0] == 0 and t is not ref else
                  (t.shape[dim] if t.dim() > dim else None) for t in tensors)
    if out is not None:
        return dispatch_out(SC.cat, out, tensors, dim=dim, sizes=sizes)
    return dispatch(SC.cat, tensors, dim=dim, sizes=sizes)


concat = concatenate = cat


@public
def stack(tensors, dim=0, *, out=None):
    """Join equally shaped tensors along a new dim ``dim``.

    >>> import ember
    >>> ember.stack([ember.zeros(2), ember.ones(2)], 1).shape
    torch.Size([2, 2])
    """
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape0 = tuple(tensors[0].shape)
    for i, t in enumerate(tensors[1:], 1):
        if tuple(t.shape) != shape0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape0)} at "
                               f"entry 0 and {list(t.shape)} at entry {i}")
    dim = normalize_dim(dim, len(shape0) + 1)
    return cat([t.unsqueeze(dim) for t in tensors], dim, out=out)


def _atleast(t, n):
    if t.dim() >= n:
        return t
    if n == 3 and t.dim() == 2:
        return t.unsqueeze(-1)
    if n == 3 and t.dim() == 1:
        return t.reshape(1, -1, 1)
    return t.reshape((1,) * (n - max(t.dim(), 1)) + (tuple(t.shape) or (1,)))


@public
def hstack(tensors, *, out=None):
    """Concatenate along dim 1 (dim 0 for 1-D inputs)."""
    ts = [_atleast(t, 1) for t in _tensor_list(tensors, "hstack")]
    return cat(ts, 0 if ts and ts[0].dim() == 1 else 1, out=out)


@public
def vstack(tensors, *, out=None):
    """Concatenate along dim 0 after making inputs at least 2-D."""
    return cat([_atleast(t, 2) for t in _tensor_list(tensors, "vstack")], 0, out=out)


row_stack = vstack


@public
def dstack(tensors, *, out=None):
    """Concatenate along dim 2 after making inputs at least 3-D."""
    return cat([_atleast(t, 3) for t in _tensor_list(tensors, "dstack")], 2, out=out)


@public
def column_stack(tensors, *, out=None):
    """Stack 0-D/1-D inputs as columns, concatenate the rest along dim 1."""
    ts = [t.reshape(-1, 1) if t.dim() <= 1 else t for t in _tensor_list(tensors, "column_stack")]
    return cat(ts, 1, out=out)


def _dims(dims, n):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    out = tuple(normalize_dim(d, n) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return out


@public
def flip(input, *dims):
    """Reverse the order of elements along ``dims`` (a copy).

    >>> import ember
    >>> ember.arange(3).flip(0)
    tensor([2, 1, 0])
    """
    return dispatch(SC.flip, input, dims=_dims(dims, input.dim()))


@public
def fliplr(input):
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


@public
def flipud(input):
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


@public
def roll(input, shifts, dims=None):
    """Shift elements circularly along ``dims`` (the flattened tensor when None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return dispatch(SC.roll, input, shifts=shifts, dims=())
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    dims = tuple(normalize_dim(d, input.dim()) for d in dims)
    return dispatch(SC.roll, input, shifts=shifts, dims=dims)


@public
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input.dim()
    d0, d1 = normalize_dim(dims[0], n), normalize_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return flip(input, d1).transpose(d0, d1)
    if k == 2:
        return flip(input, d0, d1)
    if k == 3:
        return flip(input, d0).transpose(d0, d1)
    return input.clone()


def repeat(self, *sizes):
    """Tile ``self`` ``sizes[i]`` times along dim i (leading new dims allowed); a copy.

    >>> import ember
    >>> ember.tensor([1, 2]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    sizes = size_args(sizes, "repeat")
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(sizes)}")
    x = self
    for _ in range(len(sizes) - self.dim()):
        x = x.unsqueeze(0)
    expanded, final = [], []
    for i, (r, s) in enumerate(zip(sizes, tuple(x.shape))):
        expanded += [r, s]
        final.append(r * s)
    for i in range(len(sizes)):
        x = x.unsqueeze(2 * i)  # shape: (1, s0, 1, s1, ...)
    # shape: (r0, s0, r1, s1, ...) -> (r0*s0, r1*s1, ...)
    return dispatch(SC.clone, x.expand(expanded), memory_format="contiguous").view(final)


@public
def tile(input, dims):
    """``repeat`` with ``dims`` padded with leading ones to the tensor's rank."""
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    dims = (1,) * (input.dim() - len(dims)) + dims
    return repeat(input, *dims)


def _tri(op, name):
    def method(input, diagonal=0, *, out=None):
        if out is not None:
            return dispatch_out(op, out, input, diagonal=diagonal)
        return dispatch(op, input, diagonal=diagonal)

    def inplace(input, diagonal=0):
        return dispatch_inplace(op, input, diagonal=diagonal)
    method.__name__, inplace.__name__ = name, name + "_"
    method.__doc__ = f"The {'lower' if name == 'tril' else 'upper'} triangle of the last two dims " \
                     "(offset by ``diagonal``); other elements are zero."
    return public(method), public(inplace)


tril, tril_ = _tri(SC.tril, "tril")
triu, triu_ = _tri(SC.triu, "triu")


def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to.

    >>> import ember
    >>> ember.broadcast_shapes((2, 1), (3,))
    torch.Size([2, 3])
    """
    from .._shape import Size
    return Size(_broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes]))


@public
def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = _broadcast_shapes(*[tuple(t.shape) for t in tensors])
    return tuple(t.expand(shape) for t in tensors)


@public
def broadcast_to(input, size):
    """A view of ``input`` expanded to ``size`` (-1 keeps a dim)."""
    return input.expand(size_args((size,), "broadcast_to"))


@public
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors (``indexing`` 'ij' or 'xy').

    >>> import ember
    >>> [g.shape for g in ember.meshgrid(ember.zeros(2), ember.zeros(3), indexing='ij')]
    [torch.Size([2, 3]), torch.Size([2, 3])]
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                      "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: "
                           f"{indexing}")
    if not tensors:
        raise RuntimeError("torch.meshgrid: Expected at least one tensor")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    ts = [t.unsqueeze(0) if t.dim() == 0 else t for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    n = len(ts)
    grids = [t.reshape((1,) * i + (-1,) + (1,) * (n - i - 1)).expand(shape) for i, t in enumerate(ts)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


class ShapeCopyMixin:
    __slots__ = ()
    flip, fliplr, flipud, roll, rot90 = flip, fliplr, flipud, roll, rot90
    repeat, tile = public(repeat), tile
    tril, tril_, triu, triu_ = tril, tril_, triu, triu_
    broadcast_to = broadcast_to

FUNCTIONS = dict(
    cat=cat, concat=cat, concatenate=cat, stack=stack, hstack=hstack, vstack=vstack,
    row_stack=vstack, dstack=dstack, column_stack=column_stack, flip=flip, fliplr=fliplr,
    flipud=flipud, roll=roll, rot90=rot90, tile=tile, tril=tril, triu=triu,
    broadcast_shapes=broadcast_shapes, broadcast_tensors=broadcast_tensors, broadcast_to=broadcast_to,
    meshgrid=meshgrid,
)
