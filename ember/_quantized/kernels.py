"""Quantized CPU kernels (layer L4): what a QTensor may run, and the int8 arithmetic of quantized layers.

Three kinds of kernel, all on per-tensor-quantized inputs unless stated:
- geometry (view, reshape, flatten, permute, indexing, clone ...) runs on the stored integers and keeps
  the quantizer;
- order-preserving or averaging ops (relu, hardtanh, max/avg pooling, hardswish, cat) run on the
  dequantized values and requantize with the input's (or the requested) qparams, which reproduces the
  integer result of torch's kernels (exactly for relu/max, within one step for averages);
- int8 GEMM and convolution (``linear``, ``conv``, ``linear_dynamic``) accumulate
  ``(x_q - x_zp) * (w_q - w_zp)`` exactly (float32 BLAS when every partial sum fits float32's 24-bit
  mantissa, float64 otherwise), then scale by ``x_scale * w_scale``, add the float bias and requantize.

Example:
    >>> import ember
    >>> q = ember.quantize_per_tensor(ember.tensor([-1.0, 2.0]), 0.5, 2, ember.quint8)
    >>> ember.relu(q).int_repr().tolist()
    [2, 6]
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dispatch import wrap
from .._primitives.pooling import pool_out_size
from .._tensor import Tensor
from ..nn import functional as F
from ..overrides import DisableTorchFunctionSubclass
from .tensor import (QTensor, _no_kernel, _quantize_array, dequantize_array, make_qtensor,
                     per_tensor_affine)
from .qparams import choose_qparams_dynamic

__all__ = ["add", "add_relu", "mul", "packed_weight", "PackedWeight", "requantize", "q_add", "q_mul", "q_cat", "q_linear", "q_conv", "q_linear_dynamic",
           "int_accumulate", "dynamic_quantize_array"]

_INT_OF = {D.qint8: D.int8, D.quint8: D.uint8, D.qint32: D.int32}
_GEOMETRY = ("view", "reshape", "flatten", "permute", "transpose", "t", "squeeze", "unsqueeze",
             "contiguous", "clone", "detach", "__getitem__", "select", "narrow", "expand", "view_as",
             "reshape_as", "unflatten", "movedim", "chunk", "split", "unbind", "detach_", "cpu", "to",
             "requires_grad_", "as_strided", "unfold", "tensor_split", "expand_as", "swapaxes",
             "swapdims", "moveaxis", "hsplit", "vsplit", "dsplit", "split_with_sizes", "mT", "T")
_PER_CHANNEL_OK = ("clone", "detach", "contiguous", "cpu", "detach_", "requires_grad_")


def _plain(q: QTensor) -> Tensor:
    """A plain integer Tensor over the same memory (the storage is shared, created on the root)."""
    q.untyped_storage()
    t = Tensor._make_subclass(Tensor, q)
    t._dtype = _INT_OF[q._dtype]
    return t


def _requalify(r, like: QTensor):
    if isinstance(r, (list, tuple)):
        return type(r)(_requalify(x, like) for x in r)
    if not isinstance(r, Tensor) or r.dtype is not _INT_OF[like._dtype]:
        return r
    out = make_qtensor(r._data, like._dtype, like._q)
    out._base, out._storage, out._vc = r._base, r._storage, r._vc
    return out


def _geometry(name):
    def kernel(func, self, *args, **kwargs):
        if not isinstance(self, QTensor):
            raise _no_kernel(name)
        if self._q[3] is not None and name not in _PER_CHANNEL_OK:
            raise NotImplementedError(f"Could not run 'aten::{name.strip('_')}' with arguments from the "
                                      f"'QuantizedCPU' backend for a per-channel quantized tensor.")
        if name == "view" and any(isinstance(a, D.dtype) for a in list(args) + list(kwargs.values())):
            raise NotImplementedError("Could not run 'aten::view.dtype' with arguments from the "
                                      "'QuantizedCPU' backend.")
        if name == "to" and any(isinstance(a, D.dtype) and a is not self._dtype
                                for a in list(args) + list(kwargs.values())):
            raise RuntimeError("to(): converting a quantized tensor to another dtype is not supported; "
                               "call dequantize() first")
        if name == "to":
            return self
        with DisableTorchFunctionSubclass():
            r = func(_plain(self), *args, **kwargs)
        return _requalify(r, self)
    kernel.__name__ = name
    kernel.takes_func = True
    return kernel


def _per_tensor(q, op):
    if not isinstance(q, QTensor):
        raise RuntimeError(f"{op}: expected a quantized tensor, got {q.dtype}")
    if q._q[3] is not None:
        raise RuntimeError(f"{op}: only per-tensor quantized inputs are supported")
    return q._q[1], q._q[2]


def requantize(values: np.ndarray, scale: float, zero_point: int, dtype) -> QTensor:
    """Quantize float ``values`` (an array) to a QTensor with these per-tensor qparams."""
    ints = _quantize_array(np.asarray(values, np.float32), scale, zero_point, dtype)
    return make_qtensor(ints, dtype, (per_tensor_affine, float(scale), int(zero_point), None))


def _same_qparams(fn, name):
    """Run float ``fn`` on the dequantized input and requantize with the input's qparams."""
    def kernel(input, *args, **kwargs):
        scale, zp = _per_tensor(input, name)
        kwargs.pop("inplace", None)
        if kwargs.get("return_indices") or (name.startswith("max_pool") and len(args) > 5 and args[5]):
            raise _no_kernel(name + "_with_indices")
        y = fn(input.dequantize(), *args, **kwargs)
        out = requantize(y._data, scale, zp, input._dtype)
        return out
    kernel.__name__ = name
    return kernel


