"""Copying shape methods (layer L2): cat, stack, flip, roll, repeat, tile, tril/triu, broadcasting.

Primitives (cat, flip, roll, tril, triu) live in ``_primitives/shape_copy.py``; the rest are composites of
ember ops, so they get autograd and meta shapes for free.

Example:
    >>> import ember
    >>> ember.cat([ember.zeros(1, 2), ember.ones(2, 2)]).shape
    torch.Size([3, 2])
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np

from .. import _dtype as D
from .._device import get_default_device
from .._dispatch import dispatch, fast_method, wrap
from .._dispatch_inplace import dispatch_inplace, dispatch_out
from .._errors import dtype_title, type_name
from .._shape import broadcast_shapes as _broadcast_shapes, normalize_dim
from .._primitives import shape_copy as SC
from .._primitives import view as V
from ..overrides import public
from . import complex_parts as CP
from ._args import TensorBase, as_device, as_dtype, size_args

__all__ = ["ShapeCopyMixin", "FUNCTIONS"]


def _tensor_list(tensors, name: str) -> list:
    if isinstance(tensors, TensorBase) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, TensorBase):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
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
    if len(dims) == 1 and type(dims[0]) is int and -n <= dims[0] < n:  # x.flip(-1): the common case
        return (dims[0] % n,)
    if len(dims) == 1 and not isinstance(dims[0], (list, tuple)):
        if not _is_dim(dims[0]):
            raise TypeError(f"flip(): argument 'dims' must be tuple of ints, not {type_name(dims[0])}")
    else:  # a list or tuple, or several ints: torch's int-list rules
        dims = tuple(dims[0]) if len(dims) == 1 else dims
        # the first element must be an int proper; later ones may be bools (read as ints), anything
        # else fails (its position counted from 1)
        if dims and not _is_dim(dims[0]):
            raise TypeError(f"flip(): argument 'dims' must be tuple of ints, but found element of type "
                            f"{type_name(dims[0])} at pos 0")
        bad = next((i for i, d in enumerate(dims) if not (type(d) is bool or _is_dim(d))), None)
        if bad is not None:
            raise TypeError(f"flip(): argument 'dims' failed to unpack the object at pos {bad + 1} with "
                            f"error \"type must be tuple of ints,but got {type_name(dims[bad])}\"")
    out = tuple(normalize_dim(d, n) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    return out


def _is_dim(d) -> bool:
    """An int as torch's int lists take one (ints, NumPy integers, integer 0-d tensors; not bools)."""
    return type(d) is not bool and not isinstance(d, (float, complex, str)) and hasattr(d, "__index__")


@public
def flip(input, *dims, **kwargs):
    """Reverse the order of elements along ``dims`` (a copy; ``dims=`` as a keyword too).

    >>> import ember
    >>> ember.arange(3).flip(0)
    tensor([2, 1, 0])
    """
    if kwargs:
        if dims or set(kwargs) != {"dims"}:
            raise TypeError(f"flip() got an unexpected keyword argument {next(iter(set(kwargs) - {'dims'}), 'dims')!r}")
        dims = (kwargs["dims"],)
    if not dims:
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    return dispatch(SC.flip, input, dims=_dims(dims, input.dim()))


def _flip_params(d, dims):
    """``x.flip(k)``'s params for one int ``k`` in range of the array ``d`` (else None, or IndexError
    for ``k`` out of range: ``flip`` then runs and raises torch's error). The dicts are made once
    (params are never written): ``_FLIP_PARAMS[n][k]`` is ``{"dims": (k % n,)}``."""
    if len(dims) == 1 and type(k := dims[0]) is int:
        return _FLIP_PARAMS[d.ndim][k]
    return None


_FLIP_PARAMS = tuple(tuple({"dims": (k,)} for k in range(n)) for n in range(17))  # ndim > 16: IndexError


# the method: ``x.flip(-1)`` on the fast path, generated from the op (anything else calls ``flip``)
_flip_method = fast_method(SC.flip, flip, params_of=_flip_params, public=True)


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


