"""dtypes, the default dtype, torch's type-promotion rules and the NumPy mapping (layer L0).

Example:
    >>> promote_types(int64, float16)
    torch.float16
"""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
    "float32", "float64", "complex32", "complex64", "complex128", "promote_types", "result_type_of",
    "get_default_dtype", "set_default_dtype", "can_cast", "finfo", "iinfo", "qint8", "quint8", "qint32",
]

# category ranks: bool < integer < floating < complex (torch's isIntegral/isFloating/isComplex)
_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3
_QUANTIZED = 4  # qint8/quint8/qint32: integers with a quantizer, outside the promotion table


class dtype:
    """A tensor element type, e.g. ``ember.float32``; compares by identity."""

    __slots__ = ("name", "itemsize", "is_floating_point", "is_complex", "is_signed", "np",
                 "category", "_aliases")

    def __init__(self, name: str, np_dtype, category: int, aliases=()):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.category = category
        self.is_floating_point = category == _FLOAT
        self.is_complex = category == _COMPLEX
        self.is_signed = category >= _FLOAT or (category == _INT and name != "uint8")
        if category == _QUANTIZED:
            self.is_signed = name != "quint8"
        self._aliases = aliases

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self) -> "dtype":
        return {complex32: float16, complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> "dtype":
        return {float16: complex32, bfloat16: complex64, float32: complex64,
                float64: complex128}.get(self, self)


bool = dtype("bool", np.bool_, _BOOL)
uint8 = dtype("uint8", np.uint8, _INT)
int8 = dtype("int8", np.int8, _INT)
int16 = dtype("int16", np.int16, _INT, ("short",))
int32 = dtype("int32", np.int32, _INT, ("int",))
int64 = dtype("int64", np.int64, _INT, ("long",))
float16 = dtype("float16", np.float16, _FLOAT, ("half",))
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, _FLOAT)
float32 = dtype("float32", np.float32, _FLOAT, ("float",))
float64 = dtype("float64", np.float64, _FLOAT, ("double",))
# complex32 (torch's ComplexHalf): NumPy has no such type, so its elements are a (real, imag) pair of
# float16s: 4 bytes as in torch, and the float16 storage views (view_as_real) are torch's too.
# Arithmetic decodes to complex64 and rounds back per component (ember/_dtype_complex32.py).
CHALF_NP = np.dtype([("real", np.float16), ("imag", np.float16)])
complex32 = dtype("complex32", CHALF_NP, _COMPLEX, ("chalf",))
complex64 = dtype("complex64", np.complex64, _COMPLEX, ("cfloat",))
complex128 = dtype("complex128", np.complex128, _COMPLEX, ("cdouble",))

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
              complex64, complex128, complex32)
ALIASES = {a: d for d in ALL_DTYPES for a in d._aliases}
# quantized dtypes: the stored integer type of a quantized tensor (ember/_quantized); never promoted
qint8 = dtype("qint8", np.int8, _QUANTIZED)
quint8 = dtype("quint8", np.uint8, _QUANTIZED)
qint32 = dtype("qint32", np.int32, _QUANTIZED)
QUANTIZED_DTYPES = (qint8, quint8, qint32)
# torch's "limited support" unsigned dtype (issue 22): what hash_tensor returns; outside the
# promotion table except with itself (torch refuses to promote it with anything else)
uint64 = dtype("uint64", np.uint64, _INT)
uint64.is_signed = False
LIMITED_DTYPES = (uint64,)
_BY_NAME = {d.name: d for d in ALL_DTYPES + QUANTIZED_DTYPES + LIMITED_DTYPES}
_BY_NAME.update(ALIASES)
# NumPy dtype -> ember dtype (for wrapping kernel results); float16/bfloat16 map to themselves
FROM_NP = {d.np: d for d in ALL_DTYPES + LIMITED_DTYPES}
LOW_PRECISION = (float16, bfloat16)  # computed in float32, rounded on the way out


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype) -> dtype:
    try:
        return FROM_NP[np_dtype]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported "
                        "types are: float64, float32, float16, complex64, complex128, int64, int32, "
                        "int16, int8, uint8, and bool.") from None


