"""``assert_close``: torch.testing's comparison of (nested) tensors, numbers, bools and None.

Pairs are originated from (possibly nested) sequences and mappings, each pair compares by its kind;
defaults tolerances per dtype, error types and messages are torch's, so a failing test reads the same.
Values are compared on the tensors' NumPy data in the tensors' own dtype (as torch computes them).

Example:
    >>> import ember
    >>> from ember.testing import assert_close
    >>> assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 1e-7]))
    >>> assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.5]))
    Traceback (most recent call last):
    ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 1 / 2 (50.0%)
    Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
"""
from __future__ import annotations

import cmath
import collections.abc
import contextlib
from typing import Any, Callable

import numpy as np

from .. import _dtype as D
from .._creation import as_tensor
from .._tensor import Tensor

__all__ = ["assert_close", "default_tolerances", "get_tolerances", "make_scalar_mismatch_msg",
           "make_tensor_mismatch_msg", "not_close_error_metas"]

# {dtype: (rtol, atol)}
_DTYPE_PRECISIONS = {
    D.float16: (0.001, 1e-5),
    D.bfloat16: (0.016, 1e-5),
    D.float32: (1.3e-6, 1e-5),
    D.float64: (1e-7, 1e-7),
    D.complex32: (0.001, 1e-5),
    D.complex64: (1.3e-6, 1e-5),
    D.complex128: (1e-7, 1e-7),
}


