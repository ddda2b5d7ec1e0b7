"""``torch.choose_qparams_optimized``: a greedy search for the range ``[min, max]`` that quantizes the
first ``numel`` values of a float32 tensor with the least L2 error (layer L3).

The search starts from the values' full range and shrinks it one bin (``(max - min) / n_bins``) at a
time from whichever end gives the lower error, for ``n_bins - int(n_bins * (1 - ratio))`` steps. The
error of a range quantizes to ``2**bit_width`` levels with the lower end and the step rounded to
float16 (torch's rule, observed) and sums squared differences in float32, in order. The answer is
the best strict local minimum met on the way (a range both of whose one-bin shrinks quantize
worse), if it beats the full range, else the full range: what torch 2.13 returns, checked value for
value on random inputs (tests/_quantized/test_qparams_search.py).

As torch does, the range (min and max) is read from ``numel`` consecutive float32 values at the
tensor's first element (its raw memory, whatever its strides), the error from the tensor's
values in logical order.

Example:
    >>> import ember
    >>> x = ember.tensor([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 5.0])
    >>> hi, lo = ember.choose_qparams_optimized(x, 7, 10, 0.5, 2)
    >>> hi.tolist(), lo.tolist()
    ([5.0], [0.5])
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor_base import TensorBase
from .._tensor import Tensor  # noqa: F401  (wrap makes ember Tensors once _tensor is loaded)
from .._dispatch import wrap
from ..overrides import public

__all__ = ["choose_qparams_optimized"]

_F32 = np.float32


def _int_arg(value, name: str, pos: int) -> int:
    if isinstance(value, TensorBase) and value.numel() == 1 and not value.dtype.is_floating_point \
            and value.dtype is not D.bool:
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"choose_qparams_optimized(): argument '{name}' (position {pos}) must be int, "
                        f"not {type(value).__name__}")
    return int(value)


def _levels(bit_width: int) -> _F32:
    """``(1 << bit_width) - 1`` as a 32-bit C int on x86 (the shift count taken mod 32, wrapping)."""
    shifted = np.int64(1) << (bit_width & 31)
    q = (int(shifted) - 1 + 2**31) % 2**32 - 2**31  # int32 wrap-around of 1 << 31 minus 1
    if shifted == 2**31:
        q = 2**31 - 1
    return _F32(q)


def _quant_error(x: np.ndarray, lo: _F32, hi: _F32, qmax: _F32) -> _F32:
    """L2 error of quantizing ``x`` (float32) to the grid ``lo + k * scale``, ``k = 0..qmax``."""
    lo = _F32(np.float16(lo))  # the grid's origin is stored in float16
    span = _F32(hi - lo)
    with np.errstate(all="ignore"):
        scale = _F32(1.0) if span == 0 else _F32(np.float16(_F32(span / qmax)))
        inv = _F32(1.0) if scale == 0 else _F32(_F32(1.0) / scale)
        q = np.clip(np.rint((x - lo) * inv), _F32(0), qmax)
        diff = x - (q * scale + lo)
        sq = diff * diff
        total = np.cumsum(sq, dtype=_F32)[-1] if sq.size else _F32(0)  # sequential float32 sum
        return _F32(np.sqrt(total))


def _raw_values(input, numel: int) -> np.ndarray:
    """``numel`` float32 values read consecutively from the tensor's first element (torch reads its
    data pointer), when they lie inside the tensor's buffer; else the first ``numel`` in order."""
    d = input._data
    if numel == 0:
        return d.reshape(-1)[:1]  # torch's empty search reads the first element
    root = (input._base if input._base is not None else input)._data
    if d.flags.c_contiguous or not root.flags.c_contiguous:
        return d.reshape(-1)[:numel]
    start = d.__array_interface__["data"][0]
    rstart = root.__array_interface__["data"][0]
    if rstart <= start and start + numel * 4 <= rstart + root.nbytes:
        return np.ndarray((numel,), _F32, buffer=root, offset=start - rstart)
    return d.reshape(-1)[:numel]


def _greedy_range(values: np.ndarray, raw: np.ndarray, n_bins: int, ratio: float,
                  bit_width: int) -> tuple:
    xmin, xmax = raw[0], raw[0]
    with np.errstate(invalid="ignore"):  # C++'s min_element/max_element: a NaN first value stays
        if not np.isnan(xmin):
            xmin, xmax = np.nanmin(raw), np.nanmax(raw)
    xmin, xmax = _F32(xmin), _F32(xmax)
    with np.errstate(all="ignore"):
        step = _F32(_F32(xmax - xmin) / _F32(n_bins))
    min_bins = int(n_bins * (1.0 - ratio))
    steps = n_bins - min_bins
    if steps < 0:
        raise RuntimeError(f"choose_qparams_optimized: n_bins={n_bins} and ratio={ratio} give a "
                           f"negative number of search steps ({steps}); torch loops without end there")
    qmax = _levels(bit_width)
    lo, hi = xmin, xmax
    cur = best = _quant_error(values, lo, hi, qmax)
    best_lo, best_hi = xmin, xmax
    with np.errstate(all="ignore"):
        for _ in range(steps):
            up, down = _F32(lo + step), _F32(hi - step)
            err_up = _quant_error(values, up, hi, qmax)
            err_down = _quant_error(values, lo, down, qmax)
            if cur < err_up and cur < err_down and cur < best:
                best, best_lo, best_hi = cur, lo, hi
            if err_up < err_down:
                lo, cur = up, err_up
            else:
                hi, cur = down, err_down
    return best_hi, best_lo


@public
def choose_qparams_optimized(input, numel, n_bins, ratio, bit_width):
    """(max, min), each a float32 tensor of shape (1,), of the range that quantizes the first
    ``numel`` values of float32 ``input`` to ``2**bit_width`` levels with the least L2 error found by
    a greedy search of ``n_bins`` bins shrinking the range by at most ``ratio`` (module docstring)."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"choose_qparams_optimized(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")
    numel = _int_arg(numel, "numel", 2)
    n_bins = _int_arg(n_bins, "n_bins", 3)
    bit_width = _int_arg(bit_width, "bit_width", 5)
    if isinstance(ratio, TensorBase):
        ratio = ratio.item()
    if not isinstance(ratio, (int, float, np.number)) or isinstance(ratio, bool):
        raise TypeError(f"choose_qparams_optimized(): argument 'ratio' (position 4) must be float, "
                        f"not {type(ratio).__name__}")
    if input.dtype is not D.float32:
        raise RuntimeError(f"expected scalar type Float but found {D._TITLE(input.dtype)}")
    if input.numel() == 0:
        raise ValueError("input tensor is empty and has no data")
    if input._data is None:
        raise RuntimeError("The tensor has a non-zero number of elements, but its data is not "
                           "allocated yet.")
    if numel < 0 or numel > input.numel():
        raise RuntimeError("numel is out of the bound of input tensor")
    values = input._data.reshape(-1)[:numel].astype(_F32, copy=False)
    hi, lo = _greedy_range(values, _raw_values(input, numel), n_bins, float(ratio), bit_width)
    return wrap(np.array([hi], _F32), D.float32), wrap(np.array([lo], _F32), D.float32)

