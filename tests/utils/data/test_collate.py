"""default_collate / default_convert against torch's on the same inputs."""
from __future__ import annotations

import collections

import numpy as np
import pytest
import torch
from torch.utils.data import default_collate as t_collate, default_convert as t_convert

import ember
from ember.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", ["x", "y"])


def _same(a, b):
    """ember structure == torch structure: same container types, tensors equal in dtype and values."""
    if isinstance(b, torch.Tensor):
        assert isinstance(a, ember.Tensor), (a, b)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(b, dict):
        assert type(a) is type(b) and list(a) == list(b)
        for k in b:
            _same(a[k], b[k])
    elif isinstance(b, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert type(a) is type(b) and a == b


CASES = {
    "ints": lambda T: [0, 1, 2, 3],
    "floats": lambda T: [0.5, 1.5],
    "bools_np": lambda T: [np.bool_(True), np.bool_(False)],
    "np_scalars": lambda T: [np.float32(1), np.float32(2)],
    "np_int_scalars": lambda T: [np.int16(1), np.int16(2)],
    "strings": lambda T: ["a", "b", "c"],
    "bytes": lambda T: [b"a", b"b"],
    "tensors": lambda T: [T.arange(6).reshape(2, 3) + i for i in range(3)],
    "float_tensors": lambda T: [T.ones(2, 2) * i for i in range(2)],
    "np_arrays": lambda T: [np.arange(4, dtype=np.float32) + i for i in range(2)],
    "dict": lambda T: [{"A": 0, "B": 1.0}, {"A": 100, "B": 100.0}],
    "namedtuple": lambda T: [Point(0, 0), Point(1, 1)],
    "tuples": lambda T: [(0, 1), (2, 3)],
    "lists": lambda T: [[0, 1], [2, 3]],
    "nested": lambda T: [{"x": (T.zeros(2), [1, "s"]), "y": np.zeros((2, 2))},
                         {"x": (T.ones(2), [2, "t"]), "y": np.ones((2, 2))}],
    "ordered_dict": lambda T: [collections.OrderedDict(a=1, b=2), collections.OrderedDict(a=3, b=4)],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_collate_matches_torch(case):
    _same(default_collate(CASES[case](ember)), t_collate(CASES[case](torch)))


CONVERT = {
    "int": lambda T: 0,
    "np_array": lambda T: np.array([0, 1]),
    "namedtuple": lambda T: Point(np.int64(0), np.int64(0)),
    "list_of_arrays": lambda T: [np.array([0, 1]), np.array([2, 3])],
    "tuple": lambda T: (np.array([1.0]), "s"),
    "dict": lambda T: {"a": np.float64(1.5), "b": [np.array([1], np.int32)]},
    "str_array": lambda T: np.array(["a", "b"]),
    "tensor": lambda T: T.arange(3),
}


@pytest.mark.parametrize("case", sorted(CONVERT))
def test_default_convert_matches_torch(case):
    a, b = default_convert(CONVERT[case](ember)), t_convert(CONVERT[case](torch))
    if case == "str_array":
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
    else:
        _same(a, b)


@pytest.mark.parametrize("batch, exc", [
    (lambda T: [[0, 1], [2]], RuntimeError),
    (lambda T: [T.zeros(2), T.zeros(3)], RuntimeError),
    (lambda T: [object(), object()], TypeError),
    (lambda T: [np.array(["a"]), np.array(["b"])], TypeError),
    (lambda T: [None, None], TypeError),
])
def test_default_collate_errors_match_torch(batch, exc):
    with pytest.raises(exc) as te:
        t_collate(batch(torch))
    with pytest.raises(exc) as ee:
        default_collate(batch(ember))
    msg = str(te.value).replace("torch.", "").replace("<class 'numpy", "<class 'numpy")
    assert str(ee.value) == msg


def test_collate_keeps_autograd_for_tensors_requiring_grad():
    a = ember.ones(2, requires_grad=True)
    out = default_collate([a, a * 2])
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


# ---- the DataLoader's batches (samples fetched one by one, then default_collate) are torch's
class _Samples:
    """A map-style dataset whose ``__getitem__`` is ``make(T, i, self)``."""

    def __init__(self, T, make, n=6):
        self.T, self.make, self.n, self.kept = T, make, n, []

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.make(self.T, i, self)


def _reuse(T, i, ds):  # one buffer refilled per sample: every row shows the last fill
    if not ds.kept:
        ds.kept.append(T.zeros(2, 3))
    ds.kept[0].fill_(i)
    return ds.kept[0], i


def _kept_and_changed(T, i, ds):  # the dataset keeps its samples and writes into them later
    for old in ds.kept:
        old.add_(100)
    x = T.full((2,), float(i))
    ds.kept.append(x)
    return x, i


SAMPLES = {
    "tensor_int": lambda T, i, ds: (T.arange(6.0).reshape(2, 3) * i, i),
    "bare_tensor": lambda T, i, ds: T.arange(4) + i,
    "mixed_fields": lambda T, i, ds: (T.ones(3, dtype=T.float64) * i, np.int64(i), i / 2, f"s{i}", T.tensor(i)),
    "views": lambda T, i, ds: (T.arange(24.0).reshape(6, 4)[i], i),
    "noncontig_views": lambda T, i, ds: (T.arange(24.0).reshape(4, 6)[:, i], i),
    "reused_buffer": _reuse,
    "kept_and_changed": _kept_and_changed,
    "shape_changes": lambda T, i, ds: (T.zeros(2 if i < 3 else 3), i),
    "dtype_changes": lambda T, i, ds: (T.zeros(2, dtype=T.float32 if i < 2 else T.float64), i),
    "grad_midway": lambda T, i, ds: (T.ones(2, requires_grad=i == 2) * 1.0, i),
    "length_changes": lambda T, i, ds: (T.zeros(2), i) if i < 4 else (T.zeros(2),),
    "type_changes": lambda T, i, ds: (T.zeros(2), i) if i < 3 else [T.zeros(2), i],
    "field_type_changes": lambda T, i, ds: (T.zeros(2) if i < 3 else np.zeros(2, np.float32), i),
    "bad_field_midway": lambda T, i, ds: (T.zeros(2), i if i < 3 else [i]),
    "int_then_float": lambda T, i, ds: (T.zeros(2), i if i < 3 else i + 0.5),
    "first_not_tensor": lambda T, i, ds: (i, T.zeros(2)),
    "dicts": lambda T, i, ds: {"x": T.zeros(2) + i, "y": i},
}


def _batches(T, name, batch_size=4):
    import torch.utils.data as tdata
    dm = tdata if T is torch else ember.utils.data
    loader = dm.DataLoader(_Samples(T, SAMPLES[name]), batch_size=batch_size)
    try:
        return [b for b in loader]
    except Exception as e:  # noqa: BLE001 - both must raise alike
        return ("raised", type(e), str(e).replace("torch.", ""))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_dataloader_batches_match_torch(name):
    ours, theirs = _batches(ember, name), _batches(torch, name)
    if isinstance(theirs, tuple):
        assert ours[:2] == theirs[:2], (ours, theirs)
        return
    assert not isinstance(ours, tuple), ours
    if name == "grad_midway":
        assert ours[0][0].requires_grad and theirs[0][0].requires_grad
        ours, theirs = ([[x.detach(), y] for x, y in bs] for bs in (ours, theirs))
    for a, b in zip(ours, theirs, strict=True):
        _same(a, b)
