"""Quantized tensors: integers plus a quantizer (scale, zero point, scheme), as torch's QuantizedCPU.

A quantized tensor is a ``QTensor`` (a ``Tensor`` subclass) whose ``_data`` holds the stored integers
(int8 / uint8 / int32 for qint8 / quint8 / qint32) and whose ``_q`` slot holds the quantizer. Its
``__torch_function__`` routes every public op either to a quantized kernel (``kernels.QUANTIZED``)
or raises torch's ``NotImplementedError`` naming the op and ``QuantizedCPU``: an op never computes on
the raw integers by accident.

Rounding matches torch's x86 build: ``q = clamp(round_half_even(x * (1/scale) + zero_point))`` with
the multiply-add fused (one rounding) for qint8/quint8 and two float32 roundings for qint32;
``dequantize(q) = float32(q - zero_point) * float32(scale)``.

Example:
    >>> import ember
    >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 0.26, 300.0]), 0.5, 3, ember.qint8)
    >>> q.int_repr().tolist(), q.dequantize().tolist()
    ([1, 4, 127], [-1.0, 0.5, 62.0])
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._dispatch import wrap
from .._tensor_base import new_tensor
from .._tensor import Tensor
from .qparams import choose_qparams_dynamic

__all__ = ["qscheme", "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
           "per_channel_symmetric", "per_channel_affine_float_qparams", "QTensor",
           "quantize_per_tensor", "quantize_per_channel", "quantize_per_tensor_dynamic",
           "dequantize", "qrange", "_rebuild_qtensor", "make_qtensor"]

_new = object.__new__


class qscheme:
    """A quantization scheme (``torch.per_tensor_affine`` ...); compares by identity."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name  # a global of this module; checkpoints name it torch.<name>


per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")
QSCHEMES = (per_tensor_affine, per_channel_affine, per_tensor_symmetric, per_channel_symmetric,
            per_channel_affine_float_qparams)

_INT_OF = {D.qint8: D.int8, D.quint8: D.uint8, D.qint32: D.int32}
_RANGE = {D.qint8: (-128, 127), D.quint8: (0, 255), D.qint32: (-2 ** 31, 2 ** 31 - 1)}
_DEPRECATION = ("torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor "
                "creation functions that produce tensors with dtype torch.quint8, torch.qint8, and "
                "torch.qint32 are deprecated and will be removed in a future PyTorch release. Please "
                "see https://github.com/pytorch/pytorch/issues/184982 for more information.")


def qrange(dtype) -> tuple:
    """(quant_min, quant_max) of a quantized dtype."""
    return _RANGE[dtype]


def _check_qdtype(dtype, op: str):
    if dtype not in _INT_OF:
        raise RuntimeError(f"{op}: Creation of quantized tensor requires quantized dtype like "
                           f"torch.quint8, got {dtype}")


def _float_array(x) -> np.ndarray:
    if isinstance(x, QTensor):
        raise RuntimeError("quantize: expected a float tensor, got a quantized tensor")
    a = x._data if isinstance(x, Tensor) else np.asarray(x, np.float32)
    if a.dtype.kind != "f":
        raise RuntimeError(f"Quantize only works on Float Tensor, got {D.from_numpy_dtype(a.dtype)}")
    return a.astype(np.float32, copy=False)


_NUMBA_MIN = 2048  # elements from which the compiled quantize pass beats NumPy's five passes


def _quantize_array(a: np.ndarray, scale, zero_point, dtype, per_channel: bool = False) -> np.ndarray:
    """torch's x86 rounding; scale/zero_point scalars or arrays broadcastable against ``a``."""
    lo, hi = _RANGE[dtype]
    s32 = np.asarray(scale, np.float32)
    inv = (np.float32(1) / s32).astype(np.float32)
    if dtype is D.qint32 or per_channel:  # two float32 roundings (torch's per-channel and qint32 paths)
        v = np.rint(a * inv + np.asarray(zero_point).astype(np.float32))
        v = np.clip(v.astype(np.float64), lo, hi)
    elif inv.ndim == 0 and np.ndim(zero_point) == 0 and a.size >= _NUMBA_MIN:
        from ._int8_kernels import quantize_per_tensor  # one compiled pass, same numbers
        out = np.empty(a.shape, _INT_OF[dtype].np)
        quantize_per_tensor(np.ascontiguousarray(a).reshape(-1), float(inv), float(zero_point), lo, hi,
                            out.reshape(-1))
        return out
    else:  # fused multiply-add: the float64 product of two float32s is exact, one rounding to float32
        v = (a.astype(np.float64) * inv.astype(np.float64) + np.asarray(zero_point, np.float64))
        v = np.clip(np.rint(v.astype(np.float32)), lo, hi)
    return v.astype(_INT_OF[dtype].np)


