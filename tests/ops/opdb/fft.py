"""Op-database entries for ``torch.fft``: every transform with ``n``/``s``, ``dim`` and each ``norm``,
batched and non-contiguous inputs, complex inputs (built from two real tensors inside the function,
so gradients through complex inputs are checked against torch too), and the helpers.
"""
from __future__ import annotations

import numpy as np

from ._core import FLOAT, OpInfo, Sample, arr, noncontig

CPLX = ("complex64", "complex128")
NORMS = (None, "forward", "ortho")


def _t(name):
    def f(lib, x, **kw):
        return getattr(lib.fft, name)(x, **kw)
    return f


def _c(name):
    """The transform of the complex input ``re + i im`` (both real tensors, so both get gradients)."""
    def f(lib, re, im, **kw):
        return getattr(lib.fft, name)(lib.complex(re, im), **kw)
    return f


def _samples_1d(dt):
    out = [Sample((arr((8,), dt),), name="1-D"), Sample((arr((3, 5), dt),), name="odd length")]
    for norm in NORMS[1:]:
        out.append(Sample((arr((2, 6), dt),), dict(norm=norm), name=f"norm={norm}"))
    out.append(Sample((arr((2, 6), dt),), dict(n=4), name="n trims"))
    out.append(Sample((arr((2, 5), dt),), dict(n=8, dim=0), name="n pads dim 0"))
    out.append(Sample((noncontig(arr((3, 4, 2), dt)),), dict(dim=1), name="noncontig"))
    return out


def _pair_1d(dt):
    return [Sample((s.args[0], arr(s.args[0].array.shape if hasattr(s.args[0], "array") else
                                   s.args[0].shape, dt)), s.kwargs, s.name) for s in _samples_1d(dt)]


def _samples_nd(dt, two=False):
    out = [Sample((arr((4, 6), dt),), name="2-D"), Sample((arr((2, 3, 4), dt),), name="3-D")]
    for norm in NORMS[1:]:
        out.append(Sample((arr((3, 4), dt),), dict(norm=norm), name=f"norm={norm}"))
    out.append(Sample((arr((2, 3, 5), dt),), dict(s=(4, 6)), name="s"))
    out.append(Sample((noncontig(arr((3, 4, 5), dt)),), dict(dim=(0, 2) if not two else (0, 2)),
                      name="noncontig dims"))
    if not two:
        out.append(Sample((arr((2, 3, 4), dt),), dict(s=(3, 4), dim=(0, 1)), name="s and dim"))
        out.append(Sample((arr((2, 4), dt),), dict(dim=(1,)), name="one dim"))
    return out


def _pair_nd(dt, two=False):
    def shape(a):
        return a.array.shape if hasattr(a, "array") else a.shape
    return [Sample((s.args[0], arr(shape(s.args[0]), dt)), s.kwargs, s.name) for s in _samples_nd(dt, two)]


def _irfft_1d(dt):
    """One-sided spectra: the last sample asks for an odd output length."""
    out = [Sample((arr((5,), dt), arr((5,), dt)), name="1-D"),
           Sample((arr((2, 4), dt), arr((2, 4), dt)), dict(n=7), name="odd n"),
           Sample((arr((2, 4), dt), arr((2, 4), dt)), dict(n=4, norm="ortho"), name="trim ortho"),
           Sample((arr((3, 2), dt), arr((3, 2), dt)), dict(dim=0, norm="forward"), name="dim 0")]
    return out


def _errors(dt):
    return [Sample((arr((4,), dt),), dict(n=0), name="n=0"), Sample((arr((4,), dt),), dict(norm="x"), name="norm"),
            Sample((arr((4,), dt),), dict(dim=1), name="dim")]


def _1d_ops():
    ops = []
    for name in ("fft", "ifft", "rfft", "ihfft"):
        ops.append(OpInfo(f"fft.{name}", _t(name), _samples_1d, dtypes=FLOAT, error_samples=_errors))
    for name in ("fft", "ifft"):
        ops.append(OpInfo(f"fft.{name}_complex", _c(name), _pair_1d, dtypes=FLOAT))
        ops.append(OpInfo(f"fft.{name}_complex_dtypes", _t(name), _samples_1d, dtypes=CPLX))
    for name in ("irfft", "hfft"):
        ops.append(OpInfo(f"fft.{name}", _c(name), _irfft_1d, dtypes=FLOAT))
        ops.append(OpInfo(f"fft.{name}_complex_dtypes", _t(name), lambda dt: [
            Sample((arr((2, 5), dt),)), Sample((arr((2, 5), dt),), dict(n=6, norm="ortho"))], dtypes=CPLX))
    return ops


def _nd_ops():
    ops = []
    for name in ("fftn", "ifftn", "rfftn", "ihfftn"):
        ops.append(OpInfo(f"fft.{name}", _t(name), _samples_nd, dtypes=FLOAT))
    for name in ("fft2", "ifft2", "rfft2", "ihfft2"):
        ops.append(OpInfo(f"fft.{name}", _t(name), lambda dt: _samples_nd(dt, True), dtypes=FLOAT))
    for name in ("fftn", "ifftn", "fft2", "ifft2"):
        ops.append(OpInfo(f"fft.{name}_complex", _c(name), lambda dt: _pair_nd(dt, True), dtypes=FLOAT))
    for name in ("irfftn", "hfftn", "irfft2", "hfft2"):
        ops.append(OpInfo(f"fft.{name}", _c(name), lambda dt: [
            Sample((arr((3, 4), dt), arr((3, 4), dt))),
            Sample((arr((2, 3, 4), dt), arr((2, 3, 4), dt)), dict(s=(4, 5)), name="odd s"),
            Sample((arr((3, 4), dt), arr((3, 4), dt)), dict(norm="ortho"), name="ortho")], dtypes=FLOAT))
    ops.append(OpInfo("fft.fftn_complex_dtypes", _t("fftn"), _samples_nd, dtypes=CPLX))
    return ops


def _freq(name):
    def f(lib, n, *r, **kw):
        return getattr(lib.fft, name)(n, *r, **kw)
    return f


def _freq_samples(dt):
    return [Sample((5,)), Sample((6, 0.5)), Sample((1,), dict(d=2.0)), Sample((4,), dict(dtype=None))]


OPS = _1d_ops() + _nd_ops() + [
    # factories: no tensor argument to move to the meta device
    OpInfo("fft.fftfreq", _freq("fftfreq"), _freq_samples, dtypes=("float32",), grad=False, meta=False),
    OpInfo("fft.rfftfreq", _freq("rfftfreq"), _freq_samples, dtypes=("float32",), grad=False, meta=False),
    OpInfo("fft.fftshift", _t("fftshift"), lambda dt: [Sample((arr((5,), dt),)), Sample((arr((3, 4), dt),)),
                                                       Sample((arr((3, 4), dt),), dict(dim=1))],
           dtypes=FLOAT + CPLX),
    OpInfo("fft.ifftshift", _t("ifftshift"), lambda dt: [Sample((arr((5,), dt),)),
                                                         Sample((noncontig(arr((3, 5), dt)),), dict(dim=(0,)))],
           dtypes=FLOAT + CPLX),
]