# ---------------------------------------------------------------- promotion (torch's table)
def _promote(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a.category != b.category:
        lo, hi = (a, b) if a.category < b.category else (b, a)
        if hi.is_complex and lo.is_floating_point:  # the complex type of the wider real part
            return _promote(hi.to_real(), lo).to_complex()
        return hi
    if a.category == _INT:
        if uint8 in (a, b):
            other = b if a is uint8 else a
            return int16 if other is int8 else other
        return a if a.itemsize > b.itemsize else b
    if {a, b} == {float16, bfloat16}:
        return float32
    return a if a.itemsize > b.itemsize else b


_PROMOTE = {(a, b): _promote(a, b) for a in ALL_DTYPES for b in ALL_DTYPES}
_PROMOTE[uint64, uint64] = uint64


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both ``type1`` and ``type2`` cast to safely, as torch defines it."""
    try:
        return _PROMOTE[type1, type2]
    except KeyError:
        if type1 in LIMITED_DTYPES or type2 in LIMITED_DTYPES:
            raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted "
                               f"to promote {_TITLE(type1)} and {_TITLE(type2)}") from None
        raise


def _TITLE(d: dtype) -> str:
    return {"uint64": "UInt64", "bfloat16": "BFloat16", "bool": "Bool", "complex32": "ComplexHalf",
            "complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(
        d.name, d.name.capitalize() if not d._aliases else d._aliases[-1].capitalize())


_state = {"default": float32}


def get_default_dtype() -> dtype:
    return _state["default"]


def set_default_dtype(d: dtype) -> None:
    if d not in (float16, bfloat16, float32, float64):
        raise TypeError("only floating-point types are supported as the default type")
    _state["default"] = d
    for cache in DEFAULT_DEPENDENT_CACHES:
        cache.clear()


def default_complex() -> dtype:
    return _state["default"].to_complex()  # float16's is complex32, bfloat16's complex64


def scalar_dtype(value) -> dtype:
    """The dtype a Python scalar takes when it becomes a tensor (``ember.tensor(1.5)``)."""
    t = type(value)
    if t is builtins.bool or isinstance(value, (np.bool_,)):
        return bool
    if t is int or isinstance(value, np.integer):
        return int64
    if t is complex or isinstance(value, np.complexfloating):
        return default_complex()
    return _state["default"]


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    # torch's combine_categories: a higher-priority group wins unless the lower one has a higher category
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return _PROMOTE[higher, lower]
    return higher


_RESULT_CACHE: dict = {}
# caches of promotion results (here and in dispatch) that depend on the default dtype
DEFAULT_DEPENDENT_CACHES: list = [_RESULT_CACHE]


def result_type_of(key: tuple) -> dtype:
    """Promote operands described by ``key``: a tuple of (dtype, is_0dim) pairs or Python scalar types.

    Tensors with dims outrank 0-dim tensors, which outrank Python scalars, unless a lower-priority
    group has a higher category (``int32 tensor + 0-dim int64`` is int32, ``int64 tensor + 1.5`` is the
    default float dtype).
    """
    try:
        return _RESULT_CACHE[key]
    except KeyError:
        pass
    dim = zero = wrapped = None
    for k in key:
        if type(k) is tuple:
            d, is0 = k
            if is0:
                zero = d if zero is None else _PROMOTE[zero, d]
            else:
                dim = d if dim is None else _PROMOTE[dim, d]
        else:
            if k is builtins.bool:
                d = bool
            elif k is int:
                d = int64
            elif k is complex:
                d = default_complex()
            else:
                d = _state["default"]
            wrapped = d if wrapped is None else _PROMOTE[wrapped, d]
    out = _combine(dim, _combine(zero, wrapped))
    _RESULT_CACHE[key] = out
    return out


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """torch.can_cast: casting may not lower the category (float -> int, complex -> float, x -> bool)."""
    if from_.category > to.category:
        return False
    return not (to is bool and from_ is not bool)


class finfo:
    """Machine limits of a floating dtype: ``finfo(float32).eps``."""

    def __init__(self, type: dtype | None = None):
        type = type or _state["default"]
        if not (type.is_floating_point or type.is_complex):
            raise TypeError(f"torch.finfo() requires a floating point input type. Use torch.iinfo to "
                            f"handle '{type!r}'")
        real = type.to_real()
        info = ml_dtypes.finfo(real.np) if real is bfloat16 else np.finfo(real.np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)  # torch's is exact: 1e-06, not float32(1e-6)
        self.dtype = real.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: ``iinfo(int8).max == 127``."""

    def __init__(self, type: dtype):
        if type.category > _INT:
            raise TypeError(f"torch.iinfo() requires an integer input type. Use torch.finfo to "
                            f"handle '{type!r}'")
        info = np.iinfo(np.uint8 if type is bool else type.np)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), type.name
        if type is bool:
            self.bits, self.max, self.min = 8, 1, 0

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
