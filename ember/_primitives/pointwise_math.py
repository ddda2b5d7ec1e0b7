"""More pointwise primitives (layer L1): the gamma family, xlogy, copysign, sinc, angle conversions,
heaviside, gcd/lcm, bit shifts, logit, nextafter, frexp, and complex construction and views.

Same family rules as ``pointwise.py``: broadcasting, torch's promotion, in-place/``out=`` variants and
the summing of broadcast gradients come from the family; each block states kernel and derivative.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from ._registry import TensorMeta, primitive
from ._special import special as _sp
from .pointwise import _is_t, _kind, _not_impl, _zeros

_PI = math.pi


def _float_kernel(name, fn):
    def kernel(a):
        if a.dtype.kind == "c":
            _not_impl(name, a)
        return fn(a)
    return kernel


# ----------------------------------------------------------------------------- gamma family
@primitive("lgamma", kind="pointwise", promotion="int_to_float", expr="lgamma(a)")
def lgamma(a):
    if a.dtype.kind == "c":
        _not_impl("lgamma_vml_cpu", a)
    return _gammaln(a)


def _gammaln(a):
    """log|Gamma(a)| with torch's value at -inf (+inf: |Gamma| grows without bound; SciPy says -inf)."""
    out = _sp().gammaln(a)
    if a.dtype.kind == "f" and np.isneginf(a).any():
        out = np.where(np.isneginf(a), np.inf, out).astype(out.dtype, copy=False)
    return out


lgamma.derivative(lambda grad, a: grad * a.digamma())


@primitive("digamma", kind="pointwise", promotion="int_to_float", expr="digamma(a)")
def digamma(a):
    if a.dtype.kind == "c":
        _not_impl("digamma", a)
    # torch: digamma(+-0) = -+inf (the limit from the side of the zero's sign)
    r = _sp().psi(a)
    return np.where(a == 0, np.copysign(np.inf, -np.copysign(1, a)), r) if (a == 0).any() else r


digamma.derivative(lambda grad, a: grad * a._op(polygamma, n=1))


@primitive("polygamma", kind="pointwise", promotion="int_to_float", expr="polygamma(n, a)")
def polygamma(a, *, n):
    if n == 0:
        return digamma.kernel(a)
    return _sp().polygamma(n, a).astype(a.dtype)


polygamma.derivative(lambda grad, a, *, n: grad * a._op(polygamma, n=n + 1))


