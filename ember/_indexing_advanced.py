"""Advanced indexing (layer L2): integer tensors/lists and boolean masks, via ``index``/``index_put``.

A boolean mask over k dims becomes k integer index tensors (``nonzero``), so masks and integer indices
share torch's rule for where the indexed dims go: adjacent advanced indices replace their dims in
place, separated ones (by a slice) move the broadcast index dims to the front.
"""
from __future__ import annotations

from ._dispatch import dispatch
from ._dispatch_inplace import dispatch_inplace
from ._errors import dtype_title
from ._primitives import indexing as I

__all__ = ["advanced_getitem", "advanced_setitem", "index_list"]


def index_list(view, advanced) -> list:
    """``[(dim, index)]`` -> one entry per leading dim of ``view``: an integer tensor or None."""
    indices = [None] * view.dim()
    last = -1
    for dim, idx in advanced:
        if idx.dtype.name in ("bool", "uint8"):
            k = idx.dim()
            for j in range(k):
                if idx.shape[j] != view.shape[dim + j]:
                    raise IndexError(f"The shape of the mask {list(idx.shape)} at index {j} does not match "
                                     f"the shape of the indexed tensor {list(view.shape)} at index "
                                     f"{dim + j}")
            nz = dispatch(I.nonzero, idx if idx.dtype.name == "bool" else idx.bool())
            for j in range(k):
                indices[dim + j] = nz.select(1, j)
            last = max(last, dim + k - 1)
        else:
            if idx.dtype.category >= 2:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            indices[dim] = idx
            last = max(last, dim)
    return indices[:last + 1]


def advanced_getitem(view, advanced):
    return dispatch(I.index, view, index_list(view, advanced))


def advanced_setitem(view, advanced, value):
    indices = index_list(view, advanced)
    target = I.index_shape(tuple(view.shape), indices)
    extra = value.dim() - len(target)
    if extra > 0 and all(s == 1 for s in value.shape[:extra]):
        value = value.reshape(tuple(value.shape[extra:]))
    dispatch_inplace(I.index_put, view, indices, value, accumulate=False)


def index_put(input, indices, values, accumulate=False):
    """``input.index_put(indices, values, accumulate)``: out-of-place ``input[indices] = values``."""
    indices, values = _put_args(input, indices, values)
    return dispatch(I.index_put, input, indices, values, accumulate=accumulate)


def index_put_(input, indices, values, accumulate=False):
    indices, values = _put_args(input, indices, values)
    return dispatch_inplace(I.index_put, input, indices, values, accumulate=accumulate)


def _put_args(input, indices, values):
    if values.dtype is not input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{dtype_title(input.dtype)} for the destination and "
                           f"{dtype_title(values.dtype)} for the source.")
    adv, d = [], 0
    for i in indices:
        if i is not None:
            adv.append((d, i))
        d += i.dim() if i is not None and i.dtype.name in ("bool", "uint8") else 1
    if d > input.dim():
        raise IndexError(f"too many indices for tensor of dimension {input.dim()} (got {d})")
    return index_list(input, adv), values
