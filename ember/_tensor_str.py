"""Tensor repr (layer L2). Interim: a compact form; torch's exact formatting lands with printoptions."""
from __future__ import annotations

import numpy as np

__all__ = ["tensor_repr"]


def tensor_repr(t) -> str:
    if t._data is None:
        return f"tensor(..., device='meta', size={tuple(t.shape)})"
    arr = t._data.astype(np.float32) if t.dtype.name in ("float16", "bfloat16") else t._data
    body = np.array2string(arr, separator=", ", prefix="tensor(")
    extra = []
    if t.dtype.name not in ("float32", "int64", "bool"):
        extra.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        extra.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        extra.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extra) + ")"
