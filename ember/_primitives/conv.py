"""Convolution primitives (layer L1): strided windows + one matmul per group, N spatial dims.

    convolution          x (N, C, *S), weight, bias -> (N, O, *S'); ``transposed=True`` is the
                         adjoint in x (conv_transpose), computed as matmul + col2im
    convolution_weight   the weight gradient of a convolution: windows of x times the output grad
    im2col / col2im      ``F.unfold`` / ``F.fold`` (each the other's derivative)

conv's input gradient is a transposed conv and the transposed conv's input gradient is a conv, so
gradients of every order stay inside these primitives. Public wrappers (``nn.functional``) handle
unbatched inputs, string/asymmetric padding and validation (``check_conv`` raises torch's messages).
"""
from __future__ import annotations

import numpy as np

from . import _conv_kernels as K
from ._registry import SlowPath, TensorMeta, primitive

__all__ = ["convolution", "convolution_weight", "im2col", "col2im", "conv_out_size",
           "convt_out_size", "check_conv", "windows", "pad_zeros"]

_as_strided = np.lib.stride_tricks.as_strided


def conv_out_size(size, k, s, p, d) -> int:
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def convt_out_size(size, k, s, p, d, op) -> int:
    return (size - 1) * s - 2 * p + d * (k - 1) + 1 + op


def pad_zeros(x, padding, value=0):
    """``x`` (N, C, *S) with ``padding[i]`` elements of ``value`` on both sides of spatial dim i."""
    if not any(padding):
        return x
    shape = x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding))
    out = np.full(shape, value, x.dtype) if value else np.zeros(shape, x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(p, p + s) for s, p in zip(x.shape[2:], padding))] = x
    return out


def windows(xp, k, stride, dilation, out):
    """Read-only view (N, C, *k, *out) of the padded input: element ``[n, c, *j, *i]`` is
    ``xp[n, c, *(i * stride + j * dilation)]``."""
    st = xp.strides
    nd = len(k)
    return _as_strided(xp, xp.shape[:2] + tuple(k) + tuple(out),
                       st[:2] + tuple(st[2 + i] * dilation[i] for i in range(nd))
                       + tuple(st[2 + i] * stride[i] for i in range(nd)), writeable=False)


def _cols(x, k, stride, padding, dilation, out):
    """im2col: contiguous (N, C * prod(k), prod(out))."""
    w = windows(pad_zeros(x, padding), k, stride, dilation, out)
    n, c = x.shape[:2]
    return np.ascontiguousarray(w).reshape(n, c * int(np.prod(k)), int(np.prod(out)))  # -1 fails on n = 0


def _col2im(cols, channels, k, stride, padding, dilation, size, out_padding=None, insz=None):
    """The adjoint of ``_cols``: add each window column back at its place; ``cols`` is
    (N, channels * prod(k), prod(in)) and the result (N, channels, *size). ``insz`` (the window
    grid) defaults to what ``size`` gives; a transposed conv passes its input's (output_padding
    may make ``size`` hold more windows than were computed)."""
    n = cols.shape[0]
    nd = len(k)
    if insz is None:
        insz = _in_from_cols(size, k, stride, padding, dilation)
    c = cols.reshape((n, channels) + tuple(k) + insz)
    canvas = np.zeros((n, channels) + tuple(s + 2 * p for s, p in zip(size, padding)), cols.dtype)
    # one strided add per kernel offset: positions within one offset never collide
    for j in np.ndindex(*k):
        sl = tuple(slice(j[i] * dilation[i], j[i] * dilation[i] + (insz[i] - 1) * stride[i] + 1,
                         stride[i]) for i in range(nd))
        canvas[(slice(None), slice(None)) + sl] += c[(slice(None), slice(None)) + j]
    if any(padding):
        canvas = canvas[(slice(None), slice(None)) + tuple(slice(p, p + s) for s, p in
                                                             zip(size, padding))]
    return canvas


def _in_from_cols(size, k, stride, padding, dilation):
    return tuple(conv_out_size(size[i], k[i], stride[i], padding[i], dilation[i])
                 for i in range(len(k)))


