"""FFT primitives (layer L1): torch's three internal transforms over NumPy's pocketfft.

``fft_c2c`` (complex -> complex), ``fft_r2c`` (real -> complex, one-sided or full) and ``fft_c2r``
(one-sided complex -> real of ``last_dim_size``) over the dims ``dim``; every public ``torch.fft``
function is a thin composite over them (padding/trimming to ``n``/``s`` happen before, with ember ops).
``normalization`` is torch's: 0 none, 1 by ``1/sqrt(n)``, 2 by ``1/n``; it does not depend on the
direction, so the adjoint of a transform is the opposite-direction transform with the same scaling.
NumPy 2 computes complex64 in single precision, so dtypes are preserved.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from ._registry import TensorMeta, primitive
from .shape_copy import cat

__all__ = ["fft_c2c", "fft_r2c", "fft_c2r"]

_FWD_NORM = ("backward", "ortho", "forward")   # numpy's name of each scaling, forward transform
_INV_NORM = ("forward", "ortho", "backward")   # ... inverse transform


def _cdt(npdt):
    return np.dtype(np.complex64) if npdt in (np.float32, np.complex64) else np.dtype(np.complex128)


def _complex_of(dt):
    return D.complex64 if dt in (D.float32, D.complex64) else D.complex128


def _points(shape, dim):
    """torch refuses a transform over an empty dim (NumPy's ValueError has other words)."""
    for d in dim:
        if shape[d] == 0:
            raise RuntimeError("Invalid number of data points (0) specified")


@primitive("fft_c2c", node_name="FftC2CBackward0")
def fft_c2c(a, *, dim, normalization, forward):
    if a.dtype.kind != "c":
        raise ValueError("fft_c2c: complex input expected")
    if not dim:
        return a.copy()
    _points(a.shape, dim)
    f = np.fft.fftn if forward else np.fft.ifftn
    r = f(a, axes=dim, norm=(_FWD_NORM if forward else _INV_NORM)[normalization])
    return r.astype(a.dtype, copy=False)


@fft_c2c.meta
def _(a, *, dim, normalization, forward):
    if not a.dtype.is_complex:
        raise RuntimeError(f"Unsupported dtype {dtype_title(a.dtype)}")
    _points(a.shape, dim)
    return TensorMeta(a.shape, a.dtype)


@fft_c2c.derivative
def _(grad, *, dim, normalization, forward):
    return fft_c2c(grad, dim=dim, normalization=normalization, forward=not forward)


@primitive("fft_r2c", node_name="FftR2CBackward0")
def fft_r2c(a, *, dim, normalization, onesided):
    if a.dtype.kind != "f":
        raise ValueError("fft_r2c: real input expected")
    _points(a.shape, dim)
    norm = _FWD_NORM[normalization]
    if onesided:
        r = np.fft.rfftn(a, axes=dim, norm=norm)
    else:
        r = np.fft.fftn(a, axes=dim, norm=norm)
    return r.astype(_cdt(a.dtype), copy=False)


@fft_r2c.meta
def _(a, *, dim, normalization, onesided):
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"Unsupported dtype {dtype_title(a.dtype)}")
    _points(a.shape, dim)
    shape = list(a.shape)
    if onesided:
        shape[dim[-1]] = shape[dim[-1]] // 2 + 1
    return TensorMeta(shape, _complex_of(a.dtype))


@fft_r2c.derivative
def _(grad, *, dim, normalization, onesided, a_shape):
    if onesided:
        d = dim[-1] % len(a_shape)
        full, half = a_shape[d], grad.shape[d]
        if full > half:
            zshape = list(grad.shape)
            zshape[d] = full - half
            grad = cat([grad, grad.new_zeros(zshape)], dim=d, sizes=(half, full - half))  # d >= 0
    return fft_c2c(grad, dim=dim, normalization=normalization, forward=False).real


@primitive("fft_c2r", node_name="FftC2RBackward0")
def fft_c2r(a, *, dim, normalization, last_dim_size):
    if a.dtype.kind != "c":
        raise ValueError("fft_c2r: complex input expected")
    _points(a.shape, dim[:-1])
    s = [a.shape[d] for d in dim[:-1]] + [last_dim_size]
    r = np.fft.irfftn(a, s=s, axes=dim, norm=_INV_NORM[normalization])
    return r.astype(np.float32 if a.dtype == np.complex64 else np.float64, copy=False)


@fft_c2r.meta
def _(a, *, dim, normalization, last_dim_size):
    if not a.dtype.is_complex:
        raise RuntimeError(f"Unsupported dtype {dtype_title(a.dtype)}")
    shape = list(a.shape)
    shape[dim[-1]] = last_dim_size
    return TensorMeta(shape, a.dtype.to_real())


@fft_c2r.derivative
def _(grad, *, dim, normalization, last_dim_size):
    gI = fft_r2c(grad, dim=dim, normalization=normalization, onesided=True)
    d = dim[-1] % grad.dim()
    half = gI.shape[d]
    double = last_dim_size - half
    if double > 0:  # the one-sided input stands for two entries of the full spectrum
        w = np.ones(half)
        w[1:1 + double] = 2
        wshape = [1] * gI.dim()
        wshape[d] = half
        gI = gI * gI.new_tensor(w.reshape(wshape), dtype=grad.dtype)
    return gI
