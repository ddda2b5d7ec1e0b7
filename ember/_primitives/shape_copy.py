"""Copying shape primitives (layer L1): clone, contiguous, copy_, cat, stack, flip, roll...

Each returns fresh memory; derivatives route the gradient back to the pieces.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dtype_complex32 import cast
from ._meta import same_meta
from ._registry import SlowPath, TensorMeta, primitive


@primitive("clone", kind="other")
def clone(a, *, memory_format=None):
    if memory_format == "contiguous":
        return np.array(a, order="C", copy=True)
    return np.array(a, order="K", copy=True)


@clone.meta
def _(a, *, memory_format=None):
    return TensorMeta(tuple(a.shape), a.dtype)


@clone.derivative
def _(grad):
    return grad


@primitive("copy", kind="other", node_name="CopyBackwards")
def copy(dst, src):
    """The value ``dst.copy_(src)`` writes: src broadcast to dst's shape, in dst's dtype."""
    return np.array(np.broadcast_to(src, dst.shape), dtype=dst.dtype, copy=True)


@copy.inplace_writer
def _(dst, src, *, out):
    # dst.copy_(src) outside autograd: one pass straight into dst's memory (np.copyto broadcasts and
    # handles overlapping src/dst) instead of materialising src and copying that
    if (out.dtype == D.CHALF_NP) != (getattr(src, "dtype", None) == D.CHALF_NP):  # complex32 pairs
        src = cast(np.asarray(src), out.dtype)
    np.copyto(out, src)


@copy.meta
def _(dst, src):
    target, shape = tuple(dst.shape), tuple(src.shape)
    nd = len(target) - len(shape)
    if nd < 0:
        raise RuntimeError(f"expand({src._type_string()}{{{list(shape)}}}, size={list(target)}): the number "
                           f"of sizes provided ({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(shape)})")
    for i, s in enumerate(shape):
        if s != 1 and s != target[nd + i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[nd + i]}) must match the existing "
                               f"size ({s}) at non-singleton dimension {nd + i}.  Target sizes: "
                               f"{list(target)}.  Tensor sizes: {list(shape)}")
    return TensorMeta(target, dst.dtype)


@copy.derivative
def _(grad, *, src_shape):
    return grad * 0, grad


# ----------------------------------------------------------------------------- cat
def _skipped(shape) -> bool:
    # torch's legacy rule: 1-D empty tensors take part in promotion but not in the shape checks
    return len(shape) == 1 and shape[0] == 0


def cat_dtype(dtypes):
    out = dtypes[0]
    for d in dtypes[1:]:
        out = D.promote_types(out, d)
    return out


def cat_shape(shapes, dim):
    """torch's cat shape checks; returns the output shape."""
    ref, total = None, 0
    for i, s in enumerate(shapes):
        if len(s) == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    for i, s in enumerate(shapes):
        if _skipped(s):
            continue
        if ref is None:
            ref = s
        if len(s) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(s)}")
        for d in range(len(ref)):
            if d != dim and s[d] != ref[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                   f"{ref[d]} but got size {s[d]} for tensor number {i} in the list.")
        total += s[dim]
    if ref is None:
        return (0,)
    return tuple(ref[:dim]) + (total,) + tuple(ref[dim + 1:])


@primitive("cat", kind="other")
def cat(tensors, *, dim, sizes):
    """``sizes``: each input's extent along ``dim`` (None when skipped), so backward saves nothing."""
    dt = cat_dtype([D.FROM_NP[a.dtype] for a in tensors]).np
    cat_shape([a.shape for a in tensors], dim)
    keep = [a for a in tensors if not _skipped(a.shape)]
    if not keep:
        return np.empty((0,), dt)
    if any(a.dtype != dt for a in keep) and (dt == D.CHALF_NP or any(a.dtype == D.CHALF_NP for a in keep)):
        keep = [a if a.dtype == dt else cast(a, dt) for a in keep]  # complex32 pairs: NumPy cannot cast
    return np.concatenate(keep, axis=dim, dtype=dt, casting="unsafe")