# ------------------------------------------------------------------------------ checks
def _t(v):
    return "(" + " x ".join(str(s) for s in v) + ")"


def check_conv(x_shape, w_shape, b_shape, *, stride, padding, dilation, groups, transposed,
               output_padding):
    """Raise torch's error for bad conv arguments; return the output shape. Shapes are batched."""
    nd = len(x_shape) - 2
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if len(w_shape) != nd + 2:
        raise RuntimeError(f"weight should have at least three dimensions" if len(w_shape) < 3 else
                           f"Expected {nd + 2}-dimensional input for {nd + 2}-dimensional weight "
                           f"{list(w_shape)}, but got {len(x_shape)}-dimensional input of size "
                           f"{list(x_shape)} instead")
    ws = list(w_shape)
    if not transposed:
        if w_shape[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                               f"dimension 0, but got weight of size [{ws}] instead")
        if x_shape[1] != w_shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input"
                               f"{list(x_shape)} to have {w_shape[1] * groups} channels, but got "
                               f"{x_shape[1]} channels instead")
        out_c = w_shape[0]
    else:
        if x_shape[1] != w_shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input"
                               f"{list(x_shape)} to have {w_shape[0]} channels, but got "
                               f"{x_shape[1]} channels instead")
        if w_shape[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                               f"dimension 0, but got weight of size [{ws}] instead")
        out_c = w_shape[1] * groups
    if b_shape is not None and (len(b_shape) != 1 or b_shape[0] != out_c):
        raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with "
                           f"{out_c} elements, but got bias of size {list(b_shape)} instead")
    k = w_shape[2:]
    if not transposed:
        padded = tuple(x_shape[2 + i] + 2 * padding[i] for i in range(nd))
        eff = tuple(dilation[i] * (k[i] - 1) + 1 for i in range(nd))
        if any(e > p for e, p in zip(eff, padded)):
            raise RuntimeError(f"Calculated padded input size per channel: {_t(padded)}. Kernel size: "
                               f"{_t(eff)}. Kernel size can't be greater than actual input size")
        out = tuple(conv_out_size(x_shape[2 + i], k[i], stride[i], padding[i], dilation[i])
                    for i in range(nd))
    else:
        out = tuple(convt_out_size(x_shape[2 + i], k[i], stride[i], padding[i], dilation[i],
                                   output_padding[i]) for i in range(nd))
        if any(o <= 0 for o in out):
            raise RuntimeError(f"Given input size per channel: {_t(x_shape[2:])}. Calculated output "
                               f"size per channel: {_t(out)}. Output size is too small")
    return (x_shape[0], out_c) + out


# ------------------------------------------------------------------------------ convolution
def _depthwise(groups, weight_shape, *arrays) -> bool:
    """A depthwise 2-d case the Numba loops take: groups > 1 with one channel per group on the
    weight's dim 1, all arrays float32 or all float64."""
    dt = arrays[0].dtype
    return (len(weight_shape) == 4 and groups > 1 and weight_shape[1] == 1 and dt in _NUMBA_DTYPES
            and all(a is None or a.dtype == dt for a in arrays))


_NUMBA_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _c(a):
    return np.ascontiguousarray(a)


