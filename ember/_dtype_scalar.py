"""A Python scalar written into a dtype, with torch's checked conversion (layer L0).

Every place that stores a Python number into a tensor of a given dtype (``fill_``, ``full``,
``new_full``, ``t[i] = v``, ``masked_fill``, ``index_fill``, integer ``clamp`` bounds) asks
:func:`checked_scalar` for the value to store. The rules, observed on torch 2.x:

- a Python int becomes a Scalar only inside [-2**63, 2**64): above, ``OverflowError: int too big
  to convert``; below, ``OverflowError: can't convert negative int to unsigned``;
- bool accepts every number (its truth value);
- an integer dtype accepts ints in [min, max] and floats in [min, max] compared as floats (NaN and
  inf never fit), except that an unsigned dtype also takes ints down to -max and wraps them
  (``fill_(-1)`` on uint8 stores 255);
- a floating dtype accepts inf and NaN, and finite values of magnitude <= the dtype's largest
  finite value (compared exactly: 65505 does not fit float16);
- a complex value fits a real dtype only with a zero imaginary part (NaN is not zero); a complex
  dtype checks both parts against its component's range;
- otherwise ``RuntimeError: value cannot be converted to type <C type> without overflow``.

Example:
    >>> from ember._dtype import uint8, float16
    >>> checked_scalar(-1, uint8)
    255
    >>> checked_scalar(1e40, float16)
    Traceback (most recent call last):
    RuntimeError: value cannot be converted to type c10::Half without overflow
"""
from __future__ import annotations

import math
import warnings

import ml_dtypes
import numpy as np

from . import _dtype as D

__all__ = ["C_NAMES", "FILL_RANGE", "PLAIN_RANGE", "as_scalar", "checked_scalar", "fill_scalar",
           "setitem_scalar", "overflow_error"]