# ----------------------------------------------------------------------------- logs and signs
@primitive("xlogy", kind="pointwise", promotion="int_to_float", expr="0 if a == 0 else a * log(b)")
def xlogy(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.multiply(a, np.log(b))
    return np.where((np.asarray(a) == 0) & ~np.isnan(b), 0, r).astype(r.dtype)


@xlogy.derivative
def _(grad, a, b):
    # torch: xlogy(grad, b), zeroed where a == 0 and b <= 0
    ga = grad._op(xlogy, b).masked_fill((a == 0) & (b <= 0), 0) if _is_t(a) else None
    gb = grad * a / b if _is_t(b) else None
    return ga, gb


@primitive("xlog1py", kind="pointwise", promotion="int_to_float", expr="0 if a == 0 else a * log1p(b)")
def xlog1py(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.multiply(a, np.log1p(b))
    return np.where((np.asarray(a) == 0) & ~np.isnan(b), 0, r).astype(r.dtype)


@xlog1py.derivative
def _(grad, a, b):
    ga = grad._op(xlog1py, b).masked_fill((a == 0) & (b <= -1), 0) if _is_t(a) else None
    gb = grad * a / (b + 1) if _is_t(b) else None
    return ga, gb


@primitive("copysign", kind="pointwise", promotion="int_to_float", expr="copysign(a, b)")
def copysign(a, b):
    return np.copysign(a, b)


@copysign.derivative(reads={"a": ("a", "out"), "b": ()})
def _(grad, a, out, b):
    # torch: grad * out / a, with 0 where a == 0
    ga = grad * (out / a).where(a != 0, 0)
    return ga, (_zeros(grad) if _is_t(b) else None)


@primitive("sinc", kind="pointwise", promotion="int_to_float", expr="sinc(a)")
def sinc(a):
    return np.sinc(a)


@sinc.derivative
def _(grad, a):
    pa = a * _PI
    d = (pa * pa.cos() - pa.sin()) / (pa * a)
    return grad * d.where(a != 0, 0)


deg2rad = primitive("deg2rad", kind="pointwise", promotion="int_to_float", expr="a * pi / 180")(
    _float_kernel("deg2rad", lambda a: np.multiply(a, a.dtype.type(_PI / 180))))
deg2rad.derivative(lambda grad: grad * (_PI / 180))
rad2deg = primitive("rad2deg", kind="pointwise", promotion="int_to_float", expr="a * 180 / pi")(
    _float_kernel("rad2deg", lambda a: np.multiply(a, a.dtype.type(180 / _PI))))
rad2deg.derivative(lambda grad: grad * (180 / _PI))


@primitive("heaviside", kind="pointwise", expr="b if a == 0 else (a > 0)")
def heaviside(a, b):
    if _kind(a) == "c":
        _not_impl("heaviside_cpu", a)
    return np.where(a == 0, b, a > 0).astype(np.result_type(a, b))


@primitive("logit", kind="pointwise", promotion="int_to_float", expr="log(a / (1 - a))")
def logit(a, *, eps=None):
    if eps is not None:
        a = np.clip(a, eps, 1 - eps)
    return np.log(a / (1 - a))


@logit.derivative
def _(grad, a, *, eps):
    g = grad / (a * (1 - a))
    if eps is None:
        return g.where((a >= 0) & (a <= 1), math.nan)
    return g.where((a >= eps) & (a <= 1 - eps), 0)


@primitive("nextafter", kind="pointwise", expr="nextafter(a, b)")
def nextafter(a, b):
    if _kind(a) not in "f":
        _not_impl("nextafter_cpu", a)
    return np.nextafter(a, b)


# torch: the step is treated as the identity in ``a`` and constant in ``b``
nextafter.derivative(lambda grad: (grad, grad.new_zeros(grad.shape)))


@primitive("frexp", kind="other", num_outputs=2, differentiable_outputs=(0,))
def frexp(a):
    if a.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(a)
    return m, e.astype(np.int32)


@frexp.meta
def _(a):
    if a.dtype.category != 2:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return TensorMeta(a.shape, a.dtype), TensorMeta(a.shape, D.int32)


@frexp.derivative
def _(grads, out1):
    return grads[0] / out1.exp2()


def _nan_ignoring(name, ufunc, ge):
    @primitive(name, kind="pointwise", expr=f"{name}(a, b)")
    def kernel(a, b):
        if _kind(a) == "c" or _kind(b) == "c":
            _not_impl(f"{name}_cpu", a if _kind(a) == "c" else b)
        return ufunc(a, b)

    @kernel.derivative
    def _(grad, a, b):
        # torch: the gradient goes to ``a`` where it wins (ties included) or ``b`` is NaN
        pick_a = (ge(a, b)).logical_or(b.isnan())
        return grad * pick_a, grad * pick_a.logical_not()
    return kernel


fmax = _nan_ignoring("fmax", np.fmax, lambda a, b: a >= b)
fmin = _nan_ignoring("fmin", np.fmin, lambda a, b: a <= b)


@primitive("mvlgamma", kind="pointwise", promotion="int_to_float", expr="mvlgamma(a, p)")
def mvlgamma(a, *, p):
    j = np.arange(p, dtype=a.dtype).reshape((p,) + (1,) * a.ndim)
    c = p * (p - 1) / 4 * math.log(_PI)
    return (np.add.reduce(_gammaln(a - j / 2), axis=0) + c).astype(a.dtype)


@mvlgamma.derivative
def _(grad, a, *, p):
    total = a.digamma()
    for j in range(1, p):  # p terms, each a pointwise op on the whole tensor
        total = total + (a - j / 2).digamma()
    return grad * total


# ----------------------------------------------------------------------------- integers
def _ints_only(name, ufunc):
    @primitive(name, kind="pointwise", expr=f"{name}(a, b)")
    def kernel(a, b):
        for x in (a, b):
            if _kind(x) not in "iu" and not (_kind(x) == "b" and name != "gcd"):
                _not_impl(f"{name}_cpu", x)
        return ufunc(a, b)
    return kernel


gcd = _ints_only("gcd", np.gcd)
lcm = _ints_only("lcm", np.lcm)


def _shift(name, kname, left):
    @primitive(name, kind="pointwise", expr=f"a {'<<' if left else '>>'} b")
    def kernel(a, b):
        for x in (a, b):
            if _kind(x) not in "iub":
                _not_impl(kname, x)
        dt = np.result_type(a, b)
        a, b = np.asarray(a, dt), np.asarray(b, dt)
        bits = dt.itemsize * 8
        # C++ leaves out-of-range shifts undefined; torch gives 0 (left) or the sign fill (right)
        bad = (b < 0) | (b >= bits)
        safe = np.where(bad, 0, b)
        if left:
            return np.where(bad, 0, np.left_shift(a, safe)).astype(dt)
        fill = np.right_shift(a, bits - 1) if dt.kind == "i" else np.zeros_like(a)
        return np.where(bad, fill, np.right_shift(a, safe)).astype(dt)
    return kernel


bitwise_left_shift = _shift("bitwise_left_shift", "lshift_cpu", True)
bitwise_right_shift = _shift("bitwise_right_shift", "rshift_cpu", False)


# ----------------------------------------------------------------------------- complex
@primitive("angle", kind="pointwise", promotion="int_to_float", expr="angle(a)")
def angle(a):
    if a.dtype.kind == "c":
        return np.angle(a)
    return np.where(np.isnan(a), a, np.where(a < 0, a.dtype.type(_PI), a.dtype.type(0)))


@primitive("angle_complex", kind="pointwise", promotion="complex_to_float", node_name="AngleBackward0")
def angle_complex(a):
    return np.angle(a)


def _angle_grad(grad, a):
    if not a.is_complex():
        return _zeros(grad)
    # torch: grad * z / |z|^2 * i (0 at z == 0)
    mag2 = a.abs() ** 2
    return (grad * a / mag2 * 1j).where(a != 0, 0)


angle.derivative(_angle_grad)
angle_complex.derivative(_angle_grad)


@primitive("complex", kind="other", node_name="ComplexBackward0")
def complex(real, imag):
    out = np.empty(np.broadcast_shapes(real.shape, imag.shape),
                   np.complex64 if real.dtype == np.float32 else np.complex128)
    out.real, out.imag = real, imag
    return out


@complex.meta
def _(real, imag):
    from .._shape import broadcast_shapes
    ok = (D.float16, D.float32, D.float64)
    if real.dtype not in ok or imag.dtype not in ok:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{dtype_title(real.dtype)} and {dtype_title(imag.dtype)}")
    if real.dtype is not imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {dtype_title(real.dtype)} but got scalar "
                           f"type {dtype_title(imag.dtype)} for second argument")
    cdt = {D.float16: getattr(D, "complex32", D.complex64), D.float32: D.complex64,
           D.float64: D.complex128}[real.dtype]
    return TensorMeta(broadcast_shapes(tuple(real.shape), tuple(imag.shape)), cdt)


complex.derivative(lambda grad: (grad.real, grad.imag))


_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64),
            D.CHALF_NP: np.dtype(np.float16)}


