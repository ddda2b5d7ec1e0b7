"""complex32 (torch's ComplexHalf) on NumPy arrays, which have no such type (layer L0).

A complex32 array is a structured array of ``(real, imag)`` float16 pairs (``_dtype.CHALF_NP``):
4 bytes per element, so sizes, strides, storages and float16 views are torch's. Movement (views,
reshape, indexing, cat, clone, copy) works on the pairs directly; arithmetic decodes to complex64
(exact), runs the ordinary kernel and rounds each component back to float16. Values reach float16
through float32 (double -> float -> half), as torch's conversions do.

CPU torch implements only a few ops for ComplexHalf; the others raise its
``NotImplementedError('"<kernel>" not implemented for \\'ComplexHalf\\'')`` here too.

Example:
    >>> import numpy as np
    >>> z = encode(np.array([1 + 2j, 0.1 - 3j]))
    >>> z.dtype.itemsize, decode(z).tolist()
    (4, [(1+2j), (0.0999755859375-3j)])
"""
from __future__ import annotations

import warnings

import numpy as np

from ._dtype import CHALF_NP, complex32

__all__ = ["encode", "decode", "cast", "is_chalf", "check_pointwise", "wrap_kernel", "refuse"]

_C64 = np.dtype(np.complex64)
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)


def is_chalf(a) -> bool:
    return type(a) is np.ndarray and a.dtype == CHALF_NP


def encode(values) -> np.ndarray:
    """complex32 pairs of ``values`` (any numeric array or scalar), each component rounded to
    float16 through float32."""
    a = np.asarray(values)
    if a.dtype == CHALF_NP:
        return a.copy()
    out = np.empty(a.shape, CHALF_NP)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # overflow to inf is the conversion's meaning
        if a.dtype.kind == "c":
            out["real"] = a.real.astype(_F32).astype(_F16)
            out["imag"] = a.imag.astype(_F32).astype(_F16)
        else:
            out["real"] = a.astype(_F32).astype(_F16) if a.dtype != _F16 else a
            out["imag"] = 0
    return out


def decode(a: np.ndarray) -> np.ndarray:
    """complex64 values of complex32 pairs (exact)."""
    out = np.empty(a.shape, _C64)
    out.real = a["real"]
    out.imag = a["imag"]
    return out


