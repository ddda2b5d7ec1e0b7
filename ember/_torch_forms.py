"""Small torch.* functions (layer L3): the function forms of in-place Tensor methods
(``addmv_``, ``as_strided_``, ``resize_as_``), ``slice_inverse``, ``nonzero_static``,
``empty_permuted``, ``get_device_module`` and ``set_anomaly_enabled``.

Example:
    >>> import ember
    >>> ember.nonzero_static(ember.tensor([0, 2, 3]), size=3).tolist()
    [[1], [2], [-1]]
"""
from __future__ import annotations

import importlib

from . import _dtype as D
from ._creation import empty, full
from .autograd.anomaly_mode import set_detect_anomaly
from .overrides import public
from ._tensor_methods.shape_copy import cat

__all__ = ["addmv_", "as_strided_", "resize_as_", "slice_inverse", "nonzero_static",
           "empty_permuted", "get_device_module", "set_anomaly_enabled", "FUNCTIONS"]


@public
def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """``torch.addmv_``: ``input = beta * input + alpha * (mat @ vec)`` in place."""
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


@public
def as_strided_(input, size, stride, storage_offset=None):
    """``torch.as_strided_``: restride ``input`` in place over its storage."""
    return input.as_strided_(size, stride, storage_offset)


@public
def resize_as_(input, the_template, *, memory_format=None):
    """``torch.resize_as_``: resize ``input`` in place to ``the_template``'s shape."""
    return input.resize_as_(the_template, memory_format=memory_format) if memory_format is not None \
        else input.resize_as_(the_template)


@public
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """The view of ``input``'s storage with ``src``'s geometry that ``input`` is the slice
    ``src.narrow``-like ``[start:end:step]`` of along ``dim`` (used by functionalisation)."""
    d = dim % src.dim() if src.dim() else 0
    s = 0 if start is None else start
    if s < 0:
        s += src.shape[d]
    s = min(max(s, 0), src.shape[d])
    offset = input.storage_offset() - s * src.stride(d)
    return input.as_strided(tuple(src.shape), tuple(src.stride()), offset)


@public
def nonzero_static(input, *, size, fill_value=-1):
    """Indices of the non-zero elements, ``(size, input.dim())`` int64: truncated to ``size`` rows,
    or padded with ``fill_value``.

    >>> import ember
    >>> ember.nonzero_static(ember.tensor([[0, 1], [1, 1]]), size=1).tolist()
    [[0, 1]]
    """
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    nz = input.nonzero()
    n = nz.shape[0]
    if n >= size:
        return nz[:size]
    pad = full((size - n, nz.shape[1]), fill_value, dtype=D.int64)
    return cat([nz, pad], 0)


@public
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """Uninitialised tensor of logical shape ``size`` laid out in memory in the dim order
    ``physical_layout`` (outermost first): ``empty_permuted((2, 3, 4), (2, 0, 1)).stride()`` is
    ``(3, 1, 6)``."""
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(range(len(size))):
        raise RuntimeError(f"Dimension {order} is not a permutation of {tuple(range(len(size)))}")
    phys = empty(tuple(size[p] for p in order), dtype=dtype, device=device)
    inverse = tuple(order.index(d) for d in range(len(size)))
    out = phys.permute(inverse)
    if requires_grad:
        out.requires_grad_(True)
    return out


def get_device_module(device=None):
    """The ``ember.<type>`` module of a device (``ember.cpu`` for 'cpu' or None)."""
    if device is None:
        name = "cpu"
    else:
        name = device if isinstance(device, str) else getattr(device, "type", str(device))
        name = name.split(":")[0]
    try:
        return importlib.import_module(f"ember.{name}")
    except ImportError:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as "
                           f"'torch.{name}'.") from None


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled``: turn autograd anomaly detection on or off globally."""
    set_detect_anomaly(enabled, check_nan)


FUNCTIONS = {n: globals()[n] for n in __all__ if n != "FUNCTIONS"}