@cat.meta
def _(tensors, *, dim, sizes):
    return TensorMeta(cat_shape([tuple(t.shape) for t in tensors], dim),
                      cat_dtype([t.dtype for t in tensors]))


@cat.derivative
def _(grad, *, dim, sizes):
    out, start = [], 0
    for s in sizes:
        if s is None:
            out.append(grad.new_zeros((0,)))
        else:
            out.append(grad.narrow(dim, start, s))
            start += s
    return tuple(out)


# ----------------------------------------------------------------------------- flip / roll
@primitive("flip", kind="other")
def flip(a, *, dims):
    # a copy: ember tensors never carry NumPy's negative strides. dims are normalised already (np.flip's
    # own axis handling costs more than the copy of a small image). The common case first: the last
    # dim alone (a horizontal flip) of a C-contiguous float array, once the row loop is loaded
    if len(dims) == 1 and dims[0] == a.ndim - 1:
        loop = _REVERSE_ROWS[0]
        if loop and a.size >= _ROWS_MIN and a.dtype in _FLOAT_ROWS and a.flags.c_contiguous:
            out = _empty(a.shape, a.dtype)
            loop(a, out)
            return out
    return _flip_copy(a, dims)


def _flip_copy(a, dims):
    """``flip``'s other cases. Reversing the last dim of a C-contiguous array is a loop over rows
    (NumPy's copy of a reversed view is element by element, ~4x a plain copy), on other dtypes as
    unsigned integers of their width; other dims are a reversed-slice view copied (contiguous rows)."""
    if not dims or not a.ndim:  # a 0-d tensor flips along its one (implicit) dim: a copy
        return a.copy()
    last = a.ndim - 1
    if last in dims and a.size >= _ROWS_MIN and a.flags.c_contiguous:
        loop = _REVERSE_ROWS[0]
        if loop is None:
            loop = _compile_reverse_rows()  # None during the warm-up
        rows = a if a.dtype in _ROW_DTYPES else _as_unsigned(a)
        if loop and rows is not None:
            out = _empty(a.shape, a.dtype)
            loop(rows, out if rows is a else out.view(rows.dtype))
            if len(dims) == 1:
                return out
            a, dims = out, [d for d in dims if d != last]
    index = [_ALL] * a.ndim
    for d in dims:
        index[d] = _REVERSED
    return a[tuple(index)].copy()


_ALL, _REVERSED = slice(None), slice(None, None, -1)
_empty = np.empty
_ROWS_MIN = 256  # smaller arrays copy a reversed view (and never import Numba)
# float32/float64 rows are reversed as they are; other dtypes as unsigned integers of their width
# (the same bytes moved: fewer compiled variants, and bfloat16/float16 need no Numba support)
_FLOAT_ROWS = {np.dtype(t): None for t in (np.float32, np.float64)}
_ROW_DTYPES = dict(_FLOAT_ROWS)
_ROW_DTYPES.update({np.dtype(f"u{k}"): None for k in (1, 2, 4, 8)})
_AS_UNSIGNED = {k: np.dtype(f"u{k}") for k in (1, 2, 4, 8)}
_REVERSE_ROWS: list = [None]  # the compiled loop, or False without Numba
REVERSE_ROWS_WARMUP = 1000  # large last-dim flips before the loop is loaded (tests set 0)
_REVERSE_ROWS_CALLS = [0]


def _compile_reverse_rows():
    """The compiled ``_reverse_rows``, False without Numba, or None for the first
    ``REVERSE_ROWS_WARMUP`` calls (Numba's first load costs ~1 s in a fresh process: only code that
    flips often pays it)."""
    _REVERSE_ROWS_CALLS[0] += 1
    if _REVERSE_ROWS_CALLS[0] < REVERSE_ROWS_WARMUP:
        return None
    try:
        from numba import njit  # noqa: PLC0415 (heavy and optional: only large flips use it)
        _REVERSE_ROWS[0] = njit(cache=True, nogil=True)(_reverse_rows)
    except ImportError:
        _REVERSE_ROWS[0] = False
    return _REVERSE_ROWS[0]


