"""ember.utils.safetensors against safetensors.torch."""
from __future__ import annotations

import numpy as np
import pytest
import safetensors.torch as st_torch
import torch

import ember
from ember.utils import safetensors as st_ember

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64"]


def _torch_dict():
    g = torch.Generator().manual_seed(0)
    out = {}
    for d in DTYPES:
        x = torch.randn(3, 2, generator=g, dtype=torch.float64) * 5
        out[d] = (x > 0) if d == "bool" else x.to(getattr(torch, d))
    out["scalar"] = torch.tensor(2.5)
    out["empty"] = torch.zeros(0, 3)
    return out


def _eq(e, t):
    assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
    en = e.float().numpy() if e.dtype == ember.bfloat16 else e.numpy()
    tn = t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    np.testing.assert_array_equal(en, tn)


def test_torch_file_to_ember_and_back(tmp_path):
    ref = _torch_dict()
    st_torch.save_file(ref, tmp_path / "t.safetensors", metadata={"format": "pt"})
    got = st_ember.load_file(tmp_path / "t.safetensors")
    assert set(got) == set(ref)
    for k in ref:
        _eq(got[k], ref[k])
    st_ember.save_file(got, tmp_path / "e.safetensors", metadata={"format": "pt"})
    back = st_torch.load_file(tmp_path / "e.safetensors")
    for k in ref:
        assert torch.equal(back[k], ref[k])


def test_bytes_api_both_ways():
    ref = _torch_dict()
    got = st_ember.load(st_torch.save(ref))
    for k in ref:
        _eq(got[k], ref[k])
    back = st_torch.load(st_ember.save(got))
    for k in ref:
        assert torch.equal(back[k], ref[k])


def test_module_state_dict_roundtrip(tmp_path):
    m = ember.nn.Linear(4, 3)
    st_ember.save_file(m.state_dict(), tmp_path / "m.safetensors")
    tm = torch.nn.Linear(4, 3)
    tm.load_state_dict(st_torch.load_file(tmp_path / "m.safetensors"))
    np.testing.assert_array_equal(tm.weight.detach().numpy(), m.weight.detach().numpy())
    m2 = ember.nn.Linear(4, 3)
    m2.load_state_dict(st_ember.load_file(tmp_path / "m.safetensors"))
    assert ember.equal(m2.bias, m.bias)


def test_refusals_match_safetensors_torch():
    x = ember.arange(6.).view(2, 3)
    with pytest.raises(ValueError, match="non contiguous tensor: `t`"):
        st_ember.save({"t": x.t()})
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        st_ember.save({"a": x, "b": x[1]})
    tx = torch.arange(6.).view(2, 3)
    with pytest.raises(ValueError, match="non contiguous tensor: `t`"):
        st_torch.save({"t": tx.t()})
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        st_torch.save({"a": tx, "b": tx[1]})
    # disjoint slices of one buffer are fine, as in torch
    assert set(st_ember.load(st_ember.save({"a": x[0], "b": x[1]}))) == {"a", "b"}
