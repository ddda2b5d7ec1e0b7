"""Pure shape and stride arithmetic (layer L0): no arrays, no tensors, only tuples of ints.

Example:
    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
"""
from __future__ import annotations

import math
from typing import Sequence

__all__ = ["Size", "contiguous_strides", "broadcast_shapes", "normalize_dim", "view_strides",
           "infer_size", "is_contiguous", "numel"]


class Size(tuple):
    """``ember.Size``: the shape of a tensor, a tuple of ints."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))


def numel(shape: Sequence[int]) -> int:
    return math.prod(shape)


def contiguous_strides(shape: Sequence[int]) -> tuple:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """torch's rule: dims of size 1 may have any stride; an empty tensor is contiguous."""
    if 0 in shape:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def broadcast_shapes(*shapes: Sequence[int]) -> tuple:
    """NumPy/torch broadcasting; raises RuntimeError naming the mismatching sizes."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i, s in enumerate(shape):
            cur = out[offset + i]
            if cur == 1:
                out[offset + i] = s
            elif s != 1 and s != cur:
                raise RuntimeError(
                    f"The size of tensor a ({cur}) must match the size of tensor b ({s}) at "
                    f"non-singleton dimension {offset + i}")
    return tuple(out)


def normalize_dim(dim: int, ndim: int, op: str = "") -> int:
    """Wrap a negative dim; IndexError in torch's words when out of range."""
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], "
                         f"but got {dim})")
    return dim + bound if dim < 0 else dim


def normalize_dims(dims, ndim: int) -> tuple:
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, int):
        dims = (dims,)
    out = tuple(normalize_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return out


def infer_size(shape: Sequence[int], n: int) -> tuple:
    """Resolve a single -1 in ``shape`` for a tensor of ``n`` elements (view/reshape)."""
    shape = tuple(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    if neg:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 and n == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because "
                               f"the unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        shape = shape[:neg[0]] + (n // known,) + shape[neg[0] + 1:]
    if math.prod(shape) != n:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    return shape


def view_strides(old_shape: Sequence[int], old_strides: Sequence[int], new_shape: Sequence[int]):
    """Strides that let ``new_shape`` view memory laid out as (old_shape, old_strides), or None.

    torch's computeStride: chunks of old dims that are contiguous among themselves can be split or
    merged; anything else needs a copy.
    """
    if math.prod(old_shape) == 0:
        # torch keeps the strides when the shape is unchanged, else uses contiguous ones
        return tuple(old_strides) if tuple(old_shape) == tuple(new_shape) else \
            contiguous_strides(new_shape)
    if not old_shape:
        return (1,) * len(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1] if old_strides else 1
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)
