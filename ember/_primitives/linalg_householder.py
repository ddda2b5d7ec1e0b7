"""``geqrf`` (layer L1): LAPACK's QR factorisation in Householder form, ``(a, tau)``.

``a`` holds R on and above its diagonal and the Householder vectors below it; ``tau`` their
scales. NumPy's ``qr(mode='raw')`` is LAPACK's geqrf (its ``h`` is the transpose). torch has no
derivative for geqrf, so none is registered.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from ._registry import TensorMeta, primitive

__all__ = ["geqrf"]


def _check(a_dtype, ndim):
    if ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not (a_dtype.is_floating_point or a_dtype.is_complex) or a_dtype in (D.float16, D.bfloat16):
        raise RuntimeError(f'"geqrf_cpu" not implemented for \'{dtype_title(a_dtype)}\'')


@primitive("geqrf", num_outputs=2)
def geqrf(a):
    if a.ndim < 2 or a.dtype.kind not in "fc":
        raise ValueError("geqrf: bad input")  # the meta rule raises torch's error
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        return a.copy(), np.zeros(a.shape[:-2] + (k,), dtype=a.dtype)
    h, tau = np.linalg.qr(a, mode="raw")
    return np.ascontiguousarray(np.swapaxes(h, -1, -2)).astype(a.dtype, copy=False), \
        np.ascontiguousarray(tau).astype(a.dtype, copy=False)


@geqrf.meta
def _(a):
    _check(a.dtype, len(a.shape))
    m, n = a.shape[-2:]
    return TensorMeta(tuple(a.shape), a.dtype), TensorMeta(tuple(a.shape[:-2]) + (min(m, n),), a.dtype)
