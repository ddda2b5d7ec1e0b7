"""Tensor ``repr``/``str`` exactly as torch prints them, and ``set_printoptions`` (layer L2).

Formatting follows torch's ``_tensor_str`` rules and works on the NumPy data directly: one formatter
per tensor (fixed or scientific notation, integer-valued floats as ``1.``, a common width), rows
wrapped at ``linewidth``, large tensors summarised with ``...``, and suffixes for a non-default dtype or
device, ``requires_grad`` and ``grad_fn``.

Example:
    >>> import ember
    >>> ember.tensor([1.0, 2.5, -3.0])
    tensor([ 1.0000,  2.5000, -3.0000])
    >>> ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    tensor([[1, 2],
            [3, 4]], dtype=torch.int32)
"""
from __future__ import annotations

import contextlib
import dataclasses
import math

import numpy as np

from . import _dtype as D

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "tensor_repr"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: "bool | None" = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None) -> None:
    """Set how tensors print (torch's options; ``profile`` is 'default', 'short' or 'full').

    Example:
        >>> import ember
        >>> ember.set_printoptions(precision=2)
        >>> ember.tensor([1.12345])
        tensor([1.12])
        >>> ember.set_printoptions(profile='default')
    """
    if profile is not None:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change print options inside a ``with`` block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ------------------------------------------------------------------ formatting values
class _Formatter:
    """One number format for every element of a tensor (torch's ``_Formatter``)."""

    def __init__(self, arr: np.ndarray):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return
        absd = np.abs(vals.astype(np.float64))
        lo, hi = float(absd.min()), float(absd.max())
        self.int_mode = bool((vals == np.ceil(vals)).all())
        p = PRINT_OPTS.precision
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        values = vals.tolist()
        if self.sci_mode:
            width = max(len(f"{v:.{p}e}") for v in values)
        elif self.int_mode:
            width = max(len(f"{v:.0f}") for v in values) + 1
        else:
            width = max(len(f"{v:.{p}f}") for v in values)
        self.max_width = max(self.max_width, width)

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(val, f1, f2) -> str:
    real = f1.format(val.real)
    imag = (f2.format(val.imag) + "j").lstrip()
    # a sign already present (negative numbers, -0.) joins directly
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _vector_str(arr, indent, summarize, f1, f2) -> str:
    element_length = f1.width() + 2
    if f2 is not None:
        element_length += f2.width() + 1
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    fmt = (lambda v: _complex_str(v, f1, f2)) if f2 is not None else f1.format
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        data = [fmt(v) for v in arr[:edge].tolist()] + [" ..."] + \
            [fmt(v) for v in arr[-edge:].tolist()]
    else:
        data = [fmt(v) for v in arr.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _str_with_formatter(arr, indent, summarize, f1, f2=None) -> str:
    dim = arr.ndim
    if dim == 0:
        v = arr.item()
        return _complex_str(v, f1, f2) if f2 is not None else f1.format(v)
    if dim == 1:
        return _vector_str(arr, indent, summarize, f1, f2)
    edge = PRINT_OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        slices = [_str_with_formatter(arr[i], indent + 1, summarize, f1, f2) for i in range(edge)] \
            + ["..."] + [_str_with_formatter(arr[i], indent + 1, summarize, f1, f2)
                         for i in range(n - edge, n)]
    else:
        slices = [_str_with_formatter(arr[i], indent + 1, summarize, f1, f2) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized(arr: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows (the formatter sizes itself on these only)."""
    if arr.ndim == 0:
        return arr
    edge = PRINT_OPTS.edgeitems
    if arr.ndim == 1:
        return np.concatenate((arr[:edge], arr[-edge:])) if arr.shape[0] > 2 * edge else arr
    if not edge:
        return arr[(slice(0, 0),) * arr.ndim]
    if arr.shape[0] > 2 * edge:
        rows = list(range(edge)) + list(range(arr.shape[0] - edge, arr.shape[0]))
    else:
        rows = range(arr.shape[0])
    return np.stack([_summarized(arr[i]) for i in rows])


def _printable(arr: np.ndarray) -> np.ndarray:
    # float16/bfloat16 values print through float32 (exact), as torch's tolist does via double
    if arr.dtype == np.float16 or arr.dtype == D.bfloat16.np:
        return arr.astype(np.float32)
    if arr.dtype == D.CHALF_NP:  # complex32's float16 pairs print through complex64 (exact)
        out = np.empty(arr.shape, np.complex64)
        out.real, out.imag = arr["real"], arr["imag"]
        return out
    return arr


def _tensor_str(arr: np.ndarray, indent: int) -> str:
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    arr = _printable(arr)
    if arr.dtype.kind == "c":
        sub = _summarized(arr) if summarize else arr
        return _str_with_formatter(arr, indent, summarize, _Formatter(sub.real.copy()),
                                   _Formatter(sub.imag.copy()))
    return _str_with_formatter(arr, indent, summarize,
                               _Formatter(_summarized(arr) if summarize else arr))


def _add_suffixes(tensor_str: str, suffixes, indent: int) -> str:
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, *, tensor_contents=None) -> str:
    """torch's ``repr`` of tensor ``t`` (``tensor([1., 2.], requires_grad=True)``)."""
    cls = type(t)
    plain = cls.__name__ in ("Tensor", "Parameter") and cls.__module__.startswith("ember")
    prefix = "tensor(" if plain else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    dev = t.device
    if dev.type != "cpu":  # torch compares with its default cpu/cuda type, never with 'meta'
        suffixes.append(f"device='{dev}'")
    dt = t.dtype
    default = D.get_default_dtype()
    has_default_dtype = dt in (default, D.default_complex(), D.int64, D.bool)
    arr = t._data
    if arr is None:
        suffixes.append(f"size={tuple(t.shape)}")
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "..."
    elif arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(arr.shape)}")
        if not has_default_dtype:
            suffixes.append(f"dtype={dt!r}")
        body = None
    if tensor_contents is not None:
        body = tensor_contents
    elif body is None:
        body = _tensor_str(arr, indent)
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