def _integer_domain(fn, name):
    """Ops that commute with the affine map (max pooling, relu-like clamps on the zero point run as
    ``fn`` on the stored integers held in float32, exact), keeping the input's qparams."""
    def kernel(input, *args, **kwargs):
        _per_tensor(input, name)
        kwargs.pop("inplace", None)
        if kwargs.get("return_indices") or (len(args) > 5 and args[5]):
            raise _no_kernel(name + "_with_indices")
        y = fn(wrap(input._data.astype(np.float32)), *args, **kwargs)._data
        return make_qtensor(y.astype(input._data.dtype), input._dtype, input._q)
    kernel.__name__ = name
    return kernel


def _tuple(v, nd):
    return tuple(int(e) for e in v) if isinstance(v, (tuple, list)) else (int(v),) * nd


def _integer_max_pool(fn, name, nd):
    """Max pooling straight on the stored integers (max commutes with the affine map, so this is
    exact and keeps the input's qparams): one ``np.maximum`` per kernel offset over strided slices,
    padding with the integer type's minimum. Unusual arguments go through float ``fn``, which also
    raises torch's errors for bad ones."""
    slow = _integer_domain(fn, name)

    def kernel(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
        _per_tensor(input, name)
        x = input._data
        try:
            k = _tuple(kernel_size, nd)
            s = _tuple(stride, nd) if stride not in (None, (), []) else k
            p, d = _tuple(padding, nd), _tuple(dilation, nd)
        except (TypeError, ValueError):
            k = None
        if (return_indices or k is None or x.ndim not in (nd + 1, nd + 2) or
                not all(len(t) == nd for t in (k, s, p, d)) or min(k + s + d) < 1 or
                any(2 * pi > ki for pi, ki in zip(p, k))):
            return slow(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
        sizes = x.shape[-nd:]
        outs = [pool_out_size(n, ki, si, pi, di, ceil_mode) for n, ki, si, pi, di in zip(sizes, k, s, p, d)]
        if min(outs) < 1:
            return slow(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
        extra = [max(0, (o - 1) * si + di * (ki - 1) + 1 - (n + 2 * pi))
                 for o, n, ki, si, pi, di in zip(outs, sizes, k, s, p, d)]
        if any(p) or any(extra):
            lead = [(0, 0)] * (x.ndim - nd)
            x = np.pad(x, lead + [(pi, pi + e) for pi, e in zip(p, extra)],
                       constant_values=np.iinfo(x.dtype).min)
        out = None
        for offs in np.ndindex(*k):
            v = x[(Ellipsis,) + tuple(slice(o * di, o * di + (n - 1) * si + 1, si)
                                      for o, di, n, si in zip(offs, d, outs, s))]
            out = v.copy() if out is None else np.maximum(out, v, out=out)
        return make_qtensor(out, input._dtype, input._q)
    kernel.__name__ = name
    return kernel


def _q_relu(input, inplace=False):
    _per_tensor(input, "relu")
    out = np.maximum(input._data, np.asarray(input._q[2]).astype(input._data.dtype))
    return make_qtensor(out, input._dtype, input._q)


def _relu_(input):
    r = QTensor.KERNELS["relu"](input)
    input._data[...] = r._data
    return input


def _dropout(input, p=0.5, training=True, inplace=False):
    if training and p > 0:
        raise NotImplementedError("Could not run 'aten::dropout' with arguments from the 'QuantizedCPU' "
                                  "backend in training mode")
    return input


def q_cat(tensors, dim: int = 0, scale=None, zero_point=None, *, out=None):
    """Concatenate quantized tensors, requantized to (``scale``, ``zero_point``) or the first's qparams."""
    tensors = list(tensors)
    if not all(isinstance(t, QTensor) for t in tensors):
        raise RuntimeError("cat: expected all tensors to be quantized (got a mix of quantized and "
                           "non-quantized tensors)")
    s0, z0 = _per_tensor(tensors[0], "cat")
    scale = s0 if scale is None else scale
    zero_point = z0 if zero_point is None else zero_point
    vals = np.concatenate([dequantize_array(t) for t in tensors], axis=dim)
    return requantize(vals, scale, zero_point, tensors[0]._dtype)


def _binary(a, b, scale, zero_point, op, relu=False):
    x = dequantize_array(a) if isinstance(a, QTensor) else np.float32(a)
    y = dequantize_array(b) if isinstance(b, QTensor) else np.float32(b)
    v = op(x, y)
    if relu:
        v = np.maximum(v, np.float32(0))
    return requantize(v, scale, zero_point, a._dtype)


def q_add(a, b, scale: float, zero_point: int, relu: bool = False) -> QTensor:
    """``quantized::add``: a + b requantized to (scale, zero_point); ``b`` may be a Python number."""
    return _binary(a, b, scale, zero_point, np.add, relu)


def q_mul(a, b, scale: float, zero_point: int, relu: bool = False) -> QTensor:
    """``quantized::mul``: a * b requantized to (scale, zero_point)."""
    return _binary(a, b, scale, zero_point, np.multiply, relu)


def _num(v, kind):
    return kind(v.item()) if isinstance(v, Tensor) else kind(v)


def add(qa, qb, scale, zero_point) -> QTensor:
    """torch.ops.quantized.add: ``qa + qb`` (``qb`` may be a number) requantized to (scale, zero_point)."""
    return q_add(qa, qb, _num(scale, float), _num(zero_point, int))


def add_relu(qa, qb, scale, zero_point) -> QTensor:
    """torch.ops.quantized.add_relu."""
    return q_add(qa, qb, _num(scale, float), _num(zero_point, int), relu=True)


def mul(qa, qb, scale, zero_point) -> QTensor:
    """torch.ops.quantized.mul: ``qa * qb`` requantized to (scale, zero_point)."""
    return q_mul(qa, qb, _num(scale, float), _num(zero_point, int))


# ------------------------------------------------------------------------------ int8 GEMM / conv
def _shifted(q: QTensor):
    """(stored ints - zero point) as an int32 array, and its largest magnitude."""
    scheme, scale, zp, axis = q._q
    ints = q._data.astype(np.int32)
    if axis is None:
        ints -= zp
    else:
        shape = [1] * ints.ndim
        shape[axis] = -1
        ints -= np.asarray(zp, np.int32).reshape(shape)
    return ints


def _float_for(k: int, amax: int, bmax: int):
    """float32 when every partial sum of k products is an integer below 2**24 (exact), else float64."""
    return np.float32 if k * amax * bmax < 2 ** 24 else np.float64


class PackedWeight:
    """A quantized weight (M, K) prepared for GEMM once: ``(w - w_zp)^T`` as float32 (float64 made on
    first need), its largest magnitude and the per-output scale row. Cached on the weight tensor."""

    __slots__ = ("t32", "t64", "absmax", "scale", "k", "ints", "small", "scale_row")

    def __init__(self, w: QTensor):
        wi = _shifted(w).reshape(w.shape[0], -1)
        self.ints = wi
        self.k = wi.shape[1]
        self.absmax = int(np.abs(wi).max()) if wi.size else 0
        self.t32 = np.ascontiguousarray(wi.T.astype(np.float32))
        self.t64 = None
        self.scale = _weight_scale(w, (1, -1))
        self.small = None  # the narrow-int weight and scale row of the small-batch kernel, on need

    def matmul(self, a: np.ndarray, amax: int) -> np.ndarray:
        """Exact ``a @ (w - w_zp)^T`` for float-held integers ``a`` (N, K) with ``|a| <= amax``."""
        if self.k * amax * self.absmax < 2 ** 24:
            return np.matmul(a.astype(np.float32, copy=False), self.t32)
        if self.t64 is None:
            self.t64 = np.ascontiguousarray(self.ints.T.astype(np.float64))
        return np.matmul(a.astype(np.float64), self.t64)


    def dynamic_linear(self, a: np.ndarray, reduce_range: bool, bias, relu: bool = False):
        """Float32 ``dequant(quant(a) @ w.T) * scales (+ bias) (relu)`` for float32 ``a (N, K)``,
        with ``a`` quantized dynamically (``bias``: float64 (M,) array or None). Small batches run
        one Numba int8 kernel (reads the int8 weight: a quarter of float32's bytes), larger ones
        accumulate on float BLAS; both are exact, so they agree to the bit."""
        n = a.shape[0]
        if n <= SMALL_BATCH and self.k < 33000 and a.dtype == np.float32:
            if self.small is None:
                from ._int8_kernels import dynamic_linear
                narrow = np.int8 if self.absmax <= 127 else np.int16
                m = self.ints.shape[0]
                self.small = (dynamic_linear, np.ascontiguousarray(self.ints, narrow),
                              np.ascontiguousarray(np.broadcast_to(self.scale, (1, m))[0], np.float64))
            kern, wi, srow = self.small
            out = np.empty((n, wi.shape[0]), np.float32)
            b = _NO_BIAS if bias is None else bias
            kern(np.ascontiguousarray(a), wi, srow, b, bias is not None, relu,
                 127 if reduce_range else 255, out)
            return out
        ai, sx, amax = dynamic_quantize_array(a, reduce_range)
        v = _epilogue(self.matmul(ai, amax), np.float64(sx) * self.scale, bias, relu)
        return v.astype(np.float32)


SMALL_BATCH = 4  # rows up to which the int8 kernel beats float BLAS (bench/quantization.py)
_NO_BIAS = np.zeros(0, np.float64)


def _epilogue(acc, scale_row, bias, relu):
    v = acc * scale_row
    if bias is not None:
        v += bias
    if relu:
        np.maximum(v, 0, out=v)
    return v


def packed_weight(w: QTensor) -> PackedWeight:
    p = w.__dict__.get("_packed")
    if p is None:
        p = w.__dict__["_packed"] = PackedWeight(w)
    return p


def int_accumulate(a_int: np.ndarray, w_int: np.ndarray, w_absmax: int) -> np.ndarray:
    """Exact int32-style ``a_int @ w_int.T`` (a: (N, K), w: (M, K)) through float BLAS."""
    amax = int(np.abs(a_int).max()) if a_int.size else 0
    ft = _float_for(a_int.shape[-1], amax, w_absmax)
    return np.matmul(a_int.astype(ft), w_int.astype(ft).T)


def _weight_scale(w: QTensor, out_features_axis_shape):
    scheme, scale, zp, axis = w._q
    if axis is None:
        return np.float64(scale)
    return np.asarray(scale, np.float64).reshape(out_features_axis_shape)


def q_linear(x: QTensor, w: QTensor, bias, scale: float, zero_point: int, relu: bool = False):
    """``quantized::linear``: x (…, K) quint8, w (M, K) qint8 -> (…, M) quint8 at (scale, zero_point)."""
    sx, zx = _per_tensor(x, "quantized::linear")
    p = packed_weight(w)
    a = x._data.reshape(-1, x.shape[-1]).astype(np.float32)
    a -= np.float32(zx)
    acc = p.matmul(a, max(zx, 255 - zx) if x._dtype is D.quint8 else 128 + abs(zx))
    v = _epilogue(acc, sx * p.scale, None if bias is None else bias._data, relu)
    v = v.astype(np.float32).reshape(*x.shape[:-1], w.shape[0])
    return requantize(v, scale, zero_point, x._dtype)


def dynamic_quantize_array(a: np.ndarray, reduce_range: bool) -> tuple:
    """(float32-held ``q - zero_point`` integers, scale, their largest magnitude) of a float
    activation quantized to quint8 with qparams from its own range (torch's dynamic rule)."""
    hi = 127 if reduce_range else 255
    mn, mx = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
    scale, zp = choose_qparams_dynamic(mn, mx, 0, hi)
    inv = np.float64(np.float32(1) / np.float32(scale))
    v = (a.astype(np.float64) * inv + zp).astype(np.float32)  # one rounding, as the fused multiply-add
    np.rint(v, out=v)
    np.clip(v, 0, 255, out=v)
    v -= np.float32(zp)
    return v, scale, max(zp, 255 - zp)


def q_linear_dynamic(x, w: QTensor, bias, reduce_range: bool = True, relu: bool = False):
    """``quantized::linear_dynamic``: float x (…, K), int8 w (M, K) -> float (…, M)."""
    a = x._data if isinstance(x, Tensor) else np.asarray(x, np.float32)
    b = None if bias is None else bias._data.astype(np.float64)
    v = packed_weight(w).dynamic_linear(a.reshape(-1, a.shape[-1]), reduce_range, b, relu)
    return wrap(v.reshape(*a.shape[:-1], w.shape[0]))


def q_conv(x: QTensor, w: QTensor, bias, stride, padding, dilation, groups: int, scale: float,
           zero_point: int, relu: bool = False):
    """``quantized::conv{1,2}d``: exact integer convolution through ember's float conv, then requantize."""
    sx, zx = _per_tensor(x, "quantized::conv")
    p = packed_weight(w)
    bound = max(zx, 255 - zx) if x._dtype is D.quint8 else 128 + abs(zx)
    ft = _float_for(p.k, bound, p.absmax)
    xf = x._data.astype(ft)
    xf -= ft(zx)
    wf = w.__dict__.get(("_conv", ft))
    if wf is None:  # the shifted weight in conv layout, made once per weight and float type
        wf = w.__dict__[("_conv", ft)] = p.ints.reshape(w.shape).astype(ft)
    conv = F.conv2d if x.ndim == 4 else F.conv1d
    # zero padding of (x - zx) is padding x with its zero point, as the quantized kernel does
    acc = conv(wrap(xf), wrap(wf), None, stride, padding, dilation, groups)._data
    nd = x.ndim
    # float32 epilogue: acc holds exact integers; one float32 rounding stays far inside a step
    shape = (1, -1) + (1,) * (nd - 2)
    v = acc.astype(np.float32, copy=False)
    v *= (sx * _weight_scale(w, shape)).astype(np.float32)
    if bias is not None:
        v += bias._data.astype(np.float32).reshape(shape)
    if relu:
        np.maximum(v, 0, out=v)
    return requantize(v, scale, zero_point, x._dtype)


# ------------------------------------------------------------------------------ torch.* functions
def int_repr(input):
    """torch.int_repr: the stored integers of a quantized tensor."""
    return input.int_repr()


def q_scale(input):
    return input.q_scale()


def q_zero_point(input):
    return input.q_zero_point()


def q_per_channel_scales(input):
    return input.q_per_channel_scales()


def q_per_channel_zero_points(input):
    return input.q_per_channel_zero_points()


def q_per_channel_axis(input):
    return input.q_per_channel_axis()


def quantized_max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return QTensor.KERNELS["max_pool1d"](input, kernel_size, stride or None, padding, dilation,
                                         ceil_mode)


def quantized_max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return QTensor.KERNELS["max_pool2d"](input, kernel_size, stride or None, padding, dilation,
                                         ceil_mode)


def quantized_batch_norm(input, weight, bias, mean, var, eps: float, output_scale: float,
                         output_zero_point: int):
    """Inference batch norm of a quantized (N, C, ...) tensor, requantized to the output qparams."""
    _per_tensor(input, "quantized_batch_norm")
    y = F.batch_norm(input.dequantize(), mean, var, weight, bias, False, 0.0, eps)
    return requantize(y._data, output_scale, output_zero_point, input._dtype)


PUBLIC = ("int_repr", "q_scale", "q_zero_point", "q_per_channel_scales", "q_per_channel_zero_points",
          "q_per_channel_axis", "quantized_max_pool1d", "quantized_max_pool2d", "quantized_batch_norm")


def _register():
    k = QTensor.KERNELS
    for name in _GEOMETRY:
        k[name] = _geometry(name)
    for name, fn, nd in (("max_pool2d", F.max_pool2d, 2), ("max_pool1d", F.max_pool1d, 1)):
        k[name] = _integer_max_pool(fn, name, nd)
    k["relu"] = _q_relu
    for name, fn in (("relu6", F.relu6), ("hardtanh", F.hardtanh),
                     ("adaptive_avg_pool2d", F.adaptive_avg_pool2d), ("avg_pool2d", F.avg_pool2d),
                     ("leaky_relu", F.leaky_relu),
                     ("interpolate", F.interpolate), ("mean", Tensor.mean)):
        k[name] = _same_qparams(fn, name)
    k["relu_"] = _relu_
    k["dropout"] = _dropout
    k["cat"] = k["concat"] = k["concatenate"] = q_cat
    k["dequantize"] = lambda t: t.dequantize()
    k["__repr__"] = QTensor.__repr__


_register()
