"""ember/_global_flags.py against torch: legacy and process-wide entry points."""
import warnings

import numpy as np
import pytest
import torch

import ember


def test_matmul_precision_and_warn_always_round_trip():
    for lib in (ember, torch):
        lib.set_float32_matmul_precision("high")
        assert lib.get_float32_matmul_precision() == "high"
        lib.set_float32_matmul_precision("highest")
        lib.set_warn_always(False)
        assert lib.is_warn_always_enabled() is False
    with pytest.warns(UserWarning, match="is not one of 'highest'"):
        ember.set_float32_matmul_precision("x")


def test_asarray_frombuffer_range_match_torch():
    a = np.arange(4.0)
    for lib in (ember, torch):
        assert lib.asarray(a).data_ptr() == a.ctypes.data  # shares memory
        assert lib.asarray(a, copy=True).data_ptr() != a.ctypes.data
        assert lib.asarray([1, 2]).dtype == lib.int64
    buf = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")
    assert ember.frombuffer(buf, dtype=ember.int32).tolist() == \
        torch.frombuffer(bytearray(buf), dtype=torch.int32).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ember.range(0, 3).tolist() == torch.range(0, 3).tolist()
        assert ember.range(1, 2, 0.5).tolist() == torch.range(1, 2, 0.5).tolist()


def test_predicates_and_legacy_methods():
    for lib in (ember, torch):
        t = lib.ones(2)
        assert lib.is_signed(lib.tensor([1], dtype=lib.uint8)) is False
        assert lib.is_signed(t) is True
        assert lib.is_storage(t.untyped_storage())
        assert t.new(2, 3).shape == (2, 3) and t.new([1.0, 2.0]).tolist() == [1.0, 2.0]
        assert [x.item() for x in reversed(lib.arange(3))] == [2, 1, 0]
        assert t.get_device() == -1


def test_set_default_tensor_type():
    try:
        ember.set_default_tensor_type("torch.DoubleTensor")
        assert ember.get_default_dtype() is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
