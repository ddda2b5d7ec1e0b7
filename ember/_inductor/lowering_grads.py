"""Lowering rules for gradient and pooling ops (layer L7): registered into ``lowering.LOWERINGS``.

* ``native_layer_norm_backward`` (aten and ember's primitive): one row kernel for the input
  gradient and NumPy column sums for the weight and bias gradients;
* ``slice_backward`` and sums of them over disjoint slices (``qkv.split``'s gradient): one buffer
  written slice by slice;
* ``max_pool2d_with_indices`` and ember's ``max_pool_backward``: the eager ops' kernels as externs,
  the forward specialised to its window where it can be (``codegen.templates``).

Example:
    >>> import ember
    >>> from ember._functorch.aot_autograd import aot_function
    >>> from .compile_fx import compile_fx_inner
    >>> x = ember.randn(2, 3, 8, requires_grad=True)
    >>> f = aot_function(lambda x: ember.nn.functional.layer_norm(x, (8,)), compile_fx_inner)
    >>> f(x).sum().backward()
    >>> x.grad.shape
    torch.Size([2, 3, 8])
"""
from __future__ import annotations

import numpy as np

from .._primitives.pooling import max_pool_backward as eager_max_pool_backward
from . import codecache
from .codegen import templates
from .ir import Buffer
from .lowering import LOWERINGS, Unsupported, _float, register_lowering

__all__ = []


@register_lowering("aten.native_layer_norm_backward.default")
def _layer_norm_backward(L, a):
    """grad_input = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) with gw = g * w and
    xhat = (x - mean) * rstd (one row kernel); grad_weight = sum(g * xhat), grad_bias = sum(g)
    over the leading dims (NumPy reductions)."""
    g, x, mean, rstd, w, b = (a["grad_out"], a["input"], a["mean"], a["rstd"], a["weight"],
                              a["bias"])
    k = len(a["normalized_shape"])
    mask = list(a["output_mask"])
    if not all(isinstance(t, Buffer) for t in (g, x, mean, rstd)) or x.dtype.kind != "f" \
            or k == 0 or k >= len(x.shape) or g.shape != x.shape or g.dtype != x.dtype:
        raise Unsupported
    dt, shape = x.dtype, x.shape
    stat = shape[:len(shape) - k] + (1,) * k
    if mean.shape != stat or rstd.shape != stat or mean.dtype != dt or rstd.dtype != dt:
        raise Unsupported
    for t in (w, b):
        if t is not None and (not isinstance(t, Buffer) or t.dtype != dt):
            raise Unsupported
    xhat = L.pointwise("(({0} - {1}) * {2})", [x, mean, rstd], shape=shape, dtype=dt)
    gw = g if w is None else L.pointwise("({0} * {1})", [g, w], shape=shape, dtype=dt)
    m1 = L.reduction("mean", gw, k, True)
    gwx = L.pointwise("({0} * {1})", [gw, xhat], shape=shape, dtype=dt)
    m2 = L.reduction("mean", gwx, k, True)
    gi = L.pointwise("({0} * ({1} - {2} - {3} * {4}))", [rstd, gw, m1, xhat, m2],
                     shape=shape, dtype=dt) if mask[0] else None
    lead = tuple(range(len(shape) - k))
    gwt = gb = None
    if mask[1] and w is not None:
        gx = L.pointwise("({0} * {1})", [g, xhat], shape=shape, dtype=dt)
        gwt = L.extern(None, [gx], code=f"np.add.reduce({{0}}, axis={lead!r})",
                       shape=shape[len(shape) - k:], dtype=dt)
    if mask[2] and b is not None:
        gb = L.extern(None, [g], code=f"np.add.reduce({{0}}, axis={lead!r})",
                      shape=shape[len(shape) - k:], dtype=dt)
    return (gi, gwt, gb)


@register_lowering("ember_prim.native_layer_norm_backward")
def _prim_layer_norm_backward(L, a):
    """ember's primitive form: (grad, input, mean, rstd, weight), all three gradients."""
    if a.get(4) is None:
        raise Unsupported  # no weight: the primitive returns empty weight/bias gradients
    return _layer_norm_backward(L, {"grad_out": a[0], "input": a[1], "mean": a[2], "rstd": a[3],
                                    "weight": a[4], "bias": a[4],
                                    "normalized_shape": a["normalized_shape"],
                                    "output_mask": [True, True, True]})