@primitive("convolution", node_name="ConvolutionBackward0")
def convolution(x, w, b, *, stride, padding, dilation, groups=1, transposed=False,
                output_padding=None):
    nd = x.ndim - 2
    k = w.shape[2:]
    g = groups
    if not transposed:
        out = _in_from_cols(x.shape[2:], k, stride, padding, dilation)
        if min(out, default=1) <= 0:
            raise SlowPath
        if _depthwise(g, w.shape, x, w, b):
            from ._nn_kernels import depthwise_forward
            res = np.empty(x.shape[:1] + w.shape[:1] + out, x.dtype)
            depthwise_forward(_c(x), _c(w), _c(b) if b is not None else np.empty(0, x.dtype),
                              *stride, *padding, *dilation, res)
            return res
        if g == 1:
            return K.conv_forward(x, w, b, stride, padding, dilation)
        o, cg = w.shape[0] // g, x.shape[1] // g
        res = np.empty(x.shape[:1] + w.shape[:1] + out, x.dtype)
        for i in range(g):
            K.conv_forward(x[:, i * cg:(i + 1) * cg], w[i * o:(i + 1) * o],
                           None if b is None else b[i * o:(i + 1) * o], stride, padding, dilation,
                           out=res[:, i * o:(i + 1) * o], cache=False)
        return res
    op = output_padding or (0,) * nd
    size = tuple(convt_out_size(x.shape[2 + i], k[i], stride[i], padding[i], dilation[i], op[i])
                 for i in range(nd))
    if _depthwise(g, w.shape, x, w):
        from ._nn_kernels import depthwise_transpose
        # transposed weight (C*m, 1, kh, kw) read as a forward depthwise weight of C groups
        res = np.empty(x.shape[:1] + (g,) + size, x.dtype)
        depthwise_transpose(_c(x), _c(w), *stride, *padding, *dilation, res)
    elif g == 1:
        res = K.conv_transpose(x, w, stride, padding, dilation, size)
    else:
        cin, og = x.shape[1] // g, w.shape[1]
        res = np.empty(x.shape[:1] + (g * og,) + size, x.dtype)
        for i in range(g):
            K.conv_transpose(x[:, i * cin:(i + 1) * cin], w[i * cin:(i + 1) * cin], stride, padding,
                             dilation, size, out=res[:, i * og:(i + 1) * og])
    if b is not None:
        res += b.reshape((-1,) + (1,) * nd)
    return res


@convolution.meta
def _(x, w, b, *, stride, padding, dilation, groups=1, transposed=False, output_padding=None):
    nd = x.dim() - 2
    shape = check_conv(tuple(x.shape), tuple(w.shape), None if b is None else tuple(b.shape),
                       stride=stride, padding=padding, dilation=dilation, groups=groups,
                       transposed=transposed, output_padding=output_padding or (0,) * nd)
    return TensorMeta(shape, x.dtype)


def _fit_padding(target, grad_size, k, stride, padding, dilation):
    """output_padding making a transposed conv of ``grad_size`` come out at ``target``."""
    return tuple(target[i] - convt_out_size(grad_size[i], k[i], stride[i], padding[i], dilation[i], 0)
                 for i in range(len(k)))


@convolution.derivative
def _(grad, x, w, *, stride, padding, dilation, groups, transposed, output_padding,
      needs_input_grad):
    nd = x.dim() - 2
    k = tuple(w.shape[2:])
    gx = gw = gb = None
    common = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    if not transposed:
        if needs_input_grad[0]:
            op = _fit_padding(tuple(x.shape[2:]), tuple(grad.shape[2:]), k, stride, padding, dilation)
            gx = grad._op(convolution, w, None, transposed=True, output_padding=op, **common)
        if needs_input_grad[1]:
            gw = x._op(convolution_weight, grad, weight_size=tuple(w.shape), **common)
    else:
        if needs_input_grad[0]:
            gx = grad._op(convolution, w, None, transposed=False, **common)
            for i in range(nd):  # output_padding can leave room for windows x never fed
                if gx.shape[2 + i] != x.shape[2 + i]:
                    gx = gx.narrow(2 + i, 0, x.shape[2 + i])
        if needs_input_grad[1]:
            gw = grad._op(convolution_weight, x, weight_size=tuple(w.shape), **common)
    if needs_input_grad[2]:  # the batch first: contiguous slab adds (measured 1.5-4x faster)
        gb = grad.sum(0).sum(tuple(range(1, 1 + nd)))
    return gx, gw, gb


@primitive("convolution_weight", node_name="ConvolutionBackwardBackward0")
def convolution_weight(x, grad, *, weight_size, stride, padding, dilation, groups=1):
    """Weight gradient of ``convolution(x, w)`` given the output gradient ``grad``."""
    g = groups
    if _depthwise(g, weight_size, x, grad):
        from ._nn_kernels import depthwise_weight
        res = np.empty(weight_size, np.float64)
        depthwise_weight(_c(x), _c(grad), *stride, *padding, *dilation, res)
        return res.astype(x.dtype)
    if g == 1:
        return K.conv_weight(x, grad, tuple(weight_size), stride, padding, dilation)
    o, cg = weight_size[0] // g, x.shape[1] // g
    ws = (o,) + tuple(weight_size[1:])
    return np.concatenate([K.conv_weight(x[:, i * cg:(i + 1) * cg], grad[:, i * o:(i + 1) * o], ws,
                                         stride, padding, dilation) for i in range(g)])


