"""DLPack: zero-copy exchange of ember tensors with NumPy and PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_to_ember_and_back_shares_memory(dtype):
    t = torch.arange(12).view(3, 4).t().to(getattr(torch, dtype))
    e = ember.from_dlpack(t)
    assert str(e.dtype) == str(t.dtype) and e.shape == t.shape and e.stride() == t.stride()
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert e.data_ptr() == t.data_ptr()
    back = torch.from_dlpack(e)
    assert back.data_ptr() == t.data_ptr() and back.stride() == t.stride()
    assert torch.utils.dlpack.from_dlpack(e.__dlpack__()).data_ptr() == t.data_ptr()


def test_writes_are_visible_both_ways():
    t = torch.zeros(4)
    e = ember.from_dlpack(t)
    e[1] = 5.
    assert t[1].item() == 5.
    back = torch.from_dlpack(ember.arange(3.)[1:])
    assert back.tolist() == [1., 2.]


def test_numpy_both_ways_and_capsules():
    a = np.arange(6.).reshape(2, 3)
    e = ember.from_dlpack(a)
    assert np.shares_memory(e.numpy(), a)
    b = np.from_dlpack(e)
    assert np.shares_memory(b, a)
    assert ember.from_dlpack(torch.ones(2).__dlpack__()).tolist() == [1., 1.]  # a bare capsule
    assert e.__dlpack_device__() == (1, 0)
    assert ember.from_dlpack(e).data_ptr() == e.data_ptr()


def test_export_errors_match_torch():
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        ember.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        torch.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="bfloat16"):
        ember.ones(2, dtype=ember.bfloat16).__dlpack__()
    with pytest.raises(TypeError, match="__dlpack__"):
        ember.from_dlpack([1, 2])


def test_module_level_to_dlpack_and_vmap_alias():
    import torch

    import ember
    x = ember.arange(3.0)
    assert torch.from_dlpack(ember.to_dlpack(x)).tolist() == [0.0, 1.0, 2.0]
    assert ember.vmap(lambda v: v * 2)(ember.ones(2, 3)).shape == (2, 3)
