"""``torch.fft``: discrete Fourier transforms over ``_primitives/fft.py``'s three primitives.

Every function takes torch's ``n``/``s`` (pad with zeros or trim first), ``dim`` and ``norm``
('backward' default, 'forward', 'ortho'); real inputs promote to complex of the same precision and
complex64 stays complex64. All are differentiable.

Example:
    >>> import ember
    >>> ember.fft.fft(ember.tensor([1., 0., 0., 0.])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
"""
from __future__ import annotations

from .. import _dtype as D
from .._creation import arange
from .._errors import dtype_title
from .._shape import normalize_dim
from .._tensor_methods.shape_copy import cat, roll
from .._tensor_methods.linalg_decomp import _out
from .._primitives import fft as F
from ..overrides import public

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]


def _norm(norm, forward):
    """torch's normalization code (0 none, 1 1/sqrt(n), 2 1/n) for a transform's direction."""
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _float(x, name=None, real=False):
    """Promote integers to the default float dtype; refuse half precision as torch's CPU FFT does."""
    dt = x.dtype
    if dt.is_complex:
        if real:
            raise RuntimeError(f"{name} expects a real input tensor, but got {dtype_title(dt)}")
        return x
    if dt in (D.float16, D.bfloat16):
        raise RuntimeError(f"Unsupported dtype {dtype_title(dt)}")
    if not dt.is_floating_point:
        return x.to(D.get_default_dtype())
    return x


def _complex(x):
    x = _float(x)
    if x.dtype.is_complex:
        return x
    return x.to(D.complex64 if x.dtype is D.float32 else D.complex128)


def _resize(x, d, n):
    """Trim or zero-pad dim ``d`` of ``x`` to ``n``."""
    size = x.shape[d]
    if n == size:
        return x
    if n < size:
        return x.narrow(d, 0, n)
    zs = list(x.shape)
    zs[d] = n - size
    return cat([x, x.new_zeros(zs)], d)


def _check_n(n):
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _dims_1d(x, n, dim):
    _check_n(n)
    return normalize_dim(dim, x.dim())


def _shape_dims(x, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: (sizes, dims)."""
    nd = x.dim()
    if dim is not None:
        dim = [dim] if isinstance(dim, int) else list(dim)
        dims = [normalize_dim(d, nd) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} "
                               f"dimensions.")
        dims = list(range(nd - len(s), nd))
    else:
        dims = list(range(nd))
    if s is None:
        sizes = [x.shape[d] for d in dims]
    else:
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
        for n in sizes:
            _check_n(n)
    return sizes, dims


# ------------------------------------------------------------------------------ c2c family
def _c2c(x, sizes, dims, norm, forward):
    x = _float(x)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n)
    code = _norm(norm, forward)
    if not x.dtype.is_complex:  # real input: torch runs a full (two-sided) r2c
        r = F.fft_r2c(x, dim=tuple(dims), normalization=code, onesided=False)
        return r if forward else r.conj()
    return F.fft_c2c(x, dim=tuple(dims), normalization=code, forward=forward)


@public
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional discrete Fourier transform along ``dim``."""
    d = _dims_1d(input, n, dim)
    return _out(_c2c(input, [input.shape[d] if n is None else n], [d], norm, True), out)


@public
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """One-dimensional inverse DFT along ``dim``."""
    d = _dims_1d(input, n, dim)
    return _out(_c2c(input, [input.shape[d] if n is None else n], [d], norm, False), out)


@public
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional DFT over ``dim`` (all dims, or the last ``len(s)``)."""
    sizes, dims = _shape_dims(input, s, dim)
    return _out(_c2c(input, sizes, dims, norm, True), out)


@public
def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional inverse DFT."""
    sizes, dims = _shape_dims(input, s, dim)
    return _out(_c2c(input, sizes, dims, norm, False), out)


@public
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional DFT over ``dim``."""
    return fftn(input, s, dim, norm, out=out)


@public
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional inverse DFT."""
    return ifftn(input, s, dim, norm, out=out)


# ------------------------------------------------------------------------------ real input/output
def _r2c(x, sizes, dims, norm, forward, name):
    x = _float(x, name, real=True)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n)
    r = F.fft_r2c(x, dim=tuple(dims), normalization=_norm(norm, forward), onesided=True)
    return r if forward else r.conj()