@convolution_weight.meta
def _(x, grad, *, weight_size, stride, padding, dilation, groups=1):
    return TensorMeta(tuple(weight_size), x.dtype)


@convolution_weight.derivative
def _(gg, x, grad, *, weight_size, stride, padding, dilation, groups, needs_input_grad):
    # <convolution_weight(x, g), H> = <g, conv(x, H)>: linear in each argument
    common = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    k = tuple(weight_size[2:])
    gx = ggrad = None
    if needs_input_grad[0]:
        op = _fit_padding(tuple(x.shape[2:]), tuple(grad.shape[2:]), k, stride, padding, dilation)
        gx = grad._op(convolution, gg, None, transposed=True, output_padding=op, **common)
    if needs_input_grad[1]:
        ggrad = x._op(convolution, gg, None, transposed=False, **common)
    return gx, ggrad


# ------------------------------------------------------------------------------ unfold / fold
@primitive("im2col", node_name="Im2ColBackward0")
def im2col(x, *, kernel_size, dilation, padding, stride):
    out = _in_from_cols(x.shape[2:], kernel_size, stride, padding, dilation)
    if min(out) <= 0:
        raise ValueError("im2col")
    return _cols(x, kernel_size, stride, padding, dilation, out)


def _blocks_error(size, kernel_size, dilation, padding, stride, out):
    return RuntimeError(f"Given input with spatial size {tuple(size)}, kernel_size={tuple(kernel_size)}, "
                        f"dilation={tuple(dilation)}, padding={tuple(padding)}, calculated shape of the "
                        f"array of sliding blocks as {tuple(out)}, but its components must be at least "
                        f"one.")


@im2col.meta
def _(x, *, kernel_size, dilation, padding, stride):
    size = tuple(x.shape[2:])
    out = _in_from_cols(size, kernel_size, stride, padding, dilation)
    if min(out) <= 0:
        raise _blocks_error(size, kernel_size, dilation, padding, stride, out)
    return TensorMeta((x.shape[0], x.shape[1] * int(np.prod(kernel_size)), int(np.prod(out))), x.dtype)


@im2col.derivative
def _(grad, *, x_shape, kernel_size, dilation, padding, stride):
    return grad._op(col2im, output_size=tuple(x_shape[2:]), kernel_size=kernel_size,
                    dilation=dilation, padding=padding, stride=stride)


@primitive("col2im", node_name="Col2ImBackward0")
def col2im(cols, *, output_size, kernel_size, dilation, padding, stride):
    kk = int(np.prod(kernel_size))
    return _col2im(cols, cols.shape[1] // kk, tuple(kernel_size), stride, padding, dilation,
                   tuple(output_size))


@col2im.meta
def _(cols, *, output_size, kernel_size, dilation, padding, stride):
    kk = int(np.prod(kernel_size))
    out = _in_from_cols(tuple(output_size), kernel_size, stride, padding, dilation)
    if min(out) <= 0:
        raise _blocks_error(output_size, kernel_size, dilation, padding, stride, out)
    if cols.shape[1] % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={cols.shape[1]} and "
                           f"kernel_size={tuple(kernel_size)}")
    if cols.shape[2] != int(np.prod(out)):
        raise RuntimeError(f"Given output_size={tuple(output_size)}, kernel_size={tuple(kernel_size)}, "
                           f"dilation={tuple(dilation)}, padding={tuple(padding)}, stride="
                           f"{tuple(stride)}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {' * '.join(str(o) for o in out)} = "
                           f"{int(np.prod(out))}, but got input.size(2)={cols.shape[2]}.")
    return TensorMeta((cols.shape[0], cols.shape[1] // kk) + tuple(output_size), cols.dtype)


@col2im.derivative
def _(grad, *, kernel_size, dilation, padding, stride):
    return grad._op(im2col, kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