class ErrorMeta(Exception):
    """A comparison failure carried up to ``assert_close``, which raises ``type(msg)``."""

    def __init__(self, type: type, msg: str, *, id: tuple = ()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([i]) for i in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class UnsupportedInputs(Exception):
    """Raised while originating a pair: this pair type cannot handle the inputs."""


def default_tolerances(*inputs, dtype_precisions: dict | None = None) -> tuple:
    """The loosest ``(rtol, atol)`` over the inputs' dtypes (0, 0 for integers and bool)."""
    dtypes = []
    for x in inputs:
        if isinstance(x, Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, D.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
    prec = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[prec.get(dt, (0.0, 0.0)) for dt in dtypes])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol: float | None, atol: float | None, id: tuple = ()) -> tuple:
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, "
                                    f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_msg(*, default_identifier: str, identifier=None, extra: str | None = None,
                  abs_diff, abs_diff_idx=None, atol: float, rel_diff, rel_diff_idx=None,
                  rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def diff_msg(kind: str, diff, idx, tol) -> str:
        if idx is None:
            msg = f"{kind.title()} difference: {diff}"
        else:
            msg = f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def make_scalar_mismatch_msg(actual, expected, *, rtol: float, atol: float, identifier=None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(default_identifier="Scalars", identifier=identifier,
                         extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff, atol=atol,
                         rel_diff=rel_diff, rtol=rtol)


def _unravel(flat: int, shape: tuple) -> tuple:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def make_tensor_mismatch_msg(actual: Tensor, expected: Tensor, matches: np.ndarray, *, rtol: float,
                             atol: float, identifier=None) -> str:
    """The 'Mismatched elements / Greatest absolute / relative difference' message."""
    n = matches.size
    mismatches = n - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {n} ({mismatches / n:.1%})"
    a = _values(actual).reshape(-1)
    e = _values(expected).reshape(-1)
    m = matches.reshape(-1)
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        # integers: differences in int64, relative differences in the default float dtype (torch)
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        if abs_diff.dtype.kind in "iu":
            fdt = D.get_default_dtype().np
            rel_diff = abs_diff.astype(fdt) / np.abs(e).astype(fdt)
        else:
            rel_diff = abs_diff / np.abs(e)
        rel_diff[m] = 0
    ia, ir = _argmax(abs_diff), _argmax(rel_diff)
    return _mismatch_msg(default_identifier="Tensor-likes", identifier=identifier, extra=extra,
                         abs_diff=abs_diff[ia].item(), abs_diff_idx=_unravel(ia, matches.shape),
                         atol=atol, rel_diff=rel_diff[ir].item(),
                         rel_diff_idx=_unravel(ir, matches.shape), rtol=rtol)


def _argmax(x: np.ndarray) -> int:
    nan = np.isnan(x) if x.dtype.kind in "fc" else None
    if nan is not None and nan.any():  # torch.max propagates NaN and reports its position
        return int(np.argmax(nan))
    return int(np.argmax(x))


def _values(t: Tensor) -> np.ndarray:
    if t.dtype is D.complex32:  # float16 pairs, compared as complex64 (exact)
        return t.detach().cfloat().numpy()
    a = t.detach().numpy()
    if t.dtype in (D.float16, D.bfloat16):
        # compute in float32 and round back, as ember does for low-precision floats
        return a.astype(np.float32)
    return a


class Pair:
    """A pair of inputs compared by ``compare()``; raises ``UnsupportedInputs`` if not its kind."""

    def __init__(self, actual, expected, *, id: tuple = (), **unknown):
        self.actual, self.expected, self.id = actual, expected, id

    @staticmethod
    def _not_supported():
        raise UnsupportedInputs

    @staticmethod
    def _check_isinstance(*inputs, cls):
        if not all(isinstance(x, cls) for x in inputs):
            raise UnsupportedInputs

    def _fail(self, type: type, msg: str, *, id: tuple = ()):
        raise ErrorMeta(type, msg, id=self.id if not id and hasattr(self, "id") else id)

    def compare(self) -> None:
        raise NotImplementedError


class ObjectPair(Pair):
    def compare(self) -> None:
        try:
            equal = self.actual == self.expected
        except Exception as error:
            raise ErrorMeta(ValueError, f"{self.actual} == {self.expected} failed with:\n{error}.",
                            id=self.id) from error
        if not equal:
            self._fail(AssertionError, f"{self.actual} != {self.expected}")


class NonePair(Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            self._not_supported()
        super().__init__(actual, expected, **options)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self._fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class BooleanPair(Pair):
    def __init__(self, actual, expected, *, id: tuple = (), **options):
        self._check_isinstance(actual, expected, cls=(bool, np.bool_))
        actual, expected = bool(actual), bool(expected)
        super().__init__(actual, expected, id=id)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self._fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class NumberPair(Pair):
    _TYPE_TO_DTYPE = {int: D.int64, float: D.float64, complex: D.complex128}

    def __init__(self, actual, expected, *, id: tuple = (), rtol=None, atol=None, equal_nan=False,
                 check_dtype=False, **options):
        self._check_isinstance(actual, expected, cls=(int, float, complex, np.number))
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = get_tolerances(*[self._TYPE_TO_DTYPE[type(x)] for x in (actual, expected)],
                                              rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self) -> None:
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            self._fail(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e:
            return
        if self.equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        self._fail(AssertionError, make_scalar_mismatch_msg(a, e, rtol=self.rtol, atol=self.atol))


class TensorLikePair(Pair):
    """Tensors (or pairs of NumPy arrays / anything ``as_tensor`` accepts, of related types)."""

    def __init__(self, actual, expected, *, id: tuple = (), allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, **options):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            self._not_supported()
        actual, expected = self._to_tensor(actual), self._to_tensor(expected)
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = get_tolerances(actual, expected, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    def _to_tensor(self, x) -> Tensor:
        if isinstance(x, Tensor):
            return x
        try:
            return as_tensor(x)
        except Exception:
            self._not_supported()

    def compare(self) -> None:
        a, e = self.actual, self.expected
        self._compare_attributes(a, e)
        if a.is_meta or e.is_meta:
            return
        if a.dtype is not e.dtype:
            dt = D.promote_types(a.dtype, e.dtype)
            a, e = a.to(dt), e.to(dt)
        self._compare_values(a, e)

    def _compare_attributes(self, a: Tensor, e: Tensor) -> None:
        def mismatch(name, av, ev):
            self._fail(AssertionError, f"The values for attribute '{name}' do not match: {av} != {ev}.")
        if a.shape != e.shape:
            mismatch("shape", a.shape, e.shape)
        if self.check_stride and a.stride() != e.stride():
            mismatch("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            mismatch("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            mismatch("dtype", a.dtype, e.dtype)

    def _compare_values(self, a: Tensor, e: Tensor) -> None:
        rtol, atol = self.rtol, self.atol
        matches = _isclose(_values(a), _values(e), rtol, atol, self.equal_nan)
        if matches.all():
            return
        if a.dim() == 0:
            msg = make_scalar_mismatch_msg(a.item(), e.item(), rtol=rtol, atol=atol)
        else:
            msg = make_tensor_mismatch_msg(a, e, matches, rtol=rtol, atol=atol)
        self._fail(AssertionError, msg)


def _isclose(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """torch.isclose: equal, or both NaN (equal_nan), or a finite difference within the tolerance."""
    close = np.asarray(a == e)
    if a.dtype.kind in "fc":
        if equal_nan:
            close = close | (np.isnan(a) & np.isnan(e))
        if rtol == 0 and atol == 0:
            return close
        with np.errstate(all="ignore"):
            err = np.abs(a - e)
            close = close | (np.isfinite(err) & (err <= atol + np.abs(rtol * e)))
    elif a.dtype.kind in "iu" and (rtol or atol):
        err = np.abs(a.astype(np.float64) - e.astype(np.float64))
        close = close | (err <= atol + np.abs(rtol * e.astype(np.float64)))
    return close


def originate_pairs(actual, expected, *, pair_types, sequence_types=(collections.abc.Sequence,),
                    mapping_types=(collections.abc.Mapping,), id: tuple = (), **options) -> list:
    """Recurse through sequences and mappings; the first pair type accepting a leaf pair wins."""
    if (isinstance(actual, sequence_types) and not isinstance(actual, str)
            and isinstance(expected, sequence_types) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise ErrorMeta(AssertionError, f"The length of the sequences mismatch: {len(actual)} != "
                                            f"{len(expected)}", id=id)
        pairs = []
        for i in range(len(actual)):
            pairs.extend(originate_pairs(actual[i], expected[i], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, i), **options))
        return pairs
    if isinstance(actual, mapping_types) and isinstance(expected, mapping_types):
        ak, ek = set(actual.keys()), set(expected.keys())
        if ak != ek:
            raise ErrorMeta(AssertionError, f"The keys of the mappings do not match:\n"
                                            f"Missing keys in the actual mapping: {sorted(ek - ak)}\n"
                                            f"Additional keys in the actual mapping: {sorted(ak - ek)}",
                            id=id)
        keys = ak
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        pairs = []
        for k in keys:
            pairs.extend(originate_pairs(actual[k], expected[k], pair_types=pair_types,
                                         sequence_types=sequence_types, mapping_types=mapping_types,
                                         id=(*id, k), **options))
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except UnsupportedInputs:
            continue
    raise ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} "
                               f"and {type(expected)}.", id=id)


def not_close_error_metas(actual, expected, *, pair_types=(ObjectPair,),
                          sequence_types=(collections.abc.Sequence,),
                          mapping_types=(collections.abc.Mapping,), **options) -> list:
    try:
        pairs = originate_pairs(actual, expected, pair_types=pair_types, sequence_types=sequence_types,
                                mapping_types=mapping_types, **options)
    except ErrorMeta as meta:
        raise meta.to_error() from None
    metas = []
    for pair in pairs:
        try:
            pair.compare()
        except ErrorMeta as meta:
            metas.append(meta)
    return metas


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close (torch's semantics).

    Tensors must match in shape (and dtype, device unless disabled) and satisfy
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise; default tolerances by dtype:
    float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7),
    otherwise exact. Sequences and mappings are compared item by item.
    """
    __tracebackhide__ = True
    metas = not_close_error_metas(
        actual, expected, pair_types=(NonePair, BooleanPair, NumberPair, TensorLikePair),
        allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
        check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
        check_stride=check_stride)
    if metas:
        raise metas[0].to_error(msg)