def make_qtensor(ints: np.ndarray, dtype, q: tuple) -> "QTensor":
    """A QTensor over ``ints`` (stored integers) with quantizer ``q = (scheme, scale, zp, axis)``."""
    t = new_tensor(QTensor, ints, dtype)
    t._q = q
    return t


def _scalar(v, kind):
    if isinstance(v, Tensor):
        v = v.item()
    return kind(v)


def quantize_per_tensor(input, scale, zero_point, dtype) -> "QTensor":
    """Quantize ``input`` (float, any shape) with one ``scale`` and ``zero_point`` to ``dtype``.

    Example:
        >>> import ember
        >>> ember.quantize_per_tensor(ember.tensor([0.3]), 0.1, 0, ember.quint8).int_repr().tolist()
        [3]
    """
    if isinstance(input, (list, tuple)):
        return [quantize_per_tensor(x, s, z, dtype) for x, s, z in zip(input, scale, zero_point)]
    _check_qdtype(dtype, "quantize_per_tensor")
    warnings.warn(_DEPRECATION, UserWarning, stacklevel=2)
    scale, zero_point = _scalar(scale, float), _scalar(zero_point, int)
    ints = _quantize_array(_float_array(input), scale, zero_point, dtype)
    return make_qtensor(ints, dtype, (per_tensor_affine, scale, zero_point, None))


def quantize_per_tensor_dynamic(input, dtype, reduce_range: bool) -> "QTensor":
    """Quantize with qparams chosen from ``input``'s own min/max, as dynamic quantization does.

    Example:
        >>> import ember
        >>> q = ember.quantize_per_tensor_dynamic(ember.tensor([-1.0, 2.0]), ember.quint8, False)
        >>> q.q_zero_point()
        85
    """
    if dtype not in (D.qint8, D.quint8):
        raise RuntimeError(f"quantize_per_tensor_dynamic: unsupported dtype {dtype}")
    a = _float_array(input)
    lo, hi = _RANGE[dtype]
    if reduce_range:
        lo, hi = lo // 2, (hi - 1) // 2 if dtype is D.qint8 else hi // 2
    mn, mx = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
    scale, zp = choose_qparams_dynamic(mn, mx, lo, hi)
    ints = _quantize_array(a, scale, zp, dtype)
    return make_qtensor(ints, dtype, (per_tensor_affine, scale, zp, None))


def quantize_per_channel(input, scales, zero_points, axis: int, dtype) -> "QTensor":
    """Quantize ``input`` with one (scale, zero point) per index of dimension ``axis``.

    Args:
        scales: 1-d float tensor of length ``input.shape[axis]``; zero_points: 1-d int tensor.
    """
    _check_qdtype(dtype, "quantize_per_channel")
    warnings.warn(_DEPRECATION, UserWarning, stacklevel=2)
    a = _float_array(input)
    axis = axis + a.ndim if axis < 0 else axis
    zarr = np.asarray(zero_points._data if isinstance(zero_points, Tensor) else zero_points)
    float_qparams = zarr.dtype.kind == "f"  # float zero points: per_channel_affine_float_qparams
    s = np.asarray(scales._data if isinstance(scales, Tensor) else scales,
                   np.float32 if float_qparams else np.float64).reshape(-1)
    z = zarr.astype(np.float32 if float_qparams else np.int64).reshape(-1)
    if s.shape[0] != a.shape[axis] or z.shape[0] != a.shape[axis]:
        raise RuntimeError(f"quantize_per_channel: expected {a.shape[axis]} scales and zero points "
                           f"(size of dim {axis}), got {s.shape[0]} and {z.shape[0]}")
    shape = [1] * a.ndim
    shape[axis] = -1
    ints = _quantize_array(a, s.reshape(shape), z.reshape(shape), dtype, per_channel=True)
    scheme = per_channel_affine_float_qparams if float_qparams else per_channel_affine
    return make_qtensor(ints, dtype, (scheme, s, z, axis))


