"""Op database entries for the view family (permute, transpose, expand, select, slice, squeeze,
unsqueeze, as_strided, unfold, diagonal, view/reshape, split/chunk/unbind...): results share memory
with their input, so each entry also runs the ``view`` check (writes show through)."""
from __future__ import annotations

from ._core import BOOL, FLOAT, INT, OpInfo, Sample, arr, noncontig

NUM = FLOAT + INT
LOW = ("float16", "bfloat16")


def _s(*specs):
    """samples from (shape, kwargs, name); shape ("nc", *dims) is a non-contiguous input."""
    def samples(dtype):
        return [Sample((noncontig(arr(s[1:], dtype)) if s and s[0] == "nc" else arr(s, dtype),), dict(kw), name)
                for s, kw, name in specs]
    return samples


def _err(*specs):
    return _s(*specs)


def view_op(name, fn, samples, dtypes=NUM + BOOL, errors=None, **kw):
    return OpInfo(name, fn, samples, dtypes=dtypes, view=True, error_samples=errors, **kw)


# expand's NumPy view is read-only (stride 0): the write-through half of the view check skips it
OPS = [
    view_op("permute", lambda lib, x, dims: x.permute(dims),
            _s(((2, 3, 4), {"dims": (2, 0, 1)}, "3d"), (("nc", 3, 4), {"dims": (1, 0)}, "nc"),
               ((), {"dims": ()}, "0-d"), ((0, 3), {"dims": (1, 0)}, "empty")),
            dtypes=NUM + BOOL + LOW, errors=_err(((2, 3), {"dims": (0,)}, "too few"),
                                                 ((2, 3), {"dims": (0, 0)}, "repeated"))),
    view_op("transpose", lambda lib, x, d0, d1: x.transpose(d0, d1),
            _s(((2, 3, 4), {"d0": 0, "d1": 2}, "3d"), (("nc", 3, 4), {"d0": -1, "d1": 0}, "nc"),
               ((3,), {"d0": 0, "d1": 0}, "1d"), ((), {"d0": 0, "d1": -1}, "0-d")),
            errors=_err(((2, 3), {"d0": 0, "d1": 2}, "dim"),)),
    view_op("t", lambda lib, x: x.t(), _s(((2, 3), {}, "2d"), ((3,), {}, "1d"), ((), {}, "0-d")),
            errors=_err(((2, 3, 4), {}, "3d"),)),
    view_op("mT", lambda lib, x: x.mT, _s(((2, 3, 4), {}, "3d"), (("nc", 3, 4), {}, "nc"))),
    view_op("movedim", lambda lib, x, **kw: lib.movedim(x, **kw),
            _s(((2, 3, 4), {"source": 0, "destination": -1}, "one"),
               ((2, 3, 4), {"source": (0, 1), "destination": (2, 0)}, "two"))),
    view_op("expand", lambda lib, x, size: x.expand(*size),
            _s(((3, 1), {"size": (3, 4)}, "grow"), ((3,), {"size": (2, 3)}, "lead"),
               ((), {"size": (2, 2)}, "0-d"), (("nc", 2, 1), {"size": (-1, 5)}, "nc -1")),
            errors=_err(((3, 2), {"size": (3, 4)}, "non-singleton"),)),
    view_op("expand_as", lambda lib, x: x.expand_as(lib.zeros(2, 3, dtype=x.dtype)),
            _s(((3,), {}, "row"), ((2, 1), {}, "col"))),
    view_op("select", lambda lib, x, dim, index: x.select(dim, index),
            _s(((3, 4), {"dim": 0, "index": 1}, "row"), (("nc", 3, 4), {"dim": 1, "index": -1}, "nc"),
               ((3,), {"dim": 0, "index": 2}, "1d")),
            errors=_err(((3, 4), {"dim": 0, "index": 3}, "range"),)),
    view_op("slice", lambda lib, x, sl: x[sl],
            _s(((5, 3), {"sl": slice(1, 4)}, "rows"), ((5, 3), {"sl": slice(None, None, 2)}, "step"),
               (("nc", 4, 3), {"sl": slice(-3, None)}, "nc neg"), ((5,), {"sl": slice(3, 1)}, "empty"))),
    view_op("narrow", lambda lib, x, dim, start, length: x.narrow(dim, start, length),
            _s(((4, 5), {"dim": 1, "start": 1, "length": 3}, "cols"),
               ((4, 5), {"dim": 0, "start": -2, "length": 2}, "neg start"))),
    view_op("squeeze", lambda lib, x, **kw: x.squeeze(**kw),
            _s(((1, 3, 1), {}, "all"), ((1, 3, 1), {"dim": 2}, "dim"), ((1, 3, 1), {"dim": (0, 2)}, "dims"),
               ((3,), {"dim": 0}, "no-op"), ((), {}, "0-d"))),
    view_op("unsqueeze", lambda lib, x, dim: x.unsqueeze(dim),
            _s(((2, 3), {"dim": 1}, "mid"), ((2, 3), {"dim": -1}, "last"), ((), {"dim": 0}, "0-d")),
            errors=_err(((2, 3), {"dim": 3}, "range"),)),
    view_op("as_strided", lambda lib, x, size, stride, offset: x.as_strided(size, stride, offset),
            _s(((4, 4), {"size": (2, 2), "stride": (4, 1), "offset": 1}, "window"),
               ((6,), {"size": (3, 2), "stride": (1, 1), "offset": 0}, "overlapping")),
            skip_checks=("inplace_output",),
            notes="overlapping as_strided views: torch refuses some in-place writes with a message "
                  "about overlapping memory; not part of the in-place-output contract"),
    view_op("unfold", lambda lib, x, dim, size, step: x.unfold(dim, size, step),
            _s(((7,), {"dim": 0, "size": 3, "step": 2}, "1d"), ((3, 5), {"dim": 1, "size": 2, "step": 1}, "2d"),
               ((), {"dim": 0, "size": 1, "step": 1}, "0-d")),
            errors=_err(((3,), {"dim": 0, "size": 4, "step": 1}, "size"),), skip_checks=("inplace_output",),
            notes="overlapping windows: an in-place write into overlapping memory is ill-defined"),
    view_op("diagonal", lambda lib, x, **kw: x.diagonal(**kw),
            _s(((3, 4), {}, "main"), ((3, 4), {"offset": 1}, "+1"), ((2, 3, 4), {"dim1": 0, "dim2": 2}, "3d"),
               ((3, 4), {"offset": -5}, "empty"))),
    view_op("view", lambda lib, x, shape: x.view(*shape),
            _s(((2, 6), {"shape": (3, 4)}, "reshape"), ((2, 6), {"shape": (-1,)}, "flat"),
               ((), {"shape": (1, 1)}, "0-d")),
            errors=_err(((2, 6), {"shape": (5, -1)}, "size"),)),
    view_op("reshape_view", lambda lib, x, shape: x.reshape(shape),
            _s(((2, 6), {"shape": (4, 3)}, "contiguous"),)),
    view_op("flatten", lambda lib, x, **kw: x.flatten(**kw), _s(((2, 3, 4), {"start_dim": 1}, "tail"),)),
    view_op("unflatten", lambda lib, x, dim, sizes: x.unflatten(dim, sizes),
            _s(((2, 12), {"dim": 1, "sizes": (3, 4)}, "split"), ((6,), {"dim": 0, "sizes": (-1, 2)}, "-1"))),
    view_op("view_as", lambda lib, x: x.view_as(lib.zeros(3, 2)), _s(((2, 3), {}, "2x3"),)),
    view_op("split", lambda lib, x, size, dim: x.split(size, dim),
            _s(((5, 3), {"size": 2, "dim": 0}, "even"), ((4, 6), {"size": [1, 5], "dim": 1}, "sizes"))),
    view_op("chunk", lambda lib, x, chunks, dim: x.chunk(chunks, dim),
            _s(((5, 3), {"chunks": 2, "dim": 0}, "rows"), ((3, 4), {"chunks": 4, "dim": 1}, "cols"))),
    view_op("tensor_split", lambda lib, x, sections: lib.tensor_split(x, sections),
            _s(((7, 2), {"sections": 3}, "uneven"), ((7,), {"sections": [1, 4]}, "indices"))),
    view_op("unbind", lambda lib, x, dim: x.unbind(dim), _s(((3, 2), {"dim": 0}, "rows"), ((3, 2), {"dim": 1}, "cols"))),
    view_op("alias", lambda lib, x: x[...], _s(((2, 3), {}, "ellipsis"), ((), {}, "0-d"))),
    OpInfo("detach", lambda lib, x: x.detach(), _s(((2, 3), {}, "2d"),), grad=False, skip_checks=("noalias",),
           notes="shares memory but is not a view in torch's sense (its _base is None)"),
]
