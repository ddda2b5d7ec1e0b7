"""Creation primitives (layer L1): no tensor inputs; ``device='meta'`` makes data-free tensors."""
from __future__ import annotations

import numpy as np

from .._dtype import complex32
from .._dtype_complex32 import encode
from ._registry import TensorMeta, primitive


@primitive("full", kind="creation")
def full(*, size, fill_value, dtype, device=None):
    if dtype is complex32:  # (real, imag) float16 pairs: fill from the rounded value
        return np.full(size, encode(fill_value), dtype.np)
    if type(fill_value) is int and fill_value == 0:
        return np.zeros(size, dtype.np)  # calloc'd: cheaper than filling
    out = np.empty(size, dtype.np)
    out.fill(fill_value)  # np.full's cast, without its Python-level wrapper (~0.5 us)
    return out


def _checked_size(size) -> tuple:
    for d in size:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(size)}")
    return tuple(size)


@full.meta
def _(*, size, fill_value, dtype, device=None):
    return TensorMeta(_checked_size(size), dtype)


@primitive("empty", kind="creation")
def empty(*, size, dtype, device=None):
    return np.empty(size, dtype.np)


@empty.meta
def _(*, size, dtype, device=None):
    return TensorMeta(_checked_size(size), dtype)


__all__ = ["full", "empty"]


_SMALL_STEPS = 32


def fma_steps(lo, hi, steps, ty, wide):
    """torch's CPU linspace kernel: step in ``ty``, the first half counted up from ``lo`` and the
    second half down from ``hi``, each value one fused multiply-add rounded to ``ty``. The products
    are exact in ``wide`` (float64 for float32, long double for float64), so rounding once matches."""
    step = (hi - lo) / ty(steps - 1)
    if wide is np.float64 and steps <= _SMALL_STEPS:  # a few values: Python floats are IEEE doubles
        # (each product exact, each sum rounded once, as in float64 arrays), ~10 NumPy calls cheaper
        lo_, hi_, st, last = float(lo), float(hi), float(step), steps - 1
        half = steps // 2
        return np.array([lo_ + st * k for k in range(half)] + [hi_ - st * (last - k) for k in range(half, steps)],
                        dtype=ty)
    i = np.arange(steps)
    up = wide(lo) + wide(step) * i.astype(wide)
    down = wide(hi) - wide(step) * (steps - 1 - i).astype(wide)
    return np.where(i < steps // 2, up, down).astype(ty)


def linspace_values(start, end, steps, ty):
    """``steps`` float32/float64 values from ``start`` to ``end`` as torch's CPU linspace computes
    them (histogram edges use it too)."""
    if steps == 1:
        return np.array([start], dtype=ty)
    return fma_steps(ty(start), ty(end), steps, ty, np.float64 if ty is np.float32 else np.longdouble)
