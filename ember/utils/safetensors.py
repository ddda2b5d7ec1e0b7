"""safetensors files for ember state dicts, mirroring ``safetensors.torch`` (layer L3).

Built on the ``safetensors`` package's core (``serialize_file``, ``safe_open`` with NumPy); bfloat16
goes through ``ml_dtypes``, which NumPy's safetensors API does not know.

Example:
    >>> import ember
    >>> from ember.utils.safetensors import save, load
    >>> load(save({"w": ember.ones(2, dtype=ember.bfloat16)}))["w"]
    tensor([1., 1.], dtype=torch.bfloat16)
"""
from __future__ import annotations

import json
import os
import struct

import numpy as np

from .. import _dtype as D
from .._dispatch import wrap

__all__ = ["save", "save_file", "load", "load_file"]

_TO_ST = {D.float64: "F64", D.float32: "F32", D.float16: "F16", D.bfloat16: "BF16", D.int64: "I64",
          D.int32: "I32", D.int16: "I16", D.int8: "I8", D.uint8: "U8", D.bool: "BOOL",
          D.complex64: "C64", D.complex128: "C128"}
_FROM_ST = {v: k for k, v in _TO_ST.items()}


def _specs(tensors: dict, keep: list) -> dict:
    from safetensors import TensorSpec
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    _check_shared(tensors)
    out = {}
    for k, t in tensors.items():
        if not hasattr(t, "_data") or t._data is None:
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(t)}")
        if not t.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. It either "
                "means you are trying to save tensors which are reference of each other in which case "
                "it's recommended to save only the full tensors, and reslice at load time, or simply "
                "call `.contiguous()` on your tensor to pack it before saving.")
        arr = t._data if t._data.flags.c_contiguous else t._data.copy()  # ascontiguousarray makes 0-d 1-d
        keep.append(arr)
        out[k] = TensorSpec(dtype=str(t.dtype).split(".")[-1], shape=tuple(arr.shape),
                            data_ptr=arr.ctypes.data, data_len=arr.nbytes)
    return out


def _check_shared(tensors: dict) -> None:
    # torch refuses tensors whose memory overlaps: the file would hold two copies that then diverge
    spans = {}
    for k, t in tensors.items():
        if getattr(t, "_data", None) is None or t.numel() == 0:
            continue
        st = t.untyped_storage()
        start = t.data_ptr()
        spans.setdefault(st.data_ptr(), []).append((start, start + t.nbytes, k))
    failing = []
    for group in spans.values():
        group.sort()
        names, end = [group[0][2]], group[0][1]
        for s, e, k in group[1:]:
            if s < end:
                names.append(k)
                end = max(end, e)
            else:
                if len(names) > 1:
                    failing.append(names)
                names, end = [k], e
        if len(names) > 1:
            failing.append(names)
    if failing:
        raise RuntimeError(
            f"\n            Some tensors share memory, this will lead to duplicate memory on disk and "
            f"potential differences when loading them again: {failing}.\n            A potential way "
            "to correctly save your model is to use `save_model`.\n            More information at "
            "https://huggingface.co/docs/safetensors/torch_shared_tensors\n            ")


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The safetensors bytes of a ``{name: Tensor}`` dict (tensors contiguous, not overlapping)."""
    from safetensors import serialize
    keep: list = []
    return bytes(serialize(_specs(tensors, keep), metadata=metadata))


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Write a ``{name: Tensor}`` dict to ``filename`` in safetensors format."""
    from safetensors import serialize_file
    keep: list = []
    serialize_file(_specs(tensors, keep), os.fspath(filename), metadata=metadata)


def _tensor(arr: np.ndarray, st_dtype: str):
    dt = _FROM_ST.get(st_dtype)
    if dt is None:
        raise TypeError(f"ember has no dtype for safetensors type {st_dtype}")
    return wrap(arr, dt)


def load(data: bytes) -> dict:
    """Tensors from safetensors bytes."""
    from safetensors import deserialize
    out = {}
    for name, v in deserialize(data):
        dt = _FROM_ST.get(v["dtype"])
        if dt is None:
            raise TypeError(f"ember has no dtype for safetensors type {v['dtype']}")
        arr = np.frombuffer(v["data"], dt.np).reshape(v["shape"])
        out[name] = wrap(arr, dt)
    return out


def load_file(filename, device="cpu") -> dict:
    """Tensors from a safetensors file (bfloat16 included)."""
    from safetensors import safe_open
    if str(device) != "cpu":
        raise RuntimeError(f"ember loads safetensors on 'cpu' only, not {device!r}")
    filename = os.fspath(filename)
    out, bf16 = {}, []
    with safe_open(filename, framework="np") as f:
        keys = list(f.keys())
        for k in keys:
            if f.get_slice(k).get_dtype() == "BF16":
                bf16.append(k)
            else:
                arr = f.get_tensor(k)
                out[k] = wrap(arr, D.FROM_NP[arr.dtype])
    if bf16:  # NumPy's safetensors reader does not know bfloat16: read those records directly
        with open(filename, "rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(n))
            for k in bf16:
                lo, hi = header[k]["data_offsets"]
                fh.seek(8 + n + lo)
                arr = np.frombuffer(bytearray(fh.read(hi - lo)), D.bfloat16.np)
                out[k] = wrap(arr.reshape(header[k]["shape"]), D.bfloat16)
    return {k: out[k] for k in keys}