def cast(a: np.ndarray, np_dtype) -> np.ndarray:
    """``a.astype(np_dtype)`` (a fresh array) where either side may be complex32."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype == CHALF_NP:
        return encode(a)
    if a.dtype == CHALF_NP:
        a = decode(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # complex -> real keeps .real
        return a.astype(np_dtype, copy=True)


# ------------------------------------------------------------------ which ops torch's CPU build runs
# pointwise ops computing in complex32 (their operands promote to it)
POINTWISE = frozenset({"add", "sub", "mul", "neg", "conj_physical", "sgn", "abs",
                       "eq", "ne", "isnan", "isfinite", "isinf", "where", "addcmul"})
# other ops: movement, masks, fills and the few reductions torch has for ComplexHalf
OTHER = frozenset({"clone", "copy", "cat", "flip", "roll", "index", "index_select", "index_put",
                   "index_copy", "index_fill", "index_add", "masked_fill", "index_mask", "nonzero",
                   "repeat_interleave", "tril", "triu", "select_backward", "slice_backward",
                   "as_strided_scatter", "any", "all", "std", "var", "linalg_vector_norm",
                   "to_dtype", "complex"})
# torch's kernel names in its refusals, where they differ from "<op>_cpu"
_KERNEL_NAMES = {
    "div": "div_cpu", "exp": "exp_vml_cpu", "log": "log_vml_cpu", "sqrt": "sqrt_vml_cpu",
    "sin": "sin_vml_cpu", "cos": "cos_vml_cpu", "tan": "tan_vml_cpu", "tanh": "tanh_vml_cpu",
    "asin": "asin_vml_cpu", "acos": "acos_vml_cpu", "atan": "atan_vml_cpu", "log1p": "log1p_vml_cpu",
    "expm1": "expm1_vml_cpu", "log10": "log10_vml_cpu", "log2": "log2_vml_cpu",
    "pow": "pow", "pow_tensor_scalar": "pow", "exp2": "exp2", "angle_complex": "angle_cpu",
    "sum": "sum_cpu", "mean": "sum_cpu", "prod": "prod_out_cpu", "cumsum": "cumsum_out_cpu",
    "cumprod": "cumprod_out_cpu", "max_all": "max_all", "min_all": "min_all",
    "mm": "addmm_impl_cpu_", "addmm": "addmm_impl_cpu_", "matmul": "addmm_impl_cpu_",
    "mv": "addmv_impl_cpu", "addmv": "addmv_impl_cpu", "bmm": "bmm", "baddbmm": "bmm",
    "einsum": "bmm", "dot": "dot", "vdot": "vdot", "gather": "scatter_gather_tensor_cpu",
    "scatter": "scatter_gather_tensor_cpu", "scatter_add": "scatter_gather_tensor_cpu",
    "take": "take_cpu", "unique": "unique", "logical_not": "logical_not_cpu",
    "logical_and": "logical_and_cpu", "logical_or": "logical_or_cpu", "logical_xor": "logical_xor_cpu",
    "lerp": "lerp_kernel_scalar", "nan_to_num": "nan_to_num", "_softmax": "softmax_kernel_impl",
    "_log_softmax": "log_softmax_kernel_impl", "full": "fill_cpu", "eye": "eye",
    "equal": "equal_notnan_cpu", "masked_scatter": "masked_scatter", "trace": "trace",
}


# ops torch refuses for every complex dtype, with their own words (checked before the dtype dispatch)
_COMPLEX_ERRORS = {
    "sign": (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                  "Please use torch.sgn instead."),
    "clamp": (NotImplementedError, "clamp is not supported for complex types"),
    "clamp_tensor": (NotImplementedError, "clamp is not supported for complex types"),
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "fmax": (RuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (RuntimeError, "fmin not implemented for complex tensors."),
    "heaviside": (RuntimeError, "heaviside is not yet implemented for complex tensors."),
    "sort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
    "argmax": (RuntimeError, "argmax(): does not support complex input"),
    "argmin": (RuntimeError, "argmin(): does not support complex input"),
    "floor": (NotImplementedError, "floor is not supported for complex inputs"),
    "ceil": (NotImplementedError, "ceil is not supported for complex inputs"),
    "trunc": (NotImplementedError, "trunc is not supported for complex inputs"),
    "fft_c2c": (RuntimeError, "MKL FFT doesn't support tensors of type: Half"),
}


ALL_COMPLEX_REFUSED = frozenset(_COMPLEX_ERRORS)


def refuse(name: str) -> Exception:
    """torch's error for op ``name`` on complex32."""
    if name in _COMPLEX_ERRORS:
        exc, msg = _COMPLEX_ERRORS[name]
        return exc(msg)
    kernel = _KERNEL_NAMES.get(name, f"{name}_cpu")
    return NotImplementedError(f'"{kernel}" not implemented for \'ComplexHalf\'')


def check_pointwise(op_name: str) -> None:
    """Raise torch's refusal unless torch computes pointwise ``op_name`` in complex32."""
    if op_name not in POINTWISE:
        raise refuse(op_name)


def pointwise_operands(arrays: list, idx, cnp, to_chalf_first: bool) -> list:
    """Operands of a pointwise op with a complex32 operand or result, in the compute dtype ``cnp``
    (complex64 for a complex32 result: other operands are first rounded to complex32, as torch
    converts them to the common dtype)."""
    out = list(arrays)
    for i in (range(len(out)) if idx is None else idx):
        x = out[i]
        if type(x) is not np.ndarray:
            if to_chalf_first and isinstance(x, (int, float, complex, np.number)) and \
                    not isinstance(x, (bool, np.bool_)):
                out[i] = _round(x)[()]  # a Python scalar takes the common dtype, complex32
            continue
        if x.dtype == CHALF_NP:
            x = decode(x)
        elif to_chalf_first:
            x = _round(x)
        if x.dtype != cnp:
            x = cast(x, cnp)
        out[i] = x
    for i, x in enumerate(out):  # a complex32 array outside the promoted operands (masks never are)
        if type(x) is np.ndarray and x.dtype == CHALF_NP:
            out[i] = decode(x)
    return out