def _as_unsigned(a):
    """``a`` seen as unsigned integers of its width (None for widths without one: complex128)."""
    u = _AS_UNSIGNED.get(a.dtype.itemsize)
    return a.view(u) if u is not None else None


def _reverse_rows(src, dst):  # pragma: no cover - compiled by Numba
    """``dst[..., j] = src[..., n - 1 - j]`` for C-contiguous ``src`` and ``dst`` of one shape."""
    n = np.uint64(src.shape[-1])
    s = src.reshape(-1)
    d = dst.reshape(-1)
    if n == 0:
        return
    for r in range(np.uint64(s.size) // n):  # unsigned indices: no wraparound checks, so it vectorises
        start = r * n
        end = start + n - np.uint64(1)
        for j in range(n):
            d[start + j] = s[end - j]


flip.meta(same_meta)


@flip.derivative
def _(grad, *, dims):
    return grad._op(flip, dims=dims)


@primitive("roll", kind="other")
def roll(a, *, shifts, dims):
    if not dims:
        return np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    return np.roll(a, shifts, dims)


roll.meta(same_meta)


@roll.derivative
def _(grad, *, shifts, dims):
    return grad._op(roll, shifts=tuple(-s for s in shifts), dims=dims)


# ----------------------------------------------------------------------------- tril / triu
def _tri_meta(a, *, diagonal=0):
    if a.dim() < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return TensorMeta(tuple(a.shape), a.dtype)


@primitive("tril", kind="other")
def tril(a, *, diagonal=0):
    if a.ndim < 2:
        raise SlowPath
    return np.tril(a, diagonal)


tril.meta(_tri_meta)


@tril.derivative
def _(grad, *, diagonal):
    return grad._op(tril, diagonal=diagonal)


@primitive("triu", kind="other")
def triu(a, *, diagonal=0):
    if a.ndim < 2:
        raise SlowPath
    return np.triu(a, diagonal)


@triu.meta
def _(a, *, diagonal=0):
    if a.dim() < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return TensorMeta(tuple(a.shape), a.dtype)


@triu.derivative
def _(grad, *, diagonal):
    return grad._op(triu, diagonal=diagonal)


# ----------------------------------------------------------------------------- index builders
@primitive("repeat_interleave", kind="other")
def repeat_interleave(repeats, *, output_size=None):
    """``[0] * r0 + [1] * r1 + ...`` for the 1-D non-negative integer ``repeats``."""
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype.kind not in "iu":
        raise RuntimeError("repeats has to be Long or Int tensor")
    if repeats.size and repeats.min() < 0:
        raise RuntimeError("repeats can not be negative")
    out = np.repeat(np.arange(repeats.size, dtype=repeats.dtype), repeats)
    if output_size is not None and out.size != output_size:
        raise RuntimeError("allocated size does not match required size")
    return out


@repeat_interleave.meta
def _(repeats, *, output_size=None):
    if output_size is None:
        raise NotImplementedError("aten::repeat_interleave.Tensor: attempted to run this operator with "
                                  "Meta tensors, but its output shape depends on the data; pass "
                                  "output_size")
    return TensorMeta((output_size,), repeats.dtype)


def _tri_count(row, col, offset, upper):
    fn = np.triu_indices if upper else np.tril_indices
    return fn(row, offset, col)


@primitive("tri_indices", kind="creation")
def tri_indices(*, row, col, offset=0, upper=False, dtype, device=None):
    """(2, N) coordinates of the lower (``upper``: upper) triangle of a ``row`` x ``col`` matrix."""
    r, c = _tri_count(row, col, offset, upper)
    return np.stack([r, c]).astype(dtype.np)


@tri_indices.meta
def _(*, row, col, offset=0, upper=False, dtype, device=None):
    return TensorMeta((2, len(_tri_count(row, col, offset, upper)[0])), dtype)


__all__ = ["clone", "copy", "cat", "flip", "roll", "tril", "triu", "cat_shape", "cat_dtype",
           "same_meta", "repeat_interleave", "tri_indices"]