def dequantize(tensor):
    """The float32 values a quantized tensor stands for (a float tensor is returned unchanged)."""
    if isinstance(tensor, (list, tuple)):
        return [dequantize(t) for t in tensor]
    return tensor.dequantize()


def _channel_view(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def dequantize_array(t: "QTensor") -> np.ndarray:
    scheme, scale, zp, axis = t._q
    ints = t._data
    if axis is None:
        return (ints.astype(np.int64) - zp).astype(np.float32) * np.float32(scale)
    if scheme is per_channel_affine_float_qparams:  # float zero points: float32 arithmetic
        s = _channel_view(np.asarray(scale, np.float32), ints.ndim, axis)
        z = _channel_view(np.asarray(zp, np.float32), ints.ndim, axis)
        return (ints.astype(np.float32) - z) * s
    s = _channel_view(np.asarray(scale, np.float64), ints.ndim, axis)  # per channel: double scales
    z = _channel_view(np.asarray(zp, np.int64), ints.ndim, axis)
    return ((ints.astype(np.int64) - z) * s).astype(np.float32)


def _no_kernel(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"Could not run 'aten::{name.strip('_')}' with arguments from the 'QuantizedCPU' backend. This "
        f"could be because the operator doesn't exist for this backend, or was omitted during the "
        f"selective/custom build process (if using custom build).")


class QTensor(Tensor):
    """A quantized tensor; build one with ``quantize_per_tensor`` / ``quantize_per_channel``."""

    __slots__ = ("_q",)
    is_quantized = True
    KERNELS: dict = {}  # public function name -> quantized implementation (filled by kernels.py)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", str(func))
        impl = cls.KERNELS.get(name)
        if impl is None:
            raise _no_kernel(name)
        if getattr(impl, "takes_func", False):  # geometry kernels rerun the very function called
            return impl(func, *args, **(kwargs or {}))
        return impl(*args, **(kwargs or {}))

    # ------------------------------------------------------------------ the quantizer
    def qscheme(self):
        return self._q[0]

    def q_scale(self) -> float:
        self._per_tensor_only("q_scale")
        return self._q[1]

    def q_zero_point(self) -> int:
        self._per_tensor_only("q_zero_point")
        return self._q[2]

    def q_per_channel_scales(self):
        self._per_channel_only("q_per_channel_scales")
        return wrap(np.array(self._q[1]))

    def q_per_channel_zero_points(self):
        self._per_channel_only("q_per_channel_zero_points")
        return wrap(np.array(self._q[2]))

    def q_per_channel_axis(self) -> int:
        self._per_channel_only("q_per_channel_axis")
        return self._q[3]

    def _per_tensor_only(self, op):
        if self._q[3] is not None:
            raise RuntimeError(f"Expected quantizer->qscheme() == kPerTensorAffine to be true, but got "
                               f"false. ({op} on a {self._q[0]!r} tensor)")

    def _per_channel_only(self, op):
        if self._q[3] is None:
            raise RuntimeError(f"Expected qscheme == kPerChannelAffine || qscheme == "
                               f"kPerChannelAffineFloatQParams to be true, but got false. ({op})")

    # ------------------------------------------------------------------ values
    def dequantize(self):
        return wrap(dequantize_array(self), D.float32)

    def int_repr(self):
        return wrap(self._data.copy(), _INT_OF[self._dtype])

    def numpy(self, *, force=False):
        raise TypeError(f"Got unsupported ScalarType {self._dtype.name.replace('q', 'Q').replace('u', 'U')}")

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return float(dequantize_array(self).reshape(-1)[0])

    def tolist(self):
        raise RuntimeError("load_scalar: invalid type")

    def __repr__(self, *, tensor_contents=None):
        from .._tensor_str import _add_suffixes
        body = repr(self.dequantize())
        body = body[:body.rfind("]") + 1] if "]" in body else body[:-1]
        scheme, scale, zp, axis = self._q
        suffixes = [f"size={tuple(self.shape)}", f"dtype={self._dtype!r}",
                    f"quantization_scheme={scheme!r}"]
        if axis is None:
            suffixes += [f"scale={scale}", f"zero_point={zp}"]
        else:
            suffixes += [f"scale={self.q_per_channel_scales()!r}",
                         f"zero_point={self.q_per_channel_zero_points()!r}", f"axis={axis}"]
        return _add_suffixes(body, suffixes, len("tensor("))

    def __getitem__(self, index):
        return QTensor.KERNELS["__getitem__"](Tensor.__getitem__, self, index)

    def __setitem__(self, index, value):
        raise NotImplementedError("Could not run 'aten::index_put_' with arguments from the "
                                  "'QuantizedCPU' backend.")

    # ------------------------------------------------------------------ pickling and copies
    def __reduce_ex__(self, protocol):
        from .._tensor_pickle import TypedStorage
        scheme, scale, zp, axis = self._q
        if axis is None:
            params = (scheme, scale, zp)
        else:
            # float-qparams tensors travel as per_channel_affine with float zero points (as torch's)
            params = (per_channel_affine, wrap(np.array(scale)), wrap(np.array(zp)), axis)
        from collections import OrderedDict
        st = self.untyped_storage()
        return (_rebuild_qtensor, (TypedStorage(st, self._dtype), self.storage_offset(),
                                   tuple(self.shape), self.stride(), params, False, OrderedDict()))

    def __deepcopy__(self, memo):
        return make_qtensor(self._data.copy(), self._dtype, self._q)


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad=False,
                     backward_hooks=None):
    """torch's checkpoint entry for a quantized tensor (``torch._utils._rebuild_qtensor``)."""
    from .._tensor_pickle import tensor_over_storage
    if storage.dtype not in _INT_OF:
        raise RuntimeError(f"_rebuild_qtensor: expected a quantized storage, got {storage.dtype}")
    scheme = quantizer_params[0]
    if scheme is per_tensor_affine or scheme is per_tensor_symmetric:
        q = (per_tensor_affine, float(quantizer_params[1]), int(quantizer_params[2]), None)
    elif scheme in (per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams):
        _, scales, zps, axis = quantizer_params
        # torch pickles float-qparams tensors as per_channel_affine with float zero points
        fq = scheme is per_channel_affine_float_qparams or np.asarray(zps._data).dtype.kind == "f"
        scheme = per_channel_affine_float_qparams if fq else scheme
        q = (scheme if scheme is not per_channel_symmetric else per_channel_affine,
             np.asarray(scales._data, np.float32 if fq else np.float64).copy(),
             np.asarray(zps._data, np.float32 if fq else np.int64).copy(), int(axis))
    else:
        raise RuntimeError(f"Can't deserialize quantized tensor with qscheme {scheme}")
    t = tensor_over_storage(storage, storage_offset, size, stride)
    out = make_qtensor(t._data, storage.dtype, q)
    out._storage = t._storage
    return out