def _round(x) -> np.ndarray:
    """complex64 values of ``x`` rounded to complex32 (an intermediate result in torch's
    complex<Half> arithmetic, which rounds after every operation)."""
    return decode(encode(x))


def _scaled(b, factor):
    """``factor * b`` in complex<Half> arithmetic: the factor and the product rounded."""
    return b if factor == 1 else _round(_round(np.complex64(factor)) * b)


def _add(a, b, *, alpha=1):
    return np.add(a, _scaled(b, alpha))


def _sub(a, b, *, alpha=1):
    return np.subtract(a, _scaled(b, alpha))


def _addcmul(a, t1, t2, *, value=1):
    return np.add(a, _round(_scaled(t1, value) * t2))


# kernels computing a complex32 result in several roundings, as torch's complex<Half> does
_POINTWISE_KERNELS = {"add": _add, "sub": _sub, "addcmul": _addcmul}


def pointwise_kernel(op):
    """The kernel computing ``op`` on complex64 operands for a complex32 result."""
    return _POINTWISE_KERNELS.get(op.name, op.kernel)


def wrap_kernel(op, args_dtypes: tuple, params: dict):
    """The kernel of non-pointwise ``op`` for inputs including complex32 arrays: decode, run, and
    round complex64 (float32) results back to complex32 (float16) unless a wider input or an
    explicit ``dtype`` asked for them; refused ops raise torch's NotImplementedError."""
    if op.kind == "random" and op.name in ("normal", "uniform"):
        return op.kernel  # x.normal_() / x.uniform_(): the sampler draws complex32 itself
    if op.name not in OTHER:
        raise refuse(op.name)
    if op.name in ("var", "std"):
        return _var if op.name == "var" else _std
    kernel = op.kernel
    keep_wide = params.get("dtype") is not None or any(_wide(d) for d in args_dtypes)
    if op.name == "copy":  # the value dst.copy_(src) writes has dst's dtype
        to_chalf = args_dtypes[0] is complex32
        return lambda dst, src: (encode if to_chalf else _same)(kernel(_decode_any(dst), _decode_any(src)))

    def run(*arrays, **kw):
        arrays = [_decode_any(a) for a in arrays]
        res = kernel(*arrays, **kw)
        if keep_wide:
            return res
        return tuple(_narrow(r) for r in res) if type(res) in (tuple, list) else _narrow(res)
    return run


def _var(a, *, dim=None, correction=1, keepdim=False):
    """torch's complex32 variance: the real and imaginary parts' variances, each rounded to
    float16, summed and rounded (observed bit for bit)."""
    axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
    parts = [np.var(a[k].astype(np.float64), axis=axis, ddof=correction, keepdims=keepdim)
             .astype(_F32).astype(_F16).astype(_F32) for k in ("real", "imag")]
    return np.asarray(parts[0] + parts[1]).astype(_F16)


def _std(a, **kw):
    return np.sqrt(_var(a, **kw).astype(_F32)).astype(_F16)


def _same(r):
    return r


def _wide(d) -> bool:
    """float32/float64/complex64/complex128 inputs keep an op's result wide (torch promotes)."""
    return d is not None and (d.is_floating_point and d.itemsize >= 4 or
                              d.is_complex and d is not complex32)


def decode_all(arrays) -> list:
    """The arrays (and lists of arrays) with complex32 ones decoded to complex64."""
    return [_decode_any(a) for a in arrays]


def _decode_any(a):
    if type(a) is np.ndarray and a.dtype == CHALF_NP:
        return decode(a)
    if type(a) in (list, tuple):
        return type(a)(_decode_any(x) for x in a)
    return a


def _narrow(r):
    if isinstance(r, np.generic):
        r = np.asarray(r)
    if type(r) is np.ndarray:
        if r.dtype == _C64:
            return encode(r)
        if r.dtype == _F32:
            return r.astype(_F16)
    return r

