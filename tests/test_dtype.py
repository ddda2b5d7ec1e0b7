"""dtypes: promotion tables, result types of real additions, can_cast, finfo/iinfo and the default
dtype, all checked against torch."""
import itertools
import pickle

import numpy as np
import pytest
import torch

import ember

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64", "complex64", "complex128", "complex32"]
PAIRS = list(itertools.product(NAMES, NAMES))


def _torch_name(dtype) -> str:
    return str(dtype)
SCALARS = [True, 2, 2.5, 1 + 1j]
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")


def _pair(name, shape):
    """The same small values as an ember and a torch tensor of dtype ``name``."""
    vals = np.ones(shape) if name != "bool" else np.ones(shape, bool)
    e = ember.tensor(vals, dtype=getattr(ember, name))
    t = torch.tensor(vals, dtype=getattr(torch, name))
    return e, t


def test_promote_types_table():
    bad = [(a, b) for a, b in PAIRS
           if str(ember.promote_types(getattr(ember, a), getattr(ember, b)))
           != str(torch.promote_types(getattr(torch, a), getattr(torch, b)))]
    assert not bad


@pytest.mark.parametrize("shapes", [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())],
                         ids=["dim+dim", "dim+0dim", "0dim+dim", "0dim+0dim"])
def test_add_result_dtype_tensors(shapes):
    bad = []
    for a, b in PAIRS:
        ea, ta = _pair(a, shapes[0])
        eb, tb = _pair(b, shapes[1])
        try:
            expected = _torch_name((ta + tb).dtype)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                ea + eb
            continue
        got = str((ea + eb).dtype)
        if got != expected:
            bad.append((a, b, got, expected))
    assert not bad


@pytest.mark.parametrize("shape", [(2,), ()], ids=["dim", "0dim"])
def test_add_result_dtype_scalars(shape):
    bad = []
    for name, s in itertools.product(NAMES, SCALARS):
        e, t = _pair(name, shape)
        for ef, tf in ((lambda: e + s, lambda: t + s), (lambda: s + e, lambda: s + t)):
            try:
                expected = _torch_name(tf().dtype)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    ef()
                continue
            got = str(ef().dtype)
            if got != expected:
                bad.append((name, s, got, expected))
    assert not bad


def test_can_cast_table():
    bad = [(a, b) for a, b in PAIRS
           if ember.can_cast(getattr(ember, a), getattr(ember, b))
           != torch.can_cast(getattr(torch, a), getattr(torch, b))]
    assert not bad


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64", "complex64",
                                  "complex128"])
def test_finfo(name):
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(e, attr) == getattr(t, attr), attr


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo(name):
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(e, attr) == getattr(t, attr), attr


def test_info_errors():
    with pytest.raises(TypeError):
        ember.finfo(ember.int32)
    with pytest.raises(TypeError):
        ember.iinfo(ember.float32)
    assert ember.finfo().eps == torch.finfo().eps


def test_dtype_attributes():
    for name in NAMES:
        e, t = getattr(ember, name), getattr(torch, name)
        assert repr(e) == repr(t) and str(e) == str(t)
        assert e.is_floating_point == t.is_floating_point
        assert e.is_complex == t.is_complex
        assert e.is_signed == t.is_signed
        assert e.itemsize == t.itemsize
        assert pickle.loads(pickle.dumps(e)) is e
    for alias in ("half", "float", "double", "short", "int", "long", "cfloat", "cdouble"):
        assert repr(getattr(ember, alias)) == repr(getattr(torch, alias))


def test_default_dtype():
    assert ember.get_default_dtype() is ember.float32
    try:
        ember.set_default_dtype(ember.float64)
        torch.set_default_dtype(torch.float64)
        assert ember.tensor(1.5).dtype is ember.float64
        assert ember.tensor(1 + 2j).dtype is ember.complex128
        assert ember.ones(2).dtype is ember.float64
        assert ember.arange(2.0).dtype is ember.float64
        for name in NAMES:
            e, t = _pair(name, (2,))
            assert str((e + 2.5).dtype) == str((t + 2.5).dtype)
            assert str((e + 1j).dtype) == _torch_name((t + 1j).dtype)
        ember.set_default_dtype(ember.float16)
        torch.set_default_dtype(torch.float16)
        assert str((ember.ones(2, dtype=ember.int32) * 1.5).dtype) == \
            str((torch.ones(2, dtype=torch.int32) * 1.5).dtype)
        assert str(ember.tensor(1j).dtype) == _torch_name(torch.tensor(1j).dtype)
    finally:
        ember.set_default_dtype(ember.float32)
        torch.set_default_dtype(torch.float32)
    assert ember.tensor(1.5).dtype is ember.float32
    with pytest.raises(TypeError):
        ember.set_default_dtype(ember.int64)
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)