def pairs_of(a):
    """The complex array ``a`` as (..., 2) float (real, imag) pairs sharing its memory: a new last
    axis of size 1 is contiguous, so NumPy reinterprets it in place (~7x cheaper than as_strided)."""
    return a[..., None].view(_REAL_OF[a.dtype])


@primitive("view_as_real", kind="view")
def view_as_real(a):
    if a.dtype not in _REAL_OF:
        raise TypeError
    return pairs_of(a)


@view_as_real.meta
def _(a):
    if not a.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return TensorMeta(tuple(a.shape) + (2,), a.dtype.to_real(),
                      tuple(2 * s for s in a.stride()) + (1,), 2 * a.storage_offset())


@view_as_real.derivative
def _(grad):
    if grad.numel() == 0:  # an empty gradient may carry any strides (e.g. a broadcast zero)
        return grad.new_zeros(tuple(grad.shape[:-1]), dtype=grad.dtype.to_complex())
    return grad.contiguous()._op(view_as_complex)


def _as_complex_check(shape, strides, dtype):
    if dtype not in (D.float32, D.float64, D.float16):
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but "
                           f"got a tensor of scalar type: {dtype_title(dtype)}")
    if not shape or shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")


@primitive("view_as_complex", kind="view")
def view_as_complex(a):
    isz = a.itemsize
    _as_complex_check(a.shape, tuple(s // isz for s in a.strides), D.FROM_NP[a.dtype])
    cdt = np.complex64 if a.dtype == np.float32 else np.complex128 if a.dtype == np.float64 else D.CHALF_NP
    return a.view(cdt)[..., 0]  # the last axis is contiguous, so NumPy can reinterpret it


@view_as_complex.meta
def _(a):
    _as_complex_check(tuple(a.shape), tuple(a.stride()), a.dtype)
    cdt = D.complex64 if a.dtype is D.float32 else D.complex128 if a.dtype is D.float64 else D.complex32
    if a.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return TensorMeta(tuple(a.shape[:-1]), cdt, tuple(s // 2 for s in a.stride()[:-1]),
                      a.storage_offset() // 2)


view_as_complex.derivative(lambda grad: grad._op(view_as_real))


def _view_dtype_geometry(shape, strides, offset, old, new):
    """torch's checks and the (shape, strides, offset) of ``view(dtype)`` (element units)."""
    osz, nsz = old.itemsize, new.itemsize
    if osz == nsz:
        return shape, strides, offset
    what = f"to view {dtype_title(old)} as {dtype_title(new)} (different element sizes)"
    if not shape:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if strides[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
    if nsz < osz:
        k = osz // nsz
        return shape[:-1] + (shape[-1] * k,), tuple(s * k for s in strides[:-1]) + (1,), offset * k
    k = nsz // osz
    if shape[-1] % k:
        raise RuntimeError(f"self.size(-1) must be divisible by {k} {what}, but got {shape[-1]}")
    if offset % k:
        raise RuntimeError(f"self.storage_offset() must be divisible by {k} {what}, but got {offset}")
    for i, st in enumerate(strides[:-1]):
        if st % k:
            raise RuntimeError(f"self.stride({i}) must be divisible by {k} {what}, but got {st}")
    return shape[:-1] + (shape[-1] // k,), tuple(s // k for s in strides[:-1]) + (1,), offset // k


@primitive("view_dtype", kind="view", node_name="ViewBackward1")
def view_dtype(a, *, dtype):
    """The same bytes read as ``dtype`` (the last dim rescales when element sizes differ)."""
    old = D.FROM_NP[a.dtype]
    if old.itemsize != dtype.itemsize:
        isz = a.itemsize
        _view_dtype_geometry(a.shape, tuple(s // isz for s in a.strides), 0, old, dtype)
    return a.view(dtype.np) if a.ndim else a.reshape(1).view(dtype.np).reshape(())


@view_dtype.meta
def _(a, *, dtype):
    shape, strides, offset = _view_dtype_geometry(tuple(a.shape), tuple(a.stride()), a.storage_offset(),
                                                  a.dtype, dtype)
    return TensorMeta(shape, dtype, strides, offset)


__all__ = ["fmax", "fmin", "mvlgamma", "lgamma", "digamma", "polygamma", "xlogy", "xlog1py", "copysign", "sinc", "deg2rad",
           "rad2deg", "heaviside", "logit", "nextafter", "frexp", "gcd", "lcm", "bitwise_left_shift",
           "bitwise_right_shift", "angle", "complex", "view_as_real", "view_as_complex", "view_dtype"]
