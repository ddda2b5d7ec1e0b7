"""Window functions of ``torch.signal.windows`` (layer L3), composites of ember ops.

Every window takes its length ``M`` and keyword-only ``sym`` (True: symmetric, for filter design;
False: periodic, for spectral analysis: the symmetric window of length ``M + 1`` without its last
point), ``dtype`` (float32 or float64, default: the default dtype), ``layout``, ``device`` and
``requires_grad``. The result has shape ``(M,)``. As in torch, the values are computed from a
``linspace`` created with ``requires_grad``, so a window asked to require grad is a non-leaf.

Example:
    >>> import ember
    >>> ember.signal.windows.hann(4, sym=False).tolist()
    [0.0, 0.5, 1.0, 0.5]
"""
from __future__ import annotations

import math
from collections.abc import Iterable

from ... import _dtype as D
from ..._creation import empty, linspace, ones
from ..._tensor_methods._args import as_dtype
from ...overrides import public

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]

_NUTTALL = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
_BLACKMAN = [0.42, 0.5, 0.08]


def _check(name, M, dtype):
    """The window's dtype after torch's checks (non-negative length, float32/float64 only)."""
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    dt = as_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if dt not in (D.float32, D.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return dt


def _trivial(M, dt, device, requires_grad):
    """Windows of length 0 and 1 (empty, and ``[1.]``), or None for longer ones."""
    if M == 0:
        return empty((0,), dtype=dt, device=device, requires_grad=requires_grad)
    if M == 1:
        return ones((1,), dtype=dt, device=device, requires_grad=requires_grad)
    return None


def _grid(M, sym, start, step, dt, device, requires_grad):
    """``start + step * n`` for n = 0..M-1, as a ``linspace`` carrying ``requires_grad``."""
    return linspace(start, start + (M - 1) * step, M, dtype=dt, device=device,
                    requires_grad=requires_grad)


@public
def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """Exponential (Poisson) window ``exp(-|n - center| / tau)``; ``center`` defaults to the middle
    (``(M - 1) / 2``, or ``M / 2`` when ``sym=False``) and may be given only when ``sym=False``.

    >>> import ember
    >>> ember.signal.windows.exponential(3, tau=1.0).tolist()[1]
    1.0
    """
    dt = _check("exponential", M, dtype)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = _grid(M, sym, -center / tau, 1.0 / tau, dt, device, requires_grad)
    return (-k.abs()).exp()


@public
def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Cosine (sine) window ``sin(pi (n + 1/2) / M)`` (``M + 1`` in the denominator when ``sym=False``).

    >>> import ember
    >>> [round(v, 4) for v in ember.signal.windows.cosine(2).tolist()]
    [0.7071, 0.7071]
    """
    dt = _check("cosine", M, dtype)
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    L = M if sym else M + 1
    k = _grid(M, sym, math.pi * 0.5 / L, math.pi / L, dt, device, requires_grad)
    return k.sin()


@public
def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Gaussian window ``exp(-(n - c)^2 / (2 std^2))``, c the centre (``(M - 1) / 2``, ``M / 2`` if
    ``sym=False``).

    >>> import ember
    >>> ember.signal.windows.gaussian(3).tolist()[1]
    1.0
    """
    dt = _check("gaussian", M, dtype)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    c = (M - 1 if sym else M) / 2.0
    k = _grid(M, sym, -c / std, 1.0 / std, dt, device, requires_grad)
    return (k.pow(2) * -0.5).exp()


@public
def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Kaiser window ``I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta)``, N = M - 1 (``M`` if
    ``sym=False``).

    >>> import ember
    >>> ember.signal.windows.kaiser(3, beta=0.0).tolist()
    [1.0, 1.0, 1.0]
    """
    dt = _check("kaiser", M, dtype)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    N = M - 1 if sym else M
    k = _grid(M, sym, -1.0, 2.0 / N, dt, device, requires_grad)  # 2n/N - 1
    beta_t = k.new_tensor(beta)
    arg = (1.0 - k.pow(2)).clamp(min=0.0).sqrt() * beta
    return arg.i0() / beta_t.i0()


@public
def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Generalised cosine window ``sum_i (-1)^i a[i] cos(2 pi i n / (M - 1))`` (``M`` in the
    denominator when ``sym=False``).

    >>> import ember
    >>> ember.signal.windows.general_cosine(3, a=[0.5, 0.5]).tolist()
    [0.0, 1.0, 0.0]
    """
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    a = list(a)
    if not a:
        raise ValueError("Coefficients cannot be empty")
    dt = _check("general_cosine", M, dtype)
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    N = M - 1 if sym else M
    k = _grid(M, sym, 0.0, 2.0 * math.pi / N, dt, device, requires_grad)  # 2 pi n / N
    out = None
    for i, coef in enumerate(a):
        term = (k * i).cos() * ((-1) ** i * coef)
        out = term if out is None else out + term
    return out


@public
def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """Generalised Hamming window ``alpha - (1 - alpha) cos(2 pi n / (M - 1))``.

    >>> import ember
    >>> ember.signal.windows.general_hamming(3, alpha=0.5).tolist()
    [0.0, 1.0, 0.0]
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


@public
def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hamming window: ``general_hamming`` with ``alpha = 0.54``.

    >>> import ember
    >>> [round(v, 2) for v in ember.signal.windows.hamming(3).tolist()]
    [0.08, 1.0, 0.08]
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


@public
def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window: ``general_hamming`` with ``alpha = 0.5``.

    >>> import ember
    >>> ember.signal.windows.hann(3).tolist()
    [0.0, 1.0, 0.0]
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


@public
def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window: ``general_cosine`` with ``a = [0.42, 0.5, 0.08]``.

    >>> import ember
    >>> [round(v, 4) for v in ember.signal.windows.blackman(3).tolist()]
    [-0.0, 1.0, -0.0]
    """
    return general_cosine(M, a=_BLACKMAN, sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


@public
def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Minimum 4-term Blackman-Harris window of Nuttall: ``general_cosine`` with
    ``a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]``.

    >>> import ember
    >>> round(ember.signal.windows.nuttall(3).tolist()[1], 4)
    1.0
    """
    return general_cosine(M, a=_NUTTALL, sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


@public
def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window ``1 - |2n / (M - 1) - 1|``.

    >>> import ember
    >>> ember.signal.windows.bartlett(3).tolist()
    [0.0, 1.0, 0.0]
    """
    dt = _check("bartlett", M, dtype)
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    N = M - 1 if sym else M
    k = _grid(M, sym, -1.0, 2.0 / N, dt, device, requires_grad)
    return 1.0 - k.abs()
