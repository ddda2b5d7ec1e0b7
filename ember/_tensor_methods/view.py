"""View methods (layer L2): primitives from ``_primitives/view.py`` and the composites torch builds on them.

Every result shares the input's memory (``_base`` and version counter), except ``reshape`` and
``flatten`` when the strides force a copy, as in torch.
"""
from __future__ import annotations

import math
import warnings

from .._dispatch import dispatch
from ..autograd._recording import mark_multi_view
from ..autograd.grad_mode import is_grad_enabled
from .._shape import infer_size, normalize_dim, view_strides
from .._primitives import shape_copy as SC
from .._primitives import view as V
from ..overrides import PLAIN_TYPES, try_torch_function
from ._args import TensorBase, size_args

__all__ = ["ViewMixin", "FUNCTIONS"]


def _multi_view(outs, name):
    """Outputs of a function returning several views: writing into one in place while autograd
    records raises, as in torch (tensor_split and unsafe_split are not such functions)."""
    if is_grad_enabled() and outs and outs[0]._dtype.category >= 2:
        mark_multi_view(outs, name)
    return outs


class ViewMixin:
    __slots__ = ()

    def view(self, *shape):
        """A view with a new shape (one dim may be -1); raises if the strides don't allow it."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.view, (self,), self, *shape)
            if r is not NotImplemented:
                return r
        if len(shape) == 1 and not isinstance(shape[0], (int, list, tuple)) and not \
                isinstance(shape[0], TensorBase) and hasattr(shape[0], "itemsize"):
            return self.view_dtype(shape[0])
        size = infer_size(size_args(shape, "view"), self.numel())
        return dispatch(V.view, self, size=size)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape(self, *shape):
        """Like ``view`` when the strides allow it, else a contiguous copy."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.reshape, (self,), self, *shape)
            if r is not NotImplemented:
                return r
        size = infer_size(size_args(shape, "reshape"), self.numel())
        if size == tuple(self.shape):
            return dispatch(V.view, self, size=size)
        if view_strides(tuple(self.shape), self.stride(), size) is not None:
            return dispatch(V.view, self, size=size)
        return dispatch(V.view, dispatch(SC.clone, self, memory_format="contiguous"), size=size)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def permute(self, *dims):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.permute, (self,), self, *dims)
            if r is not NotImplemented:
                return r
        n = self.dim()
        dims = tuple(normalize_dim(d, n) for d in size_args(dims, "permute"))
        if len(dims) != n or len(set(dims)) != n:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                               f"not match the length of the desired ordering of dimensions i.e. input."
                               f"dim() = {n} is not equal to len(dims) = {len(dims)}" if len(dims) != n
                               else "permute(): duplicate dims are not allowed.")
        return dispatch(V.permute, self, dims=dims)

    def transpose(self, dim0, dim1):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.transpose, (self,), self, dim0, dim1)
            if r is not NotImplemented:
                return r
        n = self.dim()
        d0, d1 = normalize_dim(dim0, n), normalize_dim(dim1, n)
        if n == 0:
            return dispatch(V.alias, self)
        return dispatch(V.transpose, self, dim0=d0, dim1=d1)

    swapaxes = swapdims = transpose

    def t(self):
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        return self.transpose(0, 1) if self.dim() == 2 else self.transpose(0, 0)

    @property
    def T(self):
        return self.permute(*reversed(range(self.dim())))

    @property
    def mT(self):
        if self.dim() == 0:  # torch 2.13: the identity, with a deprecation warning
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
                          "cases.", UserWarning, stacklevel=2)
            return self.view(())
        if self.dim() < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got "
                               f"{self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def mH(self):
        return self.mT.conj()

    @property
    def H(self):
        return self.T.conj() if self.dim() == 2 else self.T

    def adjoint(self):
        return self.mH

    def expand(self, *sizes):
        """Broadcast to ``sizes`` without copying (-1 keeps a dim)."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.expand, (self,), self, *sizes)
            if r is not NotImplemented:
                return r
        sizes = size_args(sizes, "expand")
        shape = tuple(self.shape)
        if len(sizes) < len(shape):
            raise RuntimeError(f"expand({self._type_string()}{{{list(shape)}}}, size={list(sizes)}): the "
                               "number of sizes provided "
                               f"({len(sizes)}) must be greater or equal to the number of dimensions in "
                               f"the tensor ({len(shape)})")
        nd = len(sizes) - len(shape)
        out = list(sizes)
        for i, s in enumerate(shape):
            want = sizes[nd + i]
            if want == -1:
                out[nd + i] = s
            elif s != 1 and s != want:
                raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing "
                                   f"size ({s}) at non-singleton dimension {nd + i}.  Target sizes: "
                                   f"{list(sizes)}.  Tensor sizes: {list(shape)}")
        for i in range(nd):
            if out[i] < 0:
                raise RuntimeError(f"The expanded size of the tensor ({out[i]}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
        out = tuple(out)
        if out == shape:
            return dispatch(V.alias, self)
        return dispatch(V.expand, self, size=out)

    def expand_as(self, other):
        return self.expand(other.shape)

    def select(self, dim, index):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.select, (self,), self, dim, index)
            if r is not NotImplemented:
                return r
        if self.dim() == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        dim = normalize_dim(dim, self.dim())
        n = self.shape[dim]
        index = int(index)
        if not -n <= index < n:
            raise IndexError(f"select(): index {index} out of range for tensor of size "
                             f"{list(self.shape)} at dimension {dim}")
        return dispatch(V.select, self, dim=dim, index=index % n)

    def slice(self, dim=0, start=None, end=None, step=1):
        """``self[..., start:end:step]`` along ``dim`` (torch's ``slice`` op)."""
        dim = normalize_dim(dim, self.dim())
        if step <= 0:
            raise ValueError("step must be greater than zero")
        n = self.shape[dim]
        s, e, _ = _builtin_slice(start, end, step).indices(n)
        e = max(e, s)
        return dispatch(V.slice_, self, dim=dim, start=s, end=e, step=step)

    def narrow(self, dim, start, length):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.narrow, (self,), self, dim, start, length)
            if r is not NotImplemented:
                return r
        dim = normalize_dim(dim, self.dim())
        n = self.shape[dim]
        start = int(start)
        if start < 0:
            start += n
        if not 0 <= start <= n or length < 0 or start + length > n:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
        return dispatch(V.slice_, self, dim=dim, start=start, end=start + length, step=1)

    def unsqueeze(self, dim):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.unsqueeze, (self,), self, dim)
            if r is not NotImplemented:
                return r
        return dispatch(V.unsqueeze, self, dim=normalize_dim(dim, self.dim() + 1))

    def squeeze(self, dim=None):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.squeeze, (self,), self, dim)
            if r is not NotImplemented:
                return r
        n = self.dim()
        if dim is None:
            dims = tuple(range(n))
        elif isinstance(dim, (tuple, list)):
            dims = tuple(normalize_dim(d, n) for d in dim)
        else:
            dims = (normalize_dim(dim, n),)
        if n == 0:
            return dispatch(V.alias, self)
        return dispatch(V.squeeze, self, dims=dims)

    def flatten(self, start_dim=0, end_dim=-1):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.flatten, (self,), self, start_dim, end_dim)
            if r is not NotImplemented:
                return r
        n = self.dim()
        s, e = normalize_dim(start_dim, n), normalize_dim(end_dim, n)  # 0-d: dims in [-1, 0]
        if n == 0:
            return self.reshape(1)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if s == e:
            return self
        shape = tuple(self.shape)
        return self.reshape(shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])

    def ravel(self):
        return self.reshape(-1)

    def unflatten(self, dim, sizes):
        dim = normalize_dim(dim, self.dim())
        shape = tuple(self.shape)
        sizes = tuple(sizes)
        if -1 in sizes:
            sizes = infer_size(sizes, shape[dim])
        elif math.prod(sizes) != shape[dim]:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size "
                               f"of dim {dim} ({shape[dim]}) in the input tensor")
        return self.view(shape[:dim] + sizes + shape[dim + 1:])

    def unbind(self, dim=0):
        dim = normalize_dim(dim, self.dim())
        return _multi_view(tuple(self.select(dim, i) for i in range(self.shape[dim])), "Unbind")

    def split(self, split_size_or_sections, dim=0):
        """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of the given sizes."""
        dim = normalize_dim(dim, self.dim())
        n = self.shape[dim]
        if isinstance(split_size_or_sections, int):
            size = split_size_or_sections
            if size <= 0 and n:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                                   f"dimension size of {n}")
            sizes = [min(size, n - i) for i in range(0, n, size)] if size and n else [0]
        else:
            sizes = list(split_size_or_sections)
            if sum(sizes) != n:
                raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                                   f"tensor's size at dimension {dim}), but got split_sizes={sizes}")
        out, start = [], 0
        for s in sizes:
            out.append(dispatch(V.slice_, self, dim=dim, start=start, end=start + s, step=1))
            start += s
        return _multi_view(tuple(out), "Split" if isinstance(split_size_or_sections, int) else "SplitWithSizes")

    def split_with_sizes(self, split_sizes, dim=0):
        return self.split(list(split_sizes), dim)

    def chunk(self, chunks, dim=0):
        if chunks <= 0:
            raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
        n = self.shape[normalize_dim(dim, self.dim())]
        if n == 0:  # torch: `chunks` empty pieces
            return self.split([0] * chunks, dim)
        return self.split(-(-n // chunks), dim)

    def tensor_split(self, indices_or_sections, dim=0):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(ViewMixin.tensor_split, (self,), self, indices_or_sections, dim)
            if r is not NotImplemented:
                return r
        dim = normalize_dim(dim, self.dim())
        n = self.shape[dim]
        if isinstance(indices_or_sections, TensorBase) and indices_or_sections.dim() == 0:
            indices_or_sections = int(indices_or_sections.item())  # a 0-d tensor is a section count
        if isinstance(indices_or_sections, int):
            k = indices_or_sections
            q, r = divmod(n, k)
            sizes = [q + 1] * r + [q] * (k - r)
        else:
            idx = [min(max(int(i), 0), n) for i in indices_or_sections]
            bounds = [0] + idx + [n]
            sizes = [max(b - a, 0) for a, b in zip(bounds, bounds[1:])]
        out, start = [], 0
        for s in sizes:
            out.append(dispatch(V.slice_, self, dim=dim, start=start, end=start + s, step=1))
            start += s
        return tuple(out)

    def movedim(self, source, destination):
        n = self.dim()
        src = [normalize_dim(d, n) for d in ((source,) if isinstance(source, int) else source)]
        dst = [normalize_dim(d, n) for d in ((destination,) if isinstance(destination, int) else destination)]
        if len(src) != len(dst):
            raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims)"
                               f" should contain the same number of dims as destination ({list(dst)} dims)")
        if n == 0:
            return self.permute(())
        order = [None] * n
        for s, d in zip(src, dst):
            order[d] = s
        rest = iter(i for i in range(n) if i not in src)
        order = [o if o is not None else next(rest) for o in order]
        return self.permute(order)

    moveaxis = movedim

    def diagonal(self, offset=0, dim1=0, dim2=1):
        n = self.dim()
        d1, d2 = normalize_dim(dim1, n), normalize_dim(dim2, n)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        return dispatch(V.diagonal, self, offset=offset, dim1=d1, dim2=d2)

    def as_strided(self, size, stride, storage_offset=None):
        """A view with explicit ``size``/``stride``/``storage_offset`` over this tensor's storage."""
        geometry = None
        if self._requires_grad:  # the backward needs where the input sits in its storage
            numel = self.untyped_storage().nbytes() // max(self.element_size(), 1)
            geometry = (tuple(self.shape), self.stride(), self.storage_offset(), numel)
        return dispatch(V.as_strided, self, size=tuple(size), stride=tuple(stride),
                        storage_offset=storage_offset, input_geometry=geometry)

    def unfold(self, dimension, size, step):
        """All windows of ``size`` along ``dimension`` with ``step``, as a new last dim (a view)."""
        d = normalize_dim(dimension, self.dim())
        shape, st = list(self.shape), list(self.stride())
        if size > (shape[d] if shape else 1):
            raise RuntimeError(f"maximum size for tensor at dimension {d} is {shape[d] if shape else 1} "
                               f"but size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        if not shape:  # a 0-d tensor unfolds to its single window of size 1
            return self.as_strided([size], [1], self.storage_offset())
        n = (shape[d] - size) // step + 1
        new_shape = shape[:d] + [n] + shape[d + 1:] + [size]
        new_st = st[:d] + [st[d] * step] + st[d + 1:] + [st[d] if shape else 1]
        return self.as_strided(new_shape, new_st, self.storage_offset())


_builtin_slice = slice

FUNCTIONS = dict(
    reshape=ViewMixin.reshape, permute=ViewMixin.permute, transpose=ViewMixin.transpose,
    swapaxes=ViewMixin.transpose, swapdims=ViewMixin.transpose, t=ViewMixin.t,
    select=ViewMixin.select, narrow=ViewMixin.narrow, unsqueeze=ViewMixin.unsqueeze,
    squeeze=ViewMixin.squeeze, flatten=ViewMixin.flatten, ravel=ViewMixin.ravel,
    unflatten=ViewMixin.unflatten, unbind=ViewMixin.unbind, split=ViewMixin.split,
    chunk=ViewMixin.chunk, tensor_split=ViewMixin.tensor_split, movedim=ViewMixin.movedim,
    moveaxis=ViewMixin.movedim, diagonal=ViewMixin.diagonal, as_strided=ViewMixin.as_strided,
    adjoint=ViewMixin.adjoint,
)