def _c2r(x, sizes, dims, norm, forward, last_n):
    """Inverse of a one-sided spectrum: ``sizes`` for all but the last dim, output length ``last_n``."""
    x = _complex(x)
    for d, n in zip(dims[:-1], sizes):
        x = _resize(x, d, n)
    x = _resize(x, dims[-1], last_n // 2 + 1)
    if forward:  # hfft: the transform of the conjugate, with forward scaling
        x = x.conj()
    return F.fft_c2r(x, dim=tuple(dims), normalization=_norm(norm, forward), last_dim_size=last_n)


@public
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """DFT of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    d = _dims_1d(input, n, dim)
    return _out(_r2c(input, [input.shape[d] if n is None else n], [d], norm, True, "rfft"), out)


@public
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of ``hfft``: the one-sided inverse DFT of a real signal."""
    d = _dims_1d(input, n, dim)
    return _out(_r2c(input, [input.shape[d] if n is None else n], [d], norm, False, "ihfft"), out)


def _last_n(x, d, n):
    m = 2 * (x.shape[d] - 1) if n is None else n
    _check_n(m)
    return m


@public
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
    d = _dims_1d(input, n, dim)
    return _out(_c2r(input, [], [d], norm, False, _last_n(input, d, n)), out)


@public
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """DFT of a Hermitian-symmetric signal given by its first half: a real result of length ``n``."""
    d = _dims_1d(input, n, dim)
    return _out(_c2r(input, [], [d], norm, True, _last_n(input, d, n)), out)


@public
def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional DFT of a real input (the last transformed dim one-sided)."""
    sizes, dims = _shape_dims(input, s, dim)
    return _out(_r2c(input, sizes, dims, norm, True, "rfftn"), out)


@public
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional DFT of a real input."""
    return rfftn(input, s, dim, norm, out=out)


def _irfft_args(x, s, dim):
    sizes, dims = _shape_dims(x, s, dim)
    last = sizes[-1] if s is not None and s[-1] != -1 else 2 * (x.shape[dims[-1]] - 1)
    _check_n(last)
    return sizes[:-1], dims, last


@public
def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """Inverse of ``rfftn``; the last dim's output length is ``s[-1]`` (default ``2 * (m - 1)``)."""
    sizes, dims, last = _irfft_args(input, s, dim)
    return _out(_c2r(input, sizes, dims, norm, False, last), out)


@public
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Inverse of ``rfft2``."""
    return irfftn(input, s, dim, norm, out=out)


@public
def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional ``hfft``: real output, the last dim of length ``s[-1]``."""
    sizes, dims, last = _irfft_args(input, s, dim)
    x = _complex(input)
    for d, n in zip(dims[:-1], sizes):
        x = _resize(x, d, n)
    if len(dims) > 1:
        x = F.fft_c2c(x, dim=tuple(dims[:-1]), normalization=_norm(norm, True), forward=True)
    x = _resize(x, dims[-1], last // 2 + 1).conj()
    return _out(F.fft_c2r(x, dim=(dims[-1],), normalization=_norm(norm, True), last_dim_size=last),
                out)


@public
def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``hfft``."""
    return hfftn(input, s, dim, norm, out=out)


@public
def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """N-dimensional ``ihfft`` of a real input: one-sided over the last dim."""
    sizes, dims = _shape_dims(input, s, dim)
    x = _float(input, "ihfftn", real=True)
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n)
    code = _norm(norm, False)
    r = F.fft_r2c(x, dim=(dims[-1],), normalization=code, onesided=True).conj()
    if len(dims) > 1:
        r = F.fft_c2c(r, dim=tuple(dims[:-1]), normalization=code, forward=False)
    return _out(r, out)


@public
def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """Two-dimensional ``ihfft``."""
    return ihfftn(input, s, dim, norm, out=out)


# ------------------------------------------------------------------------------ helpers
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Sample frequencies of an ``n``-point DFT: ``[0, 1, ..., -(n // 2), ..., -1] / (d * n)``.

    >>> import ember
    >>> ember.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    k = arange(n, dtype=dtype or D.get_default_dtype(), device=device)
    k = (k - n * (k >= (n + 1) // 2).to(k.dtype)) / (d * n)
    if requires_grad:
        k.requires_grad_(True)
    return _out(k, out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Sample frequencies of ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``."""
    k = arange(n // 2 + 1, dtype=dtype or D.get_default_dtype(), device=device) / (d * n)
    if requires_grad:
        k.requires_grad_(True)
    return _out(k, out)


def _shift_dims(x, dim):
    if dim is None:
        return list(range(x.dim()))
    return [dim] if isinstance(dim, int) else list(dim)


@public
def fftshift(input, dim=None):
    """Move the zero frequency to the centre (roll by ``n // 2`` along ``dim``)."""
    dims = _shift_dims(input, dim)
    return roll(input, [input.shape[d] // 2 for d in dims], dims) if dims else input.clone()


@public
def ifftshift(input, dim=None):
    """Inverse of ``fftshift``."""
    dims = _shift_dims(input, dim)
    return roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims) if dims else input.clone()
