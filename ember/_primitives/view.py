"""View primitives (layer L1): outputs share the input's memory; NumPy gives the view, the meta rule
gives torch's strides, the derivative maps the gradient back.

Public composites (reshape, flatten, unflatten, narrow, unbind, split, chunk, movedim, t, mT...) are
built on these in the method layer.
"""
from __future__ import annotations

import numpy as np

from .._shape import contiguous_strides, normalize_dim, view_strides
from ._meta import view_meta
from ._registry import TensorMeta, primitive


def _elem_strides(a) -> tuple:
    isz = a.itemsize
    return tuple(s // isz for s in a.strides)


def restride(a, shape, strides_elems, offset_elems=None):
    """A view of ``a``'s root buffer with torch geometry (element strides, offset from the root)."""
    root = _buffer_of(a)
    isz = a.itemsize
    off = _byte_offset(a) if offset_elems is None else offset_elems * isz
    if root.flags.c_contiguous or root.flags.f_contiguous:
        return np.ndarray(tuple(shape), a.dtype, buffer=root, offset=off,
                          strides=tuple(s * isz for s in strides_elems))
    start = np.lib.stride_tricks.as_strided(a, (1,), (isz,))  # a root that is itself strided
    return np.lib.stride_tricks.as_strided(start, tuple(shape), tuple(s * isz for s in strides_elems))


def _buffer_of(a):
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _byte_offset(a) -> int:
    root = _buffer_of(a)
    return a.__array_interface__["data"][0] - root.__array_interface__["data"][0]


# ----------------------------------------------------------------------------- view / reshape-as-view
_VIEW_ERR = ("view size is not compatible with input tensor's size and stride (at least one dimension "
             "spans across two contiguous subspaces). Use .reshape(...) instead.")


@primitive("view", kind="view")
def view(a, *, size):
    if a.flags.c_contiguous:
        return a.reshape(size)
    strides = view_strides(a.shape, _elem_strides(a), size)
    if strides is None:
        raise RuntimeError(_VIEW_ERR)
    return restride(a, size, strides)


@view.meta
def _(a, *, size):
    strides = view_strides(tuple(a.shape), a.stride(), size)
    if strides is None:
        raise RuntimeError(_VIEW_ERR)
    return view_meta(a, size, strides)


@view.derivative
def _(grad, *, a_shape, K):
    return K.reshape(grad, a_shape)


@primitive("permute", kind="view")
def permute(a, *, dims):
    return a.transpose(dims)  # the method: np.transpose's wrapper costs ~1 us more per call


@permute.meta
def _(a, *, dims):
    st = a.stride()
    return view_meta(a, [a.shape[d] for d in dims], [st[d] for d in dims])


@permute.derivative
def _(grad, *, dims, K):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return K.permute(grad, dims=tuple(inv))


@primitive("transpose", kind="view")
def transpose(a, *, dim0, dim1):
    return a.swapaxes(dim0, dim1)


@transpose.meta
def _(a, *, dim0, dim1):
    shape, st = list(a.shape), list(a.stride())
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    st[dim0], st[dim1] = st[dim1], st[dim0]
    return view_meta(a, shape, st)


@transpose.derivative
def _(grad, *, dim0, dim1, K):
    return K.transpose(grad, dim0=dim0, dim1=dim1)


@primitive("expand", kind="view")
def expand(a, *, size):
    return np.broadcast_to(a, size)


@expand.meta
def _(a, *, size):
    nd = len(size) - a.dim()
    st = [0] * nd + [0 if s == 1 and n != 1 else t for s, n, t in zip(a.shape, size[nd:], a.stride())]
    return view_meta(a, size, st)


@expand.derivative
def _(grad, *, a_shape, K):
    return K.sum_to_size(grad, a_shape)


@primitive("select", kind="view")
def select(a, *, dim, index):
    return a[(slice(None),) * dim + (index, Ellipsis)]  # Ellipsis: a 0-d view, never a scalar copy


@select.meta
def _(a, *, dim, index):
    st = a.stride()
    return view_meta(a, a.shape[:dim] + a.shape[dim + 1:], st[:dim] + st[dim + 1:],
                     a.storage_offset() + index * st[dim])


@select.derivative
def _(grad, *, a_shape, dim, index, K):
    return K.select_backward(grad, input_sizes=tuple(a_shape), dim=dim, index=index)


@primitive("select_backward", kind="other")
def select_backward(grad, *, input_sizes, dim, index):
    out = np.zeros(input_sizes, grad.dtype)
    out[(slice(None),) * dim + (index,)] = grad
    return out


@select_backward.meta
def _(grad, *, input_sizes, dim, index):
    return TensorMeta(tuple(input_sizes), grad.dtype)


@select_backward.derivative
def _(gg, *, dim, index):
    return gg.select(dim, index)


@primitive("slice", kind="view")
def slice_(a, *, dim, start, end, step=1):
    return a[(slice(None),) * dim + (slice(start, end, step),)]


@slice_.meta
def _(a, *, dim, start, end, step=1):
    n = len(range(start, end, step))
    shape, st = list(a.shape), list(a.stride())
    shape[dim] = n
    off = a.storage_offset() + start * st[dim]
    st[dim] *= step
    return view_meta(a, shape, st, off)


@slice_.derivative
def _(grad, *, a_shape, dim, start, end, step, K):
    return K.slice_backward(grad, input_sizes=tuple(a_shape), dim=dim, start=start, end=end, step=step)


@primitive("slice_backward", kind="other")
def slice_backward(grad, *, input_sizes, dim, start, end, step):
    out = np.zeros(input_sizes, grad.dtype)
    out[(slice(None),) * dim + (slice(start, end, step),)] = grad
    return out


@slice_backward.meta
def _(grad, *, input_sizes, dim, start, end, step):
    return TensorMeta(tuple(input_sizes), grad.dtype)


@slice_backward.derivative
def _(gg, *, dim, start, end, step):
    return gg.slice(dim, start, end, step)


@primitive("unsqueeze", kind="view")
def unsqueeze(a, *, dim):
    shape = a.shape
    return a.reshape(shape[:dim] + (1,) + shape[dim:])  # what np.expand_dims does, without its wrapper


@unsqueeze.meta
def _(a, *, dim):
    shape, st = list(a.shape), list(a.stride())
    inner = st[dim] * shape[dim] if dim < len(shape) else 1
    shape.insert(dim, 1)
    st.insert(dim, inner)
    return view_meta(a, shape, st)


@unsqueeze.derivative
def _(grad, *, dim, K):
    return K.squeeze(grad, dims=(dim,))


@primitive("squeeze", kind="view")
def squeeze(a, *, dims):
    dims = tuple(d for d in dims if a.shape[d] == 1)
    return a.squeeze(dims) if dims else a.view()


@squeeze.meta
def _(a, *, dims):
    keep = [i for i in range(a.dim()) if not (i in dims and a.shape[i] == 1)]
    return view_meta(a, [a.shape[i] for i in keep], [a.stride()[i] for i in keep])


@squeeze.derivative
def _(grad, *, a_shape, K):
    return K.reshape(grad, a_shape)


@primitive("diagonal", kind="view")
def diagonal(a, *, offset=0, dim1=0, dim2=1):
    d = np.diagonal(a, offset, dim1, dim2)
    if not d.size:
        return d
    # NumPy's diagonal is read-only; the same memory is writable in torch
    return restride(a, d.shape, _elem_strides(d), _byte_offset(d) // a.itemsize)


@diagonal.meta
def _(a, *, offset=0, dim1=0, dim2=1):
    shape, st = list(a.shape), list(a.stride())
    n = max(0, min(shape[dim1] - max(-offset, 0), shape[dim2] - max(offset, 0)))
    off = a.storage_offset() + (offset * st[dim2] if offset >= 0 else -offset * st[dim1])
    dstride = st[dim1] + st[dim2]
    keep = [i for i in range(len(shape)) if i not in (dim1, dim2)]
    return view_meta(a, [shape[i] for i in keep] + [n], [st[i] for i in keep] + [dstride], off)


@diagonal.derivative
def _(grad, *, a_shape, offset, dim1, dim2):
    out = grad.new_zeros(a_shape)
    out.diagonal(offset, dim1, dim2).copy_(grad)
    return out


@primitive("as_strided", kind="view")
def as_strided(a, *, size, stride, storage_offset=None, input_geometry=None):
    return restride(a, size, stride, storage_offset)


@as_strided.meta
def _(a, *, size, stride, storage_offset=None, input_geometry=None):
    return view_meta(a, size, stride, a.storage_offset() if storage_offset is None else storage_offset)


@as_strided.derivative
def _(grad, *, size, stride, storage_offset, input_geometry):
    # only geometry is kept (no tensor is saved), so later in-place writes to the base are fine
    return grad._op(as_strided_backward, size=size, stride=stride, storage_offset=storage_offset,
                    input_geometry=input_geometry)


def _flat_index(size, stride, offset):
    idx = np.full(tuple(size), offset, np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (np.arange(n) * s).reshape(shape)
    return idx


@primitive("as_strided_backward", kind="other")
def as_strided_backward(grad, *, size, stride, storage_offset, input_geometry):
    """Scatter-add ``grad`` (laid out by size/stride/offset) into the storage, read back with the
    input's geometry ``(shape, stride, offset, storage_numel)`` (torch's as_strided_backward)."""
    in_shape, in_stride, in_off, numel = input_geometry
    buf = np.zeros(numel, grad.dtype)
    off = in_off if storage_offset is None else storage_offset
    np.add.at(buf, _flat_index(size, stride, off).reshape(-1), np.asarray(grad).reshape(-1))
    return buf[_flat_index(in_shape, in_stride, in_off)]


@as_strided_backward.meta
def _(grad, *, size, stride, storage_offset, input_geometry):
    return TensorMeta(tuple(input_geometry[0]), grad.dtype)


@as_strided_backward.derivative
def _(gg, *, size, stride, storage_offset, input_geometry):
    # the map is linear; its adjoint is the same map with the two geometries swapped
    in_shape, in_stride, in_off, numel = input_geometry
    off = in_off if storage_offset is None else storage_offset
    return gg._op(as_strided_backward, size=tuple(in_shape), stride=tuple(in_stride),
                  storage_offset=in_off, input_geometry=(tuple(size), tuple(stride), off, numel))


def _clone_strides(shape, strides) -> tuple:
    """The strides ``clone()`` gives: the input's when it is dense and non-overlapping, else
    contiguous ones."""
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return contiguous_strides(shape)
        expected *= shape[d]
    return tuple(strides)


def _check_window(name, numel, size, stride, offset):
    if any(s < 0 for s in stride):
        raise RuntimeError(f"{name}: negative strides are not supported")
    need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if need > numel:
        raise RuntimeError(f"{name}: sizes {list(size)}, strides {list(stride)} and storage offset "
                           f"{offset} need a storage of {need} elements, but the tensor has {numel}")


@primitive("as_strided_scatter", kind="other")
def as_strided_scatter(a, src, *, size, stride, storage_offset=0):
    """A copy of ``a`` (laid out as ``clone()`` lays it out) whose elements at
    ``as_strided(size, stride, storage_offset)`` of the copy's memory are ``src``."""
    out = np.array(a, copy=True, order="K")  # dense: memory order is a view
    flat = out.ravel(order="K")
    _check_window("as_strided_scatter", flat.size, size, stride, storage_offset)
    np.lib.stride_tricks.as_strided(flat[storage_offset:], tuple(size),
                                    tuple(s * out.itemsize for s in stride))[...] = src
    return out


@as_strided_scatter.meta
def _(a, src, *, size, stride, storage_offset=0):
    if tuple(src.shape) != tuple(size):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    _check_window("as_strided_scatter", a.numel(), size, stride, storage_offset)
    return TensorMeta(tuple(a.shape), a.dtype, _clone_strides(tuple(a.shape), a.stride()))


@as_strided_scatter.derivative
def _(grad, a, *, size, stride, storage_offset):
    # the window is read in the output's memory layout, so put the gradient in that layout first
    full = grad.new_empty_strided(tuple(a.shape), _clone_strides(tuple(a.shape), a.stride()))
    full.copy_(grad)
    g_src = full.as_strided(size, stride, storage_offset).clone()
    g_a = full._op(as_strided_scatter, g_src.new_zeros(tuple(size)), size=size, stride=stride,
                   storage_offset=storage_offset)
    return g_a, g_src


@primitive("alias", kind="view", node_name="AliasBackward0")
def alias(a):
    return a.view()


@alias.meta
def _(a):
    return view_meta(a, a.shape, a.stride())


@alias.derivative
def _(grad):
    return grad


__all__ = ["view", "permute", "transpose", "expand", "select", "slice_", "unsqueeze", "squeeze",
           "diagonal", "as_strided", "as_strided_scatter", "alias", "contiguous_strides", "normalize_dim"]
