"""default_collate and default_convert (layer L5): samples -> batches, as torch builds them.

Example:
    >>> from ember.utils.data import default_collate
    >>> default_collate([(0, 'a'), (1, 'b')])
    [tensor([0, 1]), ('a', 'b')]
    >>> default_collate([{'x': 1.0}, {'x': 2.0}])
    {'x': tensor([1., 2.], dtype=torch.float64)}
"""
from __future__ import annotations

import collections.abc
import copy
import re
from typing import Callable

import numpy as np

from .... import _dtype as D
from ...._creation import as_tensor, tensor
from ...._dispatch import wrap
from ...._tensor import Tensor
from ...._tensor_methods.shape_copy import stack
from . import shared_memory
from .worker import get_worker_info

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "default_collate_err_msg_format"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                                  "dicts or lists; found {}")


def default_convert(data):
    """NumPy arrays (also inside mappings and sequences) become tensors; everything else is unchanged.

    >>> import numpy as np
    >>> default_convert(np.array([0, 1]))
    tensor([0, 1])
    """
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # torch's backwards compatibility: tuples -> lists
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch`` by its first element's type, looking types up in ``collate_fn_map`` first."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        def column(key):
            return collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: column(key) for key in elem})
                return clone
            return elem_type({key: column(key) for key in elem})
        except TypeError:
            return {key: column(key) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _stackable(batch):
        # plain tensors of one shape and dtype need no autograd: stack their arrays in one NumPy call,
        # in a worker straight into shared memory so the batch crosses to the main process unpickled
        a0 = elem._data
        shape = (len(batch),) + a0.shape
        if get_worker_info() is not None and a0.nbytes * len(batch) >= shared_memory.SHARE_THRESHOLD:
            out = shared_memory.empty_shared(shape, a0.dtype)
        else:
            out = np.empty(shape, a0.dtype)
        np.stack([t._data for t in batch], out=out)
        return wrap(out, elem.dtype)
    return stack(batch, 0)  # mixed shapes raise torch's error; grads flow through stack


def _stackable(batch) -> bool:
    e = batch[0]
    if e._data is None:
        return False
    shape, dtype = e._data.shape, e.dtype
    return all(type(t) is Tensor and t._data is not None and t._data.shape == shape and t.dtype is dtype
               and not t.requires_grad for t in batch)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=D.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[type | tuple, Callable] = {Tensor: collate_tensor_fn}
default_collate_fn_map[np.ndarray] = collate_numpy_array_fn
default_collate_fn_map[(np.bool_, np.number, np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[str] = collate_str_fn
default_collate_fn_map[bytes] = collate_str_fn


def default_collate(batch):
    """Stack a list of samples into a batch: tensors/arrays/numbers -> tensors with a new dim 0,
    strings unchanged, mappings/namedtuples/sequences collated field by field.

    >>> import ember
    >>> default_collate([ember.tensor([1, 2]), ember.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