# ----------------------------------------------------------------------------- repeat_interleave
@public
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element (slice along ``dim``; of the flattened input when None) ``repeats`` times;
    ``repeat_interleave(repeats)`` alone gives the index ``[0]*r0 + [1]*r1 + ...``.

    >>> import ember
    >>> ember.repeat_interleave(ember.tensor([1, 2]), 2).tolist()
    [1, 1, 2, 2]
    """
    if repeats is None:
        return dispatch(SC.repeat_interleave, input, **_osize(output_size))
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = normalize_dim(dim, input.dim())
        if input.dim() == 0:
            input = input.reshape(1)
    n = input.shape[d]
    if isinstance(repeats, TensorBase):
        if repeats.dim() > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if repeats.numel() == 1 and n != 1:
            repeats = repeats.reshape(1).expand(n).contiguous()
        elif repeats.shape[0] != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = {n}")
        idx = dispatch(SC.repeat_interleave, repeats.reshape(-1), **_osize(output_size))
        return input.index_select(d, idx.long())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = tuple(input.shape)
    out = input.unsqueeze(d + 1).expand(shape[:d + 1] + (repeats,) + shape[d + 1:])
    out = out.reshape(shape[:d] + (n * repeats,) + shape[d + 1:])
    return out.clone() if out._base is not None else out  # a copy, as in torch, even when a view would do


def _osize(output_size):
    return {} if output_size is None else {"output_size": int(output_size)}


def _tri_indices(upper):
    def fn(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
        dt = as_dtype(dtype) or D.int64
        if dt not in (D.int64, D.int32):
            raise NotImplementedError(f'"{"triu" if upper else "tril"}_indices" not implemented for '
                                      f"'{dtype_title(dt)}'")
        dev = as_device(device) if device is not None else get_default_device()
        return dispatch(SC.tri_indices, row=int(row), col=int(col), offset=int(offset), upper=upper,
                        dtype=dt, device=dev)
    name = "triu_indices" if upper else "tril_indices"
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"(2, N) row and column indices of the {'upper' if upper else 'lower'} triangle of a "
                  "``row`` x ``col`` matrix (``offset`` shifts the diagonal).\n\n"
                  f"    >>> import ember\n    >>> ember.{name}(3, 3, device='meta').shape\n"
                  "    torch.Size([2, 6])")
    return fn


tril_indices, triu_indices = _tri_indices(False), _tri_indices(True)


# ----------------------------------------------------------------------------- diagonals and scatters
@public
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensors whose (``dim1``, ``dim2``) diagonals at ``offset`` hold the last dim of ``input``."""
    nd = input.dim() + 1
    d1, d2 = normalize_dim(dim1, nd), normalize_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    m = input.shape[-1] + abs(offset)
    rest = iter(input.shape[:-1])
    shape = tuple(m if i in (d1, d2) else next(rest) for i in range(nd))
    out = input.new_zeros(shape)
    out.diagonal(offset, d1, d2).copy_(input)
    return out


@public
def diag(input, diagonal=0, *, out=None):
    """1-D input: a square matrix with it on a diagonal; 2-D input: a copy of a diagonal."""
    if input.dim() == 1:
        res = diag_embed(input, diagonal, 0, 1)
    elif input.dim() == 2:
        res = input.diagonal(diagonal).clone()
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
    return res if out is None else _copy_to(out, res)


def _copy_to(out, res):
    if tuple(out.shape) != tuple(res.shape):
        out._resize_for_out(tuple(res.shape))
    return out.copy_(res)


@public
def diagflat(input, offset=0):
    """A square matrix with the flattened ``input`` on diagonal ``offset``."""
    return diag_embed(input.reshape(-1), offset, 0, 1)


def _scatter_into(input, view_of, src):
    out = input.clone()
    view = view_of(out)
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")
    view.copy_(src)
    return out


@public
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written onto its (``dim1``, ``dim2``) diagonal."""
    return _scatter_into(input, lambda t: t.diagonal(offset, dim1, dim2), src)


@public
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``index`` of ``dim``."""
    return _scatter_into(input, lambda t: t.select(dim, index), src)


