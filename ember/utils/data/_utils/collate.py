"""default_collate and default_convert (layer L5): samples -> batches, as torch builds them.

Example:
    >>> from ember.utils.data import default_collate
    >>> default_collate([(0, 'a'), (1, 'b')])
    [tensor([0, 1]), ('a', 'b')]
    >>> default_collate([{'x': 1.0}, {'x': 2.0}])
    {'x': tensor([1., 2.], dtype=torch.float64)}
"""
from __future__ import annotations

import copy
import re
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from operator import attrgetter
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

# NumPy dtype kinds that cannot become tensors: byte strings, unicode strings, objects
np_str_obj_array_pattern = re.compile("[SaUO]")

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                                  "dicts or lists; found {}")


def _holds_text(array_dtype) -> bool:
    return np_str_obj_array_pattern.search(array_dtype.str) is not None


def _like_mapping(proto, entries: dict):
    """Rebuild a mapping shaped like ``proto`` holding ``entries``; plain dict if its type refuses."""
    try:
        if isinstance(proto, MutableMapping):
            result = copy.copy(proto)  # keeps subclass state such as defaultdict factories
            result.update(entries)
            return result
        return type(proto)(entries)
    except TypeError:
        return entries


def _like_sequence(proto, items: list):
    """Rebuild a sequence shaped like ``proto`` holding ``items``; plain list if its type refuses."""
    try:
        if isinstance(proto, MutableSequence):
            result = copy.copy(proto)
            for pos, item in enumerate(items):
                result[pos] = item
            return result
        return type(proto)(items)
    except TypeError:
        return items


def _is_namedtuple(obj) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def default_convert(data):
    """NumPy arrays (also inside mappings and sequences) become tensors; everything else is unchanged.

    >>> import numpy as np
    >>> default_convert(np.array([0, 1]))
    tensor([0, 1])
    """
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _holds_text(data.dtype):
            return data
        return as_tensor(data)
    if isinstance(data, Mapping):
        return _like_mapping(data, {k: default_convert(v) for k, v in ((k, data[k]) for k in data)})
    if _is_namedtuple(data):
        return kind(*map(default_convert, data))
    if isinstance(data, tuple):
        return list(map(default_convert, data))  # torch turns plain tuples into lists here
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _like_sequence(data, list(map(default_convert, data)))
    return data


def _lookup(table, sample):
    """The collate function registered for ``sample``: exact type first, then by isinstance."""
    exact = table.get(type(sample))
    if exact is not None:
        return exact
    return next((fn for key, fn in table.items() if isinstance(sample, key)), None)


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch`` by its first element's type, looking types up in ``collate_fn_map`` first."""
    first = batch[0]

    def merge(column):
        return collate(column, collate_fn_map=collate_fn_map)

    if collate_fn_map is not None:
        handler = _lookup(collate_fn_map, first)
        if handler is not None:
            return handler(batch, collate_fn_map=collate_fn_map)
    if isinstance(first, Mapping):
        return _like_mapping(first, {key: merge([sample[key] for sample in batch]) for key in first})
    if _is_namedtuple(first):
        return type(first)(*(merge(column) for column in zip(*batch)))
    if isinstance(first, Sequence):
        if len(set(map(len, batch))) != 1:
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [merge(column) for column in zip(*batch)]
        return columns if isinstance(first, tuple) else _like_sequence(first, columns)
    raise TypeError(default_collate_err_msg_format.format(type(first)))


_data_of, _grad_of = attrgetter("_data"), attrgetter("_requires_grad")


def collate_tensor_fn(batch, *, collate_fn_map=None):
    # plain cpu tensors of one shape and dtype outside autograd: one copy per sample into the batch
    # (inside a worker straight into shared memory, so the batch reaches the main process without
    # pickling its bytes). The checks are C-level passes (``map``), as this runs per sample: equal
    # first dims here, equal trailing dims and ndim by concatenate, the same dtype by casting="no"
    if len(set(map(type, batch))) == 1 and type(batch[0]) is Tensor and not any(map(_grad_of, batch)):
        arrays = list(map(_data_of, batch))
        first = arrays[0]
        try:
            same_len = first is not None and first.ndim and len(set(map(len, arrays))) == 1
        except TypeError:  # a meta tensor (no data) or a 0-d one among them
            same_len = False
        if same_len:
            full_shape = (len(batch),) + first.shape
            if first.nbytes * len(batch) >= shared_memory.SHARE_THRESHOLD and get_worker_info() is not None:
                dest = shared_memory.empty_shared(full_shape, first.dtype)
            else:
                dest = np.empty(full_shape, first.dtype)
            try:
                np.concatenate(arrays, out=dest.reshape((-1,) + first.shape[1:]), casting="no")
                return wrap(dest, batch[0]._dtype)
            except (ValueError, TypeError):  # other trailing dims or dtypes: stack raises torch's error
                pass
    return stack(batch, 0)  # also what carries gradients, and 0-d samples


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if _holds_text(batch[0].dtype):
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate(list(map(as_tensor, batch)), collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=D.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    a = np.array(batch) if set(map(type, batch)) == {int} else None
    if a is not None and a.dtype == np.int64:  # plain Python ints in int64's range: torch's tensor(batch)
        return wrap(a, D.int64)
    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


# insertion order matters for the isinstance fallback in ``_lookup``
default_collate_fn_map: dict[type | tuple, Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch: tensors/arrays/numbers -> tensors with a new dim 0,
    strings unchanged, mappings/namedtuples/sequences collated field by field.

    >>> import ember
    >>> default_collate([ember.tensor([1, 2]), ember.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
