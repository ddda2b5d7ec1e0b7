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