# the C type torch names in its overflow message, per dtype
C_NAMES = {
    "bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
    "int64": "int64_t", "uint64": "uint64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "float32": "float", "float64": "double", "complex32": "c10::complex<c10::Half>",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}

_SCALAR_LO, _SCALAR_HI = -(1 << 63), (1 << 64) - 1   # what a Python int may be as a torch Scalar
_LONG_LO, _LONG_HI = -(1 << 63), (1 << 63) - 1   # a C long long
_INF = math.inf


def _limits(dt):
    """(kind, float lo, float hi, int lo, int hi, unsigned modulus, C name) of ``dt``."""
    name = C_NAMES[dt.name]
    if dt is D.bool:
        return "b", -_INF, _INF, _LONG_LO, _LONG_HI, 0, name
    if dt.category == 1:
        info = np.iinfo(dt.np)
        lo, hi = int(info.min), int(info.max)
        # floats above the largest one below ``hi`` (2.0**63 for int64) take the slow path
        fhi = float(hi) if float(hi) <= hi else math.nextafter(float(hi), 0.0)
        if lo == 0:  # unsigned: ints down to -max wrap around
            return "i", 0.0, fhi, max(-hi, _SCALAR_LO), hi, hi + 1, name
        return "i", float(lo), fhi, lo, hi, 0, name
    real = dt.to_real() if dt.is_complex else dt
    big = float(ml_dtypes.finfo(real.np).max)
    kind = "c" if dt.is_complex else "f"
    # ints take the fast path only inside int64 (NumPy's and ml_dtypes' own limit for a Python int)
    return kind, -big, big, max(-big, _LONG_LO), min(big, _LONG_HI), 0, name


_LIMITS = {dt: _limits(dt) for dt in (*D.ALL_DTYPES, D.uint64)}
# the ints and floats ``fill_`` may store unchecked, per dtype: the float range clipped to below
# 2**63 (larger ints need the Scalar checks); complex32 checks complex64's range. Dtypes without
# limits (quantized) get an empty range, so they always take the full path
_BELOW_2_63 = math.nextafter(2.0 ** 63, 0.0)
FILL_RANGE = {dt: (_INF, -_INF) for dt in vars(D).values() if isinstance(dt, D.dtype)}
FILL_RANGE.update({dt: (max(lim[1], -_BELOW_2_63), min(lim[2], _BELOW_2_63)) for dt, lim in _LIMITS.items()})
# integer dtypes compare with int bounds (exactly, and ints, their usual value, compare faster)
FILL_RANGE.update({dt: (max(lim[3], 0) if lim[5] else lim[3], lim[4]) for dt, lim in _LIMITS.items()
                   if lim[0] == "i"})
# the ints and floats every writer (fill_, t[i] = v, masked_fill, index_fill) stores as given:
# t[i] = v and masked_fill check complex32 against its own half range, t[i] = v ints against a C long long
PLAIN_RANGE = dict(FILL_RANGE)
PLAIN_RANGE[D.uint64] = (0, _LONG_HI)
FILL_RANGE[D.complex32] = FILL_RANGE[D.complex64]


def as_scalar(value):
    """``value`` as torch's argument parser takes a Python number for a Scalar parameter: an int
    outside [-2**63, 2**64) raises its OverflowError (before any dtype is considered)."""
    if isinstance(value, int) and not _SCALAR_LO <= value <= _SCALAR_HI:
        raise OverflowError("int too big to convert" if value > 0
                            else "can't convert negative int to unsigned")
    return value


def overflow_error(dt) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {C_NAMES[dt.name]} without overflow")


def checked_scalar(value, dtype, check=None):
    """``value`` (a Python number) as stored into ``dtype``, or torch's error when it does not fit.

    ``check`` is the dtype whose range and C name torch checks against when it differs from the
    stored one (see :func:`fill_scalar`, :func:`setitem_scalar`). Returns a Python number that
    NumPy stores into ``dtype`` as torch would (unsigned ints wrapped, complex parts dropped).

    >>> from ember._dtype import int8
    >>> checked_scalar(100.7, int8)  # NumPy truncates it when storing, as torch's cast does
    100.7
    """
    lim = _LIMITS.get(check or dtype)
    if lim is None:  # quantized and other storage-only dtypes: written as given
        return value
    t = type(value)
    if t is float:  # the hot path: one lookup and one chained compare
        if lim[1] <= value <= lim[2]:
            return value
    elif t is int:
        if lim[3] <= value <= lim[4]:
            return value + lim[5] if value < 0 and lim[5] else value
    return _slow(value, check or dtype, lim)


def _slow(value, dt, lim):
    kind, lo, hi = lim[0], lim[1], lim[2]
    if isinstance(value, np.generic):
        value = value.item()
        return checked_scalar(value, dt) if type(value) in (int, float) else _slow(value, dt, lim)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        as_scalar(value)
        if kind == "b":
            return bool(value)
        if kind != "i" and lo <= value <= hi:
            return float(value)
        raise overflow_error(dt)
    if kind == "b" and isinstance(value, (float, complex)):
        return bool(value)
    if isinstance(value, complex):
        if kind != "c":
            if value.imag != 0:  # NaN is not zero either
                raise overflow_error(dt)
            value = value.real
            if lo <= value <= hi:
                return value
        else:
            for part in (value.real, value.imag):
                if not (lo <= part <= hi or math.isnan(part) or math.isinf(part)):
                    raise overflow_error(dt)
            return value
    if isinstance(value, float):
        if kind in "fc" and (math.isnan(value) or math.isinf(value)):
            return value
        if kind == "i" and lo <= value <= float(lim[4]):
            # the max rounded up as a float (2.0**63 for int64) still passes torch's check, and
            # the C cast wraps it: int64 stores -2**63, uint64 stores 0
            bits = 8 * dt.itemsize
            v = int(value) % (1 << bits)
            return v - (1 << bits) if lim[5] == 0 and v >= 1 << (bits - 1) else v
        raise overflow_error(dt)
    return value  # not a number: the caller's own type check reports it


def fill_scalar(value, dtype):
    """``value`` checked as ``fill_``/``full``/``new_full``/``full_like`` check it: complex32 is
    checked against complex64's range (torch's message names ``c10::complex<float>``) and the
    stored value rounds to complex32 (70000 becomes inf)."""
    t = type(value)
    if t is float or t is int:
        lo, hi = FILL_RANGE[dtype]
        if lo <= value <= hi:
            return value
    return checked_scalar(value, dtype, D.complex64 if dtype is D.complex32 else None)


def setitem_scalar(value, dtype):
    """``value`` checked as ``t[index] = value`` checks it: ints must fit a C ``long long``
    (``ValueError: Overflow when unpacking long long``); float16 and bfloat16 are checked as double
    and the value rounds to them (1e40 stores inf); complex32 against its own half range.

    >>> from ember._dtype import float16
    >>> setitem_scalar(1e40, float16)
    inf
    """
    t = type(value)
    if t is float or t is int:
        lo, hi = PLAIN_RANGE[dtype]  # inside it, every dtype stores the value as given
        if lo <= value <= hi:
            return value
        if t is int and not _LONG_LO <= value <= _LONG_HI:
            raise ValueError("Overflow when unpacking long long")
    if dtype is D.float16 or dtype is D.bfloat16:
        v = checked_scalar(value, D.float64)
        big = _LIMITS[dtype][2]
        if type(v) in (int, float) and not -big <= v <= big:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # overflow to inf is the conversion's meaning here
                v = float(dtype.np.type(float(v)))
        return v
    return checked_scalar(value, dtype)