@public
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` written into the slice ``start:end:step`` of ``dim``."""
    d = normalize_dim(dim, input.dim())
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_into(input, lambda t: t[key], src)


@public
def narrow_copy(input, dim, start, length):
    """A copy of ``input.narrow(dim, start, length)``."""
    return input.narrow(dim, start, length).clone()


# ----------------------------------------------------------------------------- combinatorics
def _vector(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    return t


@public
def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, as rows of a (N, len(tensors)) tensor."""
    ts = [_vector(t) for t in tensors]
    if len(ts) == 1:
        return ts[0]
    return stack([g.reshape(-1) for g in meshgrid(*ts, indexing="ij")], 1)


@public
def combinations(input, r=2, with_replacement=False):
    """Rows of the length-``r`` combinations of the 1-D ``input`` (itertools order)."""
    _vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    n = input.shape[0]
    # the index rows depend only on (n, r): built in C by itertools, then one gather
    idx = np.fromiter(itertools.chain.from_iterable(gen(range(n), r)), np.int64).reshape(-1, r)
    return input[input.new_tensor(idx, dtype=D.int64)]


@public
def block_diag(*tensors):
    """A block-diagonal matrix of the 0-D, 1-D (one row) or 2-D inputs (dtypes promoted)."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
        blocks.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not blocks:
        return wrap(np.zeros((1, 0), D.get_default_dtype().np))
    dt = blocks[0].dtype
    for b in blocks[1:]:
        dt = D.promote_types(dt, b.dtype)
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    out = blocks[0].new_zeros((rows, cols), dtype=dt)
    r = c = 0
    for b in blocks:
        h, w = b.shape
        out[r:r + h, c:c + w] = b
        r, c = r + h, c + w
    return out


def _atleast_fn(n):
    def fn(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(_atleast(t, n) for t in tensors[0])
        res = tuple(_atleast(t, n) for t in tensors)
        return res[0] if len(res) == 1 else res
    fn.__name__ = fn.__qualname__ = f"atleast_{n}d"
    fn.__doc__ = f"Inputs viewed with at least {n} dimensions (a tuple for several inputs)."
    return public(fn)


atleast_1d, atleast_2d, atleast_3d = _atleast_fn(1), _atleast_fn(2), _atleast_fn(3)


def _split_fn(name, dim, min_dim):
    def fn(input, indices_or_sections):
        if input.dim() < min_dim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but "
                               f"got a tensor with {input.dim()} dimensions!")
        d = 0 if name == "hsplit" and input.dim() == 1 else dim
        if isinstance(indices_or_sections, int):
            n = input.shape[d]
            if indices_or_sections == 0 or n % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size "
                                   f"of the dimension {n} is not divisible by the split_size "
                                   f"{indices_or_sections}!")
        return input.tensor_split(indices_or_sections, d)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tensor_split`` along dim {dim} (sections must divide the dim evenly)."
    return public(fn)


hsplit, vsplit, dsplit = _split_fn("hsplit", 1, 1), _split_fn("vsplit", 0, 2), _split_fn("dsplit", 2, 3)


# ----------------------------------------------------------------------------- *_copy and function forms of methods
def _cloned(res):
    return tuple(r.clone() for r in res) if isinstance(res, (tuple, list)) else res.clone()


def _copy_variant(name, view):
    def fn(input, *args, **kwargs):
        return _cloned(view(input, *args, **kwargs))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"A copy of ``{name[:-5]}``'s result (which would be a view)."
    return public(fn)


def _slice(input, dim=0, start=None, end=None, step=1):
    d = normalize_dim(dim, input.dim())
    return input[(slice(None),) * d + (slice(start, end, step),)]


_COPIES = {
    "alias_copy": lambda x: x, "as_strided_copy": lambda x, *a, **k: x.as_strided(*a, **k),
    "detach_copy": lambda x: x.detach(), "diagonal_copy": lambda x, *a, **k: x.diagonal(*a, **k),
    "expand_copy": lambda x, size, *, implicit=False: x.expand(size),
    "permute_copy": lambda x, dims: x.permute(dims), "select_copy": lambda x, d, i: x.select(d, i),
    "slice_copy": _slice, "split_copy": lambda x, s, dim=0: x.split(s, dim),
    "split_with_sizes_copy": lambda x, s, dim=0: x.split(list(s), dim),
    "squeeze_copy": lambda x, *a: x.squeeze(*a), "t_copy": lambda x: x.t(),
    "transpose_copy": lambda x, d0, d1: x.transpose(d0, d1), "unbind_copy": lambda x, dim=0: x.unbind(dim),
    "unfold_copy": lambda x, dimension, size, step: x.unfold(dimension, size, step),
    "unsqueeze_copy": lambda x, d: x.unsqueeze(d), "view_copy": lambda x, *a: x.view(*a),
}
COPY_FUNCTIONS = {n: _copy_variant(n, v) for n, v in _COPIES.items()}


def _method_function(name, doc, call=None):
    def fn(input, *args, **kwargs):
        return (call or getattr(type(input), name))(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return public(fn)


def _fill(input, value):
    if isinstance(value, TensorBase):
        if value.dim():
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with "
                               f"{value.dim()} dimensions.")
        return value.to(input.dtype).expand(tuple(input.shape)).clone()
    res = input.new_full(tuple(input.shape), value)
    if input.requires_grad:  # torch records FillBackward: a zero gradient for input
        res = input.where(input.new_zeros(tuple(input.shape), dtype=D.bool), res)
    return res


def _unsafe(outs):
    """The unsafe_ forms: outputs that may be written in place (no multi-output-view tag)."""
    for o in outs:
        if o._ameta is not None:
            o._ameta.multi_view = None
    return outs


METHOD_FUNCTIONS = {
    "clone": _method_function("clone", "A copy of ``input`` (recorded by autograd)."),
    "detach": _method_function("detach", "``input`` cut from the autograd graph (shares memory)."),
    "detach_": _method_function("detach_", "Cut ``input`` from the autograd graph in place."),
    "fill": _method_function("fill", "A tensor shaped like ``input`` filled with ``value``.", _fill),
    "fill_": _method_function("fill_", "Fill ``input`` with ``value`` in place."),
    "zero_": _method_function("zero_", "Fill ``input`` with zeros in place."),
    "conj": _method_function("conj", "The complex conjugate (``input`` itself for real dtypes)."),
    "resolve_conj": _method_function("resolve_conj", "``input`` with any lazy conjugation applied."),
    "resolve_neg": _method_function("resolve_neg", "``input`` with any lazy negation applied."),
    "is_conj": _method_function("is_conj", "Whether ``input`` is a lazily conjugated view."),
    "real": _method_function("real", CP.real.__doc__, CP.real),
    "imag": _method_function("imag", CP.imag.__doc__, CP.imag),
    "split_with_sizes": _method_function("split_with_sizes", "Split into pieces of the given sizes.",
                                         lambda x, sizes, dim=0: x.split(list(sizes), dim)),
    "unsafe_split": _method_function("unsafe_split", "``split`` (torch skips a view check).",
                                     lambda x, s, dim=0: _unsafe(x.split(s, dim))),
    "unsafe_split_with_sizes": _method_function("unsafe_split_with_sizes", "``split_with_sizes``.",
                                                lambda x, s, dim=0: _unsafe(x.split(list(s), dim))),
    "unsafe_chunk": _method_function("unsafe_chunk", "``chunk`` (torch skips a view check).",
                                     lambda x, c, dim=0: _unsafe(x.chunk(c, dim))),
}


@public
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written through ``as_strided(size, stride, storage_offset)``
    of the copy (laid out as ``clone()`` lays it out; the offset counts from the copy's start)."""
    return dispatch(V.as_strided_scatter, input, src, size=tuple(size), stride=tuple(stride),
                    storage_offset=0 if storage_offset is None else int(storage_offset))


class ShapeCopyMixin:
    __slots__ = ()
    flip, fliplr, flipud, roll, rot90 = _flip_method, fliplr, flipud, roll, rot90
    repeat, tile = public(repeat), tile
    tril, tril_, triu, triu_ = tril, tril_, triu, triu_
    broadcast_to = broadcast_to
    repeat_interleave, diag, diag_embed, diagflat = repeat_interleave, diag, diag_embed, diagflat
    diagonal_scatter, select_scatter, slice_scatter = diagonal_scatter, select_scatter, slice_scatter
    narrow_copy, hsplit, vsplit, dsplit = narrow_copy, hsplit, vsplit, dsplit
    as_strided_scatter = as_strided_scatter
    unsafe_split = METHOD_FUNCTIONS["unsafe_split"]
    unsafe_split_with_sizes = METHOD_FUNCTIONS["unsafe_split_with_sizes"]
    unsafe_chunk = METHOD_FUNCTIONS["unsafe_chunk"]

FUNCTIONS = dict(
    cat=cat, concat=cat, concatenate=cat, stack=stack, hstack=hstack, vstack=vstack,
    row_stack=vstack, dstack=dstack, column_stack=column_stack, flip=flip, fliplr=fliplr,
    flipud=flipud, roll=roll, rot90=rot90, tile=tile, tril=tril, triu=triu,
    broadcast_shapes=broadcast_shapes, broadcast_tensors=broadcast_tensors, broadcast_to=broadcast_to,
    meshgrid=meshgrid, repeat_interleave=repeat_interleave, tril_indices=tril_indices,
    triu_indices=triu_indices, diag=diag, diag_embed=diag_embed, diagflat=diagflat,
    diagonal_scatter=diagonal_scatter, select_scatter=select_scatter, slice_scatter=slice_scatter,
    narrow_copy=narrow_copy, cartesian_prod=cartesian_prod, combinations=combinations,
    block_diag=block_diag, atleast_1d=atleast_1d, atleast_2d=atleast_2d, atleast_3d=atleast_3d,
    hsplit=hsplit, vsplit=vsplit, dsplit=dsplit, as_strided_scatter=as_strided_scatter,
    **COPY_FUNCTIONS, **METHOD_FUNCTIONS,
)
