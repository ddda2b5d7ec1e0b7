"""ember.fft against torch.fft: values and dtypes (complex64 stays complex64), n/s/dim/norm,
real/complex/integer inputs, gradients vs torch and float64 gradcheck, errors, helpers."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 6)).astype(np.float32)
CX = (RNG.standard_normal((3, 4, 6)) + 1j * RNG.standard_normal((3, 4, 6))).astype(np.complex64)
NORMS = [None, "backward", "forward", "ortho"]


def close(e, t, tol=1e-5):
    a, b = e.detach().numpy(), t.detach().resolve_conj().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, atol=tol, rtol=tol)


def both(fn, arr, **kw):
    return getattr(ember.fft, fn)(ember.tensor(arr), **kw), getattr(torch.fft, fn)(torch.tensor(arr), **kw)


@pytest.mark.parametrize("fn", ["fft", "ifft", "rfft", "ihfft", "irfft", "hfft"])
@pytest.mark.parametrize("norm", NORMS)
def test_1d(fn, norm):
    src = [X, X.astype(np.float64)] if fn in ("rfft", "ihfft") else [X, CX, CX.astype(np.complex128)]
    for a in src:
        for n in (None, 4, 9):
            for dim in (-1, 1):
                close(*both(fn, a, n=n, dim=dim, norm=norm), 1e-4)


@pytest.mark.parametrize("fn", ["fft2", "ifft2", "fftn", "ifftn", "rfftn", "rfft2", "ihfftn", "ihfft2",
                                "irfftn", "irfft2", "hfftn", "hfft2"])
@pytest.mark.parametrize("norm", NORMS)
def test_nd(fn, norm):
    src = X if fn.startswith(("rfft", "ihfft")) else CX
    for s in (None, (3, 5), (2, -1)):
        close(*both(fn, src, s=s, norm=norm), 1e-4)
    close(*both(fn, src, dim=(0, 2), norm=norm), 1e-4)
    if fn.startswith("fft"):
        close(*both(fn, X, norm=norm), 1e-4)


def test_dtypes():
    assert ember.fft.fft(ember.tensor(X)).dtype is ember.complex64
    assert ember.fft.fft(ember.tensor(CX)).dtype is ember.complex64
    assert ember.fft.rfft(ember.tensor(X, dtype=ember.float64)).dtype is ember.complex128
    assert ember.fft.irfft(ember.tensor(CX)).dtype is ember.float32
    close(*both("fft", np.array([1, 2, 3])))


def test_meta():
    m = ember.empty(3, 8, device="meta")
    assert tuple(ember.fft.rfft(m).shape) == (3, 5)
    assert ember.fft.rfft(m).dtype is ember.complex64
    assert tuple(ember.fft.irfft(ember.fft.rfft(m)).shape) == (3, 8)
    assert tuple(ember.fft.fft2(m, s=(4, 4)).shape) == (4, 4)


GRADS = [("fft", "r", {}), ("rfft", "r", {"norm": "ortho"}), ("irfft", "c", {}), ("irfft", "c", {"n": 9}),
         ("hfft", "c", {"norm": "forward"}), ("ihfft", "r", {}), ("fft", "c", {"n": 7}), ("ifft", "c", {}),
         ("rfft2", "r", {}), ("irfft2", "c", {}), ("hfftn", "c", {}), ("ihfftn", "r", {}),
         ("fftn", "c", {"s": (4, 6)}), ("rfftn", "r", {"s": (2, 10), "norm": "forward"})]


@pytest.mark.parametrize("fn,kind,kw", GRADS)
def test_grad_vs_torch(fn, kind, kw):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 8)) if kind == "r" else \
        rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    grads = []
    w = None
    for lib in (ember, torch):
        x = lib.tensor(a, requires_grad=True)
        r = getattr(lib.fft, fn)(x, **kw)
        if w is None:
            w = np.random.default_rng(2).standard_normal(tuple(r.shape))
        (r.abs() if r.is_complex() else r).mul(lib.tensor(w)).sum().backward()
        grads.append(x.grad)
    close(*grads, 1e-8)


@pytest.mark.parametrize("fn", ["fft", "rfft", "irfft", "hfft", "ihfft", "fft2", "irfftn"])
def test_gradcheck(fn):
    a = np.random.default_rng(3).standard_normal((2, 6))
    x = ember.tensor(a, requires_grad=True)
    if fn in ("irfft", "hfft", "irfftn"):
        assert ember.autograd.gradcheck(lambda t: getattr(ember.fft, fn)(t.to(ember.complex128)), [x])
    else:
        assert ember.autograd.gradcheck(lambda t: getattr(ember.fft, fn)(t).abs(), [x])


ERRORS = [
    lambda m: m.fft.fft(m.ones(3), n=0),
    lambda m: m.fft.rfft(m.ones(3, dtype=m.complex64)),
    lambda m: m.fft.fft(m.ones(3), dim=2),
    lambda m: m.fft.fft(m.ones(3), norm="x"),
    lambda m: m.fft.fft(m.ones(3, dtype=m.float16)),
    lambda m: m.fft.fft2(m.ones(3)),
    lambda m: m.fft.fftn(m.ones(3, 3), s=(2, 2, 2)),
    lambda m: m.fft.fftn(m.ones(3, 3), s=(2,), dim=(0, 1)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    with pytest.raises(Exception) as te:
        ERRORS[i](torch)
    with pytest.raises(type(te.value)) as ee:
        ERRORS[i](ember)
    assert str(ee.value) == str(te.value)


def test_helpers():
    for n in (7, 8):
        close(ember.fft.fftfreq(n, 0.5), torch.fft.fftfreq(n, 0.5))
        close(ember.fft.rfftfreq(n, 0.5), torch.fft.rfftfreq(n, 0.5))
    close(ember.fft.fftshift(ember.tensor(X)), torch.fft.fftshift(torch.tensor(X)))
    close(ember.fft.ifftshift(ember.tensor(X), dim=(1, 2)), torch.fft.ifftshift(torch.tensor(X), dim=(1, 2)))
    close(ember.fft.fftshift(ember.tensor(X), dim=0), torch.fft.fftshift(torch.tensor(X), dim=0))
