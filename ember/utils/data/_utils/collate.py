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
import sys
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from operator import attrgetter
from typing import Callable

import numpy as np

from .... import _dtype as D
from ...._creation import as_tensor, tensor
from ...._dispatch import wrap
from ...._tensor import Tensor
from ...._tensor_methods.shape_copy import stack
from . import fetch, shared_memory
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


def _batch_array(n: int, first) -> np.ndarray:
    """An uninitialised ``(n, *first.shape)`` array of ``first``'s dtype for a batch: in shared
    memory inside a worker when big enough (the main process maps it without a copy)."""
    full_shape = (n,) + first.shape
    if first.nbytes * n >= shared_memory.SHARE_THRESHOLD and get_worker_info() is not None:
        return shared_memory.empty_shared(full_shape, first.dtype)
    return np.empty(full_shape, first.dtype)


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
            dest = _batch_array(len(batch), first)
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


# ---------------------------------------------------------------------------- collating while fetching
_DEFAULT_MAP = dict(default_collate_fn_map)
_refs = sys.getrefcount


def _counts():
    # what sys.getrefcount reports for a fresh sample's array, tensor and tuple held by the locals
    # ``s``, ``x``, ``d`` of fetch_collated's loop (measured: the interpreter's counting may differ)
    s = (wrap(np.empty(1), D.float64), 0)
    x = s[0]
    d = x._data
    counts = _refs(d), _refs(x), _refs(s)
    s = x  # a bare tensor sample
    return counts + (_refs(x),)


_REFS_ARRAY, _REFS_TENSOR, _REFS_TUPLE, _REFS_SINGLE = _counts()


class _Mismatch(Exception):
    """A sample that the incremental batch cannot take: default_collate gets the whole list."""


def fetch_collated(dataset, indices: list):
    """``default_collate([dataset[i] for i in indices])``, copying each sample's tensors into the
    batch as the sample arrives (while it is still in cache; its memory is then free for the next
    sample). Samples that are a plain tensor or a tuple whose tensor fields are plain cpu tensors
    (no grad, one shape and dtype per field) take this path; any other sample hands the whole list
    (rebuilt) to ``default_collate``, so results and exceptions are default_collate's.

    A tensor is copied early only when nothing else can still write to it: its array owns its memory
    and only the sample refers to the array, the tensor and the tuple (reference counts); otherwise
    it is copied after the last sample is fetched, as default_collate would copy it.

    >>> import ember
    >>> ds = [(ember.full((2,), float(i)), i) for i in range(3)]
    >>> fetch_collated(ds, [2, 0])
    [tensor([[2., 2.],
            [0., 0.]]), tensor([2, 0])]
    """
    n = len(indices)
    if not n or default_collate_fn_map != _DEFAULT_MAP:
        return default_collate([dataset[i] for i in indices])
    first = dataset[indices[0]]
    single = type(first) is Tensor
    if not single and type(first) is not tuple:
        return default_collate([first] + [dataset[i] for i in indices[1:]])
    leaves = (first,) if single else first
    width = len(leaves)
    # per field: [column index, batch array, shape, ember dtype] for plain tensors (>= 1-d), or a
    # list of the values (collated at the end, as default_collate collates that column)
    fields, values = [], {}
    for c, x in enumerate(leaves):
        d = x._data if type(x) is Tensor and not x._requires_grad else None
        if d is not None and d.ndim:
            fields.append((c, _batch_array(n, d), d.shape, x._dtype))
        else:
            values[c] = []
    if not fields:
        return default_collate([first] + [dataset[i] for i in indices[1:]])
    pending = []  # (row, field, tensor) copied at the end
    refs_tensor = _REFS_SINGLE if single else _REFS_TENSOR
    s = first
    del first, leaves, x, d
    i = 0
    try:
        while True:
            for c, dest, shape, dt in fields:
                x = s if single else s[c]
                if type(x) is not Tensor or x._requires_grad or x._dtype is not dt:
                    raise _Mismatch
                d = x._data
                if d is None or d.shape != shape:
                    raise _Mismatch
                # more references than a fresh sample has (_counts) mean that someone else holds
                # the array, the tensor or the tuple and may still write to it before collation
                if d.base is None and _refs(d) == _REFS_ARRAY and _refs(x) == refs_tensor \
                        and (single or _refs(s) == _REFS_TUPLE):
                    dest[i] = d
                else:
                    pending.append((i, c, x))
            for c, column in values.items():
                column.append(s[c])
            i += 1
            if i == n:
                break
            s = x = d = None  # the sample's memory is free for the next one
            s = dataset[indices[i]]
            if not single and (type(s) is not tuple or len(s) != width):
                raise _Mismatch
    except _Mismatch:  # this sample (and the rest) as they are, the earlier ones rebuilt
        samples = _rebuilt(fields, values, pending, single, width, i)
        samples.append(s)
        samples.extend(dataset[k] for k in indices[i + 1:])
        return default_collate(samples)
    for row, c, x in pending:
        dest = next(f[1] for f in fields if f[0] == c)
        dest[row] = x._data
    out = {c: wrap(dest, dt) for c, dest, _, dt in fields}
    if single:
        return out[0]
    for c, column in values.items():
        out[c] = collate(tuple(column), collate_fn_map=default_collate_fn_map)  # zip(*batch)'s columns
    return [out[c] for c in range(width)]


def _rebuilt(fields, values, pending, single, width, count) -> list:
    """The first ``count`` samples again, their early-copied tensors as rows of the batch arrays."""
    kept = {(row, c): x for row, c, x in pending}
    samples = []
    for row in range(count):
        leaves = [None] * width
        for c, dest, _, dt in fields:
            x = kept.get((row, c))
            leaves[c] = x if x is not None else wrap(dest[row], dt)
        for c, column in values.items():
            leaves[c] = column[row]
        samples.append(leaves[0] if single else tuple(leaves))
    return samples


fetch.COLLATE_WHILE_FETCHING[:] = default_collate, fetch_collated
