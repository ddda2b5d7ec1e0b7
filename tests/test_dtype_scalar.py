"""Python scalars written into every dtype, against torch live: for each op (fill_, full, new_full,
full_like, t[i] = v, t[1:] = v, t[mask] = v, masked_fill, index_fill) and each (dtype, value), the
stored value or the exception type and message must equal torch's."""
import math
import warnings

import pytest
import torch

import ember
from ember._dtype_scalar import checked_scalar, setitem_scalar

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint64", "float16", "bfloat16",
          "float32", "float64", "complex32", "complex64", "complex128"]
# the ranges' edges: uint8's negative wrap, float16/float32 maxima, the Scalar and long long limits,
# NaN/inf, complex parts, floats rounding the int64/uint64 maxima up
VALUES = [300, -1, -256, -255, -129, 128, 70000, 1e40, 3.5e38, 3.4028235e38, math.inf, -math.inf,
          math.nan, 2 ** 63, 2 ** 64 - 1, 2 ** 64, 2 ** 70, -2 ** 63, -2 ** 63 - 1, 1 + 2j, 1 + 0j,
          complex(0, math.nan), complex(1e40, 0), 65504, 65505, 65520, True, -0.5, 127.9, 255.9,
          -128.7, 2.0 ** 63, 2.0 ** 64, -1e-50]


def _run(lib, op, dt, v):
    z = lib.zeros(3, dtype=dt)
    mask = lib.tensor([True, False, True])
    if op == "fill_":
        return z.fill_(v)
    if op == "full":
        return lib.full((3,), v, dtype=dt)
    if op == "new_full":
        return lib.zeros(1).new_full((3,), v, dtype=dt)
    if op == "full_like":
        return lib.full_like(z, v)
    if op == "setitem_int":
        z[0] = v
        return z
    if op == "setitem_slice":
        z[1:] = v
        return z
    if op == "setitem_mask":
        z[mask] = v
        return z
    if op == "masked_fill":
        return z.masked_fill(mask, v)
    if op == "masked_fill_":
        return z.masked_fill_(mask, v)
    if op == "index_fill":
        return z.index_fill(0, lib.tensor([0, 2]), v)
    raise AssertionError(op)


def _outcome(lib, op, dt, v):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns when a complex value loses its imag part
            return "ok", repr(_run(lib, op, getattr(lib, dt), v).tolist())
    except Exception as e:  # noqa: BLE001 - the exception type and message are what we compare
        return type(e).__name__, str(e).splitlines()[0] if str(e) else ""


OPS = ["fill_", "full", "new_full", "full_like", "setitem_int", "setitem_slice", "setitem_mask",
       "masked_fill", "masked_fill_", "index_fill"]
KNOWN_GAPS = {("setitem_mask", "uint64")}  # torch refuses (masked_fill has no UInt64 kernel)


@pytest.mark.parametrize("op", OPS)
def test_matches_torch(op):
    bad = []
    for dt in DTYPES:
        if (op, dt) in KNOWN_GAPS:
            continue
        for v in VALUES:
            want, got = _outcome(torch, op, dt, v), _outcome(ember, op, dt, v)
            if want != got:
                bad.append(f"{dt} {v!r}: torch {want} ember {got}")
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:20])


def test_helper_rules():
    assert checked_scalar(-1, ember.uint8) == 255 and checked_scalar(-255, ember.uint8) == 1
    assert checked_scalar(2.0 ** 63, ember.int64) == -2 ** 63  # the C cast wraps it, as in torch
    assert checked_scalar(complex(2, 0), ember.int32) == 2.0
    assert checked_scalar(math.nan, ember.bool) is True
    with pytest.raises(RuntimeError, match="type c10::Half without overflow"):
        checked_scalar(65505, ember.float16)
    with pytest.raises(OverflowError, match="int too big to convert"):
        checked_scalar(2 ** 64, ember.float64)
    assert setitem_scalar(70000, ember.float16) == math.inf
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        setitem_scalar(2 ** 63, ember.float64)


def test_fast_path_floats_are_stored_as_given():
    x = ember.zeros(2)
    assert x.fill_(0.1).tolist() == torch.zeros(2).fill_(0.1).tolist()
    assert x.fill_(3).dtype is ember.float32 and x.tolist() == [3.0, 3.0]


def _set_part(lib, dt, part, v):
    t = lib.zeros(2, dtype=getattr(lib, dt))
    try:
        setattr(t, part, v)
        return "ok", repr(t.tolist())
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)


@pytest.mark.parametrize("part", ["real", "imag"])
def test_part_setters_match_torch(part):
    """``t.real = v`` / ``t.imag = v`` convert as ``t[...] = v`` does (float16 parts round to inf)."""
    bad = [(dt, v, _set_part(torch, dt, part, v), _set_part(ember, dt, part, v))
           for dt in ("complex32", "complex64", "complex128", "float16", "float32", "int32", "uint8", "bool")
           for v in VALUES if _set_part(torch, dt, part, v) != _set_part(ember, dt, part, v)]
    assert not bad, bad[:10]


@pytest.mark.parametrize("bound", ["min", "max"])
def test_clamp_number_bounds_match_torch(bound):
    """Number bounds convert into the result dtype (uint8 min=-1 wraps to 255; float16 refuses
    70000; a complex result is refused)."""
    def outcome(lib, dt, v):
        try:
            return "ok", repr(lib.zeros(3, dtype=getattr(lib, dt)).clamp(**{bound: v}).tolist())
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    skip = {-1e-50}  # torch keeps 0.0 where NumPy's maximum returns the -0.0 bound
    bad = [(dt, v, outcome(torch, dt, v), outcome(ember, dt, v))
           for dt in ("uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                      "complex64")
           for v in VALUES if v not in skip and outcome(torch, dt, v) != outcome(ember, dt, v)]
    assert not bad, bad[:10]