# ------------------------------------------------------------------------------ pooling
@register_lowering("aten.max_pool2d_with_indices.default")
def _max_pool2d(L, a):
    x = a["self"]
    k = list(a["kernel_size"])
    s = list(a["stride"]) or k
    p, d = list(a["padding"]), list(a["dilation"])
    k, s, p, d = (tuple([v[0]] * 2 if len(v) == 1 else v) for v in (k, s, p, d))
    if not _float(x) or len(x.shape) != 4 or not codecache.numba_available():
        raise Unsupported
    ceil = bool(a["ceil_mode"])

    def max_pool2d_with_indices(arr):
        return templates.max_pool2d(arr, k, s, p, d, ceil)
    buf = L.extern(max_pool2d_with_indices, [x])
    buf.fresh = True
    return buf


@register_lowering("ember_prim.max_pool_backward")
def _max_pool_backward(L, a):
    g, idx = a[0], a[1]
    shape, unique = tuple(a["input_shape"]), bool(a.get("unique", False))
    if not _float(g):
        raise Unsupported

    def max_pool_backward(grad, indices):
        return eager_max_pool_backward.kernel(grad, indices, input_shape=shape, unique=unique)
    buf = L.extern(max_pool_backward, [g, idx])
    buf.fresh = True
    return buf


# ------------------------------------------------------------------------------ slice_backward
# ``slice_backward`` (the gradient of a slice, e.g. of ``qkv.split``) is zeros with one slice
# filled. A sum of such buffers over disjoint slices of one shape (the split's three gradients)
# becomes one buffer written slice by slice (``np.empty`` when the slices cover it); the partial
# buffers are then unused and the wrapper drops them (``pure``).
def _scatter_call(shape, dtype, parts):
    """An extern writing ``parts`` ((dim, start, stop), one per input array) into one buffer."""
    dims = {d for d, _, _ in parts}
    covered = len(dims) == 1 and sorted((s, e) for _, s, e in parts)
    full = False
    if covered:
        d = next(iter(dims))
        edges = [0] + [e for _, e in covered]
        full = all(s == edges[i] for i, (s, _) in enumerate(covered)) and edges[-1] == shape[d]
    index = [(slice(None),) * d + (slice(s, e),) for d, s, e in parts]
    alloc = np.empty if full else np.zeros

    def slice_backward(*grads):
        out = alloc(shape, dtype)
        for ix, g in zip(index, grads):
            out[ix] = g
        return out
    return slice_backward


def _scatter_buffer(L, grads, parts, shape, dtype):
    buf = L.extern(_scatter_call(shape, dtype, parts), grads, shape=shape, dtype=dtype)
    buf.fresh = buf.pure = True
    buf.scatter = (grads, parts)
    return buf


@register_lowering("aten.slice_backward.default")
def _slice_backward(L, a):
    g = a["grad_output"]
    shape = tuple(int(v) for v in a["input_sizes"])
    if not isinstance(g, Buffer) or g.dtype is None or not shape:
        raise Unsupported
    d = a["dim"] % len(shape)
    start, stop, step = slice(a["start"], a["end"], a["step"]).indices(shape[d])
    if step != 1 or stop <= start:
        raise Unsupported
    return _scatter_buffer(L, [g], [(d, start, stop)], shape, g.dtype)


def _merge_scatters(L, a):
    x, y = a["self"], a["other"]
    if a.get("alpha", 1) != 1 or not (hasattr(x, "scatter") and hasattr(y, "scatter")) \
            or x.shape != y.shape or x.dtype != y.dtype or x.shape != L.shape():
        return None
    parts = x.scatter[1] + y.scatter[1]
    if len({d for d, _, _ in parts}) != 1:
        return None
    spans = sorted((s, e) for _, s, e in parts)
    if any(spans[i][1] > spans[i + 1][0] for i in range(len(spans) - 1)):
        return None  # overlapping slices add up: keep the pointwise sum
    return _scatter_buffer(L, x.scatter[0] + y.scatter[0], parts, x.shape, x.dtype)


_plain_add = LOWERINGS["aten.add.Tensor"]


@register_lowering("aten.add.Tensor", "aten.add.Scalar")
def _add(L, a):
    merged = _merge_scatters(L, a)
    return merged if merged is not None else _plain_add(L, a)