# Tensor's own methods (ember/_tensor.py) do not all consult __torch_function__; on a QTensor every
# one that could compute is routed through it, so it reaches a quantized kernel or raises torch's
# NotImplementedError, never the raw integers.
_SAFE = {"size", "dim", "ndimension", "numel", "nelement", "stride", "storage_offset", "is_contiguous",
         "element_size", "data_ptr", "untyped_storage", "is_floating_point", "is_complex",
         "get_device", "_make_subclass", "_op", "_version_cell", "is_shared", "is_pinned",
         "register_hook", "retain_grad", "requires_grad_", "backward", "_is_view", "as_subclass",
         "is_set_to", "is_inference", "dim_order", "storage", "_typed_storage"}
_DUNDERS = ("__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rpow__",
            "__rmod__", "__rmatmul__", "__rand__", "__ror__", "__rxor__", "__rlshift__",
            "__rrshift__", "__array__", "__float__", "__int__", "__index__", "__complex__")


def _routed(name, fn):
    def method(self, *args, **kwargs):
        return QTensor.__torch_function__(fn, (QTensor,), (self,) + args, kwargs)
    method.__name__ = method.__qualname__ = name
    return method


def _guard_plain_methods():
    own = vars(QTensor)
    every = {}
    for klass in reversed(Tensor.__mro__[:-1]):  # every Tensor method, mixins included
        every.update(vars(klass))
    for name, attr in list(every.items()):
        if name in own or name in _SAFE or not callable(attr) or name.startswith("_") and \
                not name.startswith("__") or isinstance(attr, (type, staticmethod, classmethod)):
            continue
        if name.startswith("__") and name not in _DUNDERS:
            continue
        setattr(QTensor, name, _routed(name, getattr(Tensor, name)))
    for name in _DUNDERS:
        if name not in own and hasattr(Tensor, name):
            setattr(QTensor, name, _routed(name, getattr(Tensor, name)))


_guard_plain_methods()
