"""Tensor printing: ``repr(ember_tensor) == repr(torch_tensor)`` over many shapes, dtypes and options."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)


def _both(arr, dtype=None, **kw):
    """The same values as an ember and a torch tensor."""
    arr = np.asarray(arr)
    e = ember.tensor(arr, dtype=getattr(ember, dtype) if dtype else None, **kw)
    t = torch.tensor(arr, dtype=getattr(torch, dtype) if dtype else None, **kw)
    return e, t


def _same(e, t):
    assert repr(e) == repr(t), f"\nember:\n{e!r}\ntorch:\n{t!r}"
    assert str(e) == str(t)


VALUES = {
    "small_floats": RNG.standard_normal((3, 4)).astype(np.float32),
    "int_valued": np.array([1.0, -2.0, 3.0, 100.0], np.float32),
    "with_zero": np.array([0.0, 1.5, -0.25], np.float32),
    "wide_range": np.array([1e-5, 1.0, 1e5], np.float32),
    "large": np.array([1e9, 2.5e9], np.float32),
    "tiny": np.array([1e-6, 3e-7], np.float32),
    "ratio_1000": np.array([0.001, 1.0, 1.5], np.float32),
    "nan_inf": np.array([np.nan, np.inf, -np.inf, 1.5], np.float32),
    "nan_inf_int": np.array([np.nan, np.inf, -np.inf, 2.0], np.float32),
    "only_nan": np.array([np.nan, np.nan], np.float32),
    "zeros": np.zeros((2, 3), np.float32),
    "neg_zero": np.array([-0.0, 0.0, 1.0], np.float32),
    "3d": RNG.standard_normal((2, 3, 4)).astype(np.float32),
    "4d": RNG.standard_normal((2, 2, 2, 3)).astype(np.float32),
    "long_row": RNG.standard_normal(40).astype(np.float32),
    "long_int_row": np.arange(60),
    "big_ints": np.array([1, -12345678901, 7]),
    "bools": np.array([[True, False], [False, True]]),
    "one_elem": np.array([3.25], np.float32),
    "mixed_width": np.array([1.0, 123.456, -7.5], np.float32),
    "round_up": np.array([0.99999, 9.99995], np.float32),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_repr_matches_torch(name):
    _same(*_both(VALUES[name]))


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int32", "int16", "int8",
                                   "uint8", "complex64", "complex128"])
def test_dtype_suffix(dtype):
    vals = np.array([[1.5, -2.25, 3.0], [0.125, 4.0, 5.5]])
    if dtype.startswith("complex"):
        vals = vals + 1j * vals[::-1]
    elif dtype.startswith(("int", "uint")):
        vals = np.abs(vals).astype(np.int64)
    _same(*_both(vals, dtype))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 4), (3, 0)])
@pytest.mark.parametrize("dtype", [None, "int64", "float64", "bool"])
def test_empty(shape, dtype):
    e = ember.zeros(shape, dtype=getattr(ember, dtype) if dtype else None)
    t = torch.zeros(shape, dtype=getattr(torch, dtype) if dtype else None)
    _same(e, t)


@pytest.mark.parametrize("value", [3.5, 2.0, -0.0, 1e-7, 12345678.0, float("nan"), float("inf")])
def test_zero_dim(value):
    _same(ember.tensor(value), torch.tensor(value))
    _same(ember.tensor(value, dtype=ember.float64), torch.tensor(value, dtype=torch.float64))


def test_zero_dim_int_bool_complex():
    for v in (7, True, 1 + 2j, -1.5 - 0.5j):
        _same(ember.tensor(v), torch.tensor(v))


@pytest.mark.parametrize("shape", [(1001,), (2000,), (40, 30), (5, 300), (11, 11, 11), (3, 400)])
def test_summarized(shape):
    arr = RNG.standard_normal(shape).astype(np.float32)
    _same(*_both(arr))
    ints = RNG.integers(-50, 50, shape)
    _same(*_both(ints))


def test_summarized_complex():
    arr = (RNG.standard_normal((30, 40)) + 1j * RNG.standard_normal((30, 40))).astype(np.complex64)
    _same(*_both(arr))


def test_complex_cases():
    for vals in ([1 + 2j, -3.5 - 0.25j], [0j, 1j], [1e-6 + 1e6j, 2 + 0j], [complex("nan+1j")]):
        _same(*_both(np.array(vals, np.complex64)))


def test_requires_grad_and_grad_fn():
    a = np.array([1.0, 2.0, 3.0], np.float32)
    e = ember.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    _same(e, t)
    _same(e * 2, t * 2)
    _same(e + 1, t + 1)
    _same((e * e).sum(), (t * t).sum())
    _same(ember.tensor(a, dtype=ember.float64, requires_grad=True) * 3,
          torch.tensor(a, dtype=torch.float64, requires_grad=True) * 3)


def test_suffix_wraps_to_new_line():
    arr = RNG.standard_normal((3, 7)).astype(np.float64)
    e = ember.tensor(arr, requires_grad=True)
    t = torch.tensor(arr, requires_grad=True)
    _same(e * 2, t * 2)


def test_meta():
    _same(ember.empty(2, 3, device="meta"), torch.empty(2, 3, device="meta"))
    _same(ember.empty(4, dtype=ember.int64, device="meta"),
          torch.empty(4, dtype=torch.int64, device="meta"))
    _same(ember.empty(0, device="meta"), torch.empty(0, device="meta"))


def test_noncontiguous_and_views():
    arr = RNG.standard_normal((4, 5)).astype(np.float32)
    e, t = _both(arr)
    _same(e.t(), t.t())
    _same(e[1], t[1])
    _same(e[:, 2], t[:, 2])


@pytest.mark.parametrize("opts", [
    dict(precision=2), dict(precision=8), dict(threshold=5), dict(edgeitems=1, threshold=10),
    dict(linewidth=40), dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"),
    dict(profile="full"), dict(edgeitems=0, threshold=3),
])
def test_printoptions(opts):
    arrs = [RNG.standard_normal((6, 7)).astype(np.float32), np.arange(20),
            np.array([1e-5, 1.0, 1e5], np.float32), np.array([1.0, 2.0], np.float32),
            RNG.standard_normal(2000).astype(np.float32)]
    try:
        ember.set_printoptions(**opts)
        torch.set_printoptions(**opts)
        for a in arrs:
            _same(*_both(a))
    finally:
        ember.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_printoptions_context_and_get():
    assert ember.get_printoptions() == torch._tensor_str.get_printoptions()
    with ember.printoptions(precision=1):
        assert repr(ember.tensor([1.25])) == "tensor([1.2])"
    assert repr(ember.tensor([1.25])) == "tensor([1.2500])"


def test_default_dtype_float64():
    arr = np.array([1.5, 2.0])
    try:
        ember.set_default_dtype(ember.float64)
        torch.set_default_dtype(torch.float64)
        for dt in (None, "float32", "complex128", "complex64"):
            a = arr + 0j if dt and dt.startswith("complex") else arr
            _same(*_both(a, dt))
        _same(ember.zeros(0, 2), torch.zeros(0, 2))
    finally:
        ember.set_default_dtype(ember.float32)
        torch.set_default_dtype(torch.float32)


def test_random_values_many_shapes():
    for shape in [(1,), (2, 1), (1, 1, 1), (7,), (3, 3, 3)]:
        for scale in (1e-3, 1.0, 50.0, 1e4):
            arr = (RNG.standard_normal(shape) * scale).astype(np.float32)
            _same(*_both(arr))
            _same(*_both(arr.astype(np.float64)))


def test_str_is_repr():
    e = ember.ones(2)
    assert str(e) == repr(e) == "tensor([1., 1.])"
