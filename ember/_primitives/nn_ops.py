"""Neural-network primitives (layer L1) where a composite of ember ops is too slow.

softmax / log_softmax (stable: the max is subtracted first), their backward primitives, nll_loss and
its backward (a scatter), native_layer_norm and its backward, embedding and its dense backward.
Each backward primitive has its own derivative written in ember ops, so double backward works.
The composites these replace stay in the tests as references.
"""
from __future__ import annotations

import math

import numpy as np

from .._errors import dtype_title
from ._registry import SlowPath, TensorMeta, primitive

__all__ = ["cross_entropy", "cross_entropy_backward", "softmax", "softmax_backward", "log_softmax",
           "log_softmax_backward", "nll_loss",
           "nll_loss_backward", "native_layer_norm", "native_layer_norm_backward", "embedding",
           "embedding_backward"]

_addr = np.add.reduce
_maxr = np.maximum.reduce


def _same(a, *others, dim=None, **_):  # softmax-likes and their backward (grad, output)
    return TensorMeta(tuple(a.shape), a.dtype)


def _float_only(name, a):
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f'"{name}" not implemented for \'{_title(a.dtype)}\'')


def _title(dt):
    try:
        return dtype_title(dt)
    except KeyError:
        return dt.name


# ------------------------------------------------------------------------------ softmax
@primitive("_softmax", kind="other")
def softmax(a, *, dim):
    """``exp(a - max) / sum(exp(a - max))`` along ``dim``."""
    _float_only("softmax_lastdim_kernel_impl", a)
    if a.ndim == 0:
        return np.ones_like(a)
    if a.size == 0:
        return np.empty_like(a)
    e = np.exp(a - _maxr(a, axis=dim, keepdims=True))
    e /= _addr(e, axis=dim, keepdims=True)
    return e


softmax.meta(_same)


@softmax.derivative
def _(grad, out, *, dim):
    return grad._op(softmax_backward, out, dim=dim)


@primitive("_softmax_backward_data", kind="other")
def softmax_backward(grad, output, *, dim):
    """``out * (grad - sum(grad * output))`` along ``dim``."""
    if output.ndim == 0:
        return np.zeros_like(output)
    go = grad * output
    go -= output * _addr(go, axis=dim, keepdims=True)
    return go


softmax_backward.meta(_same)


@softmax_backward.derivative
def _(gg, grad, output, *, dim):
    # d/dgrad is the same map applied to gg; d/dout = gg (grad - s) - grad sum(gg out)
    s = (grad * output).sum(dim, keepdim=True)
    g_out = gg * (grad - s) - grad * (gg * output).sum(dim, keepdim=True)
    return gg._op(softmax_backward, output, dim=dim), g_out


# (N, C) rows up to this many elements run one Numba loop per row (``_ce_kernels.log_softmax_rows``)
# in log_softmax and in the fused cross_entropy alike, so the two give the same bits
ROWS_NUMBA_MAX = 4096
_ROW_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


_ROWS_KERNELS: list = []  # [module] or [None] once the first small row input asked for it


def _rows_kernels():
    """``_ce_kernels`` (imported on first use), or None when Numba cannot be imported."""
    if not _ROWS_KERNELS:
        try:
            from . import _ce_kernels as mod
        except ImportError:  # no Numba: the NumPy code below serves every size
            mod = None
        _ROWS_KERNELS.append(mod)
    return _ROWS_KERNELS[0]


def _small_rows(a, dim) -> bool:
    return a.ndim == 2 and (dim == 1 or dim == -1) and 0 < a.size <= ROWS_NUMBA_MAX and \
        a.dtype in _ROW_DTYPES and _rows_kernels() is not None


@primitive("_log_softmax", kind="other")
def log_softmax(a, *, dim):
    """``a - max - log(sum(exp(a - max)))`` along ``dim``."""
    _float_only("log_softmax_lastdim_kernel_impl", a)
    if a.ndim == 0:
        return np.zeros_like(a)
    if a.size == 0:
        return np.empty_like(a)
    if _small_rows(a, dim):
        out = np.empty(a.shape, a.dtype)
        _rows_kernels().log_softmax_rows(np.ascontiguousarray(a), out)
        return out
    s = a - _maxr(a, axis=dim, keepdims=True)
    s -= np.log(_addr(np.exp(s), axis=dim, keepdims=True))
    return s


log_softmax.meta(_same)


@log_softmax.derivative
def _(grad, out, *, dim):
    return grad._op(log_softmax_backward, out, dim=dim)


@primitive("_log_softmax_backward_data", kind="other")
def log_softmax_backward(grad, output, *, dim):
    """``grad - exp(out) * sum(grad)`` along ``dim``."""
    if output.ndim == 0:
        return np.zeros_like(output)
    return grad - np.exp(output) * _addr(grad, axis=dim, keepdims=True)


log_softmax_backward.meta(_same)


@log_softmax_backward.derivative
def _(gg, grad, output, *, dim):
    p = output.exp()
    g_grad = gg - (gg * p).sum(dim, keepdim=True)
    g_out = -gg * p * grad.sum(dim, keepdim=True)
    return g_grad, g_out


# ------------------------------------------------------------------------------ nll_loss
def _nll_index(target, c, ignore_index):
    """``(t, ignored)``: targets with ignored entries replaced by 0 (``ignored`` None when there are
    none); IndexError for a target out of ``[0, c)``."""
    if target.dtype != np.int64 and target.dtype != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_title(target.dtype)}")
    # one unsigned compare finds negatives and too-large values alike (the common fast path)
    if not target.size or _maxr(target.view(np.uint64) if target.dtype == np.int64 else target,
                                axis=None) < c:
        return target, (target == ignore_index if 0 <= ignore_index < c else None)
    ignored = target == ignore_index
    t = np.where(ignored, 0, target)
    bad = (t < 0) | (t >= c)
    if bad.any():
        raise IndexError(f"Target {t[bad].reshape(-1)[0]} is out of bounds.")
    return t, ignored


def _pick_index(shape, t):
    """An index tuple selecting ``x[n, t[n, ...], ...]`` from an input of ``shape``."""
    if len(shape) == 1:
        return (t,)
    if len(shape) == 2:
        return (np.arange(shape[0]), t)
    grids = np.ogrid[tuple(slice(0, s) for i, s in enumerate(shape) if i != 1)]
    return (grids[0], t) + tuple(grids[1:])


def _nll_pick(input, target, weight, ignore_index):
    """``(picked, w, index)``: input at each target class, the weight of each target (0 if ignored;
    None when all weights are 1) and the index that picked them."""
    c = input.shape[1 if input.ndim >= 2 else 0]
    t, ignored = _nll_index(target, c, ignore_index)
    index = _pick_index(input.shape, t)
    picked = input[index]
    if ignored is not None and not ignored.any():
        ignored = None
    if weight is not None:
        w = weight[t]
        if ignored is not None:
            w = np.where(ignored, 0, w)
    elif ignored is not None:
        w = (~ignored).astype(input.dtype)
    else:
        w = None
    return picked, w, index


def _nll_check(input, target, weight):
    """Cheap shape checks: on a mismatch a ValueError makes dispatch run the meta rule, which raises
    torch's error (NumPy would broadcast a mismatched target silently)."""
    if input.ndim >= 2:
        ok = target.ndim == input.ndim - 1 and target.shape[0] == input.shape[0] and \
            target.shape[1:] == input.shape[2:]
    else:
        ok = input.ndim == 1 and (target.ndim == 0 or target.shape == (1,))
    if not ok or (weight is not None and weight.size != input.shape[1 if input.ndim >= 2 else 0]):
        raise SlowPath("nll_loss: shape mismatch")


def _safe_div(num, den):
    if den == 0:  # every target ignored or weighted 0: torch gives nan (0/0), silently
        with np.errstate(invalid="ignore", divide="ignore"):
            return num / den
    return num / den


@primitive("nll_loss", kind="other")
def nll_loss(input, target, weight, *, reduction=1, ignore_index=-100):
    """Negative log-likelihood of class indices; ``reduction`` 0 none, 1 mean, 2 sum (torch's enum)."""
    _nll_check(input, target, weight)
    if input.ndim == 1 and target.ndim == 1:
        target = target.reshape(())
    picked, w, _ = _nll_pick(input, target, weight, ignore_index)
    if w is not None:
        picked = picked * w
    return _nll_reduce(picked, w, reduction, input.dtype)


def _nll_reduce(picked, w, reduction, dtype):
    """nll_loss from the (weighted) log-probabilities at the targets."""
    if reduction == 0:
        return -picked
    total = -_addr(picked, axis=None)
    if reduction == 1:
        total = _safe_div(total, picked.size if w is None else _addr(w, axis=None))
    return np.asarray(total, dtype)


@nll_loss.meta
def _(input, target, weight, *, reduction=1, ignore_index=-100):
    # torch's checks in its order: nll_loss_nd, then nll_loss (1-2D) or nll_loss2d (4D, and 3D/5D+
    # reshaped to it)
    nd, td = input.dim(), target.dim()
    ishape, tshape = list(input.shape), list(target.shape)
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    if nd != 1 and ishape[0] != (tshape[0] if td else 0):
        raise ValueError(f"Expected input batch_size ({ishape[0]}) to match target batch_size "
                         f"({tshape[0] if td else 0}).")
    c = ishape[1 if nd >= 2 else 0]
    if nd <= 2:
        if nd == 1 and td == 1 and tshape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{tshape[0]}")
        if td > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if weight is not None and (weight.dim() != 1 or weight.numel() != c):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no "
                               f"classes but got weight tensor of shape: {list(weight.shape)}")
        expect = tshape if nd == 2 else []
    else:
        expect = ishape[:1] + ishape[2:]
        if nd != 4 and tshape[1:] != ishape[2:]:
            raise RuntimeError(f"Expected target size {expect}, got {tshape}")
        if nd == 4 and td != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {td}")
        if weight is not None and weight.numel() != c:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        if nd == 4 and tshape != expect:
            raise RuntimeError(f"size mismatch (got input: {ishape} , target: {tshape}")
    return TensorMeta(tuple(expect) if reduction == 0 else (), input.dtype)


@nll_loss.derivative
def _(grad, target, weight, *, input_shape, reduction, ignore_index):
    return grad._op(nll_loss_backward, target, weight, shape=tuple(input_shape), reduction=reduction,
                    ignore_index=ignore_index), None, None


@primitive("nll_loss_backward", kind="other")
def nll_loss_backward(grad, target, weight, *, shape, reduction=1, ignore_index=-100):
    """Scatter ``-w * grad`` (divided by the total weight for 'mean') at each target class."""
    out = np.zeros(shape, grad.dtype)
    c = shape[1 if len(shape) >= 2 else 0]
    t, ignored = _nll_index(target, c, ignore_index)
    if ignored is not None and not ignored.any():
        ignored = None
    if weight is not None:
        w = weight[t].astype(grad.dtype, copy=False)
        if ignored is not None:
            w = np.where(ignored, 0, w)
    elif ignored is not None:
        w = (~ignored).astype(grad.dtype)
    else:
        w = None
    vals = -grad if w is None else -(w * grad)
    if reduction == 1:
        vals = _safe_div(vals, _addr(w, axis=None) if w is not None else grad.dtype.type(t.size))
    out[_pick_index(shape, t)] = vals
    return out


@nll_loss_backward.meta
def _(grad, target, weight, *, shape, reduction=1, ignore_index=-100):
    return TensorMeta(shape, grad.dtype)


@nll_loss_backward.derivative
def _(gg, target, weight, *, reduction, ignore_index):
    # nll_loss_backward is linear in grad; its adjoint is nll_loss itself
    return gg._op(nll_loss, target, weight, reduction=reduction, ignore_index=ignore_index), None, None


# ------------------------------------------------------------------------------ cross_entropy
# ``F.cross_entropy`` on (N, C) logits and class indices (no weight, no label smoothing) is one
# primitive in eager mode: one dispatch and one autograd node instead of two each (the overhead of
# the pair costs more than the arithmetic at classifier sizes). Kernel and backward run the
# log_softmax and nll_loss kernels themselves, so values are bitwise those of the composite
# (log_softmax + nll_loss), which stays the general path, the aten form and the reference.
_CE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@primitive("_cross_entropy", kind="other", num_outputs=2, differentiable_outputs=(0,),
           node_name="NllLossBackward0")
def cross_entropy(input, target, *, reduction=1, ignore_index=-100):
    """``(loss, log_softmax(input, 1))`` for float ``input (N, C)`` and int64 ``target (N,)``."""
    if input.ndim != 2 or target.ndim != 1 or input.dtype not in _CE_DTYPES:
        raise SlowPath
    c = input.shape[1]
    if _small_rows(input, 1) and target.dtype == np.int64 and target.shape[0] == input.shape[0] \
            and not 0 <= ignore_index < c:
        # one loop: log_softmax_rows and the pick (a target out of range, e.g. an ignored -100,
        # leaves it to the general code below)
        logp = np.empty(input.shape, input.dtype)
        picked = np.empty(input.shape[0], input.dtype)
        if _rows_kernels().cross_entropy_rows(np.ascontiguousarray(input), target, logp, picked) < 0:
            return _nll_reduce(picked, None, reduction, input.dtype), logp
    logp = log_softmax.kernel(input, dim=1)
    return nll_loss.kernel(logp, target, None, reduction=reduction, ignore_index=ignore_index), logp


@cross_entropy.meta
def _(input, target, *, reduction=1, ignore_index=-100):
    loss = nll_loss.meta_rule(input, target, None, reduction=reduction, ignore_index=ignore_index)
    return loss, TensorMeta(tuple(input.shape), input.dtype)


@cross_entropy.derivative
def _(grads, input, target, out1, *, reduction, ignore_index):
    return grads[0]._op(cross_entropy_backward, target, input, out1, reduction=reduction,
                        ignore_index=ignore_index), None


@primitive("_cross_entropy_backward", kind="other")
def cross_entropy_backward(grad, target, input, logp, *, reduction=1, ignore_index=-100):
    """``log_softmax_backward(nll_loss_backward(grad), logp)``: ``(softmax - onehot) * grad`` per row
    (divided by the kept rows for 'mean'; ignored rows 0). ``input`` is read only by the second
    derivative (``logp`` comes without history)."""
    # h - exp(logp) * rowsum(h) with h = -k at the target (k = grad, or grad / kept for 'mean'):
    # computed as exp(logp) * k, then - k at the target; IEEE negation and addition are exact and
    # commutative, so the values are bitwise the composite's
    n, c = logp.shape
    if reduction != 0 and 0 < n and target.dtype == np.int64 and not 0 <= ignore_index < c and \
            logp.dtype in _ROW_DTYPES and target.shape == (n,) and _rows_kernels() is not None:
        # no target can be ignored: one loop (the same float operations as below) unless a target
        # is out of range (left to the checks below)
        k = _safe_div(grad, grad.dtype.type(n)) if reduction == 1 else grad
        out = np.exp(logp)
        if _rows_kernels().cross_entropy_grad_rows(out, target, np.full(n, k, out.dtype)) < 0:
            return out
    t, ignored = _nll_index(target, c, ignore_index)
    if ignored is not None and not ignored.any():
        ignored = None
    elif ignored is not None and ignored.all():  # every row ignored: 0, as torch (no 0/0)
        return np.zeros(logp.shape, logp.dtype)
    if reduction == 1:
        k = _safe_div(grad, grad.dtype.type(n if ignored is None else n - np.count_nonzero(ignored)))
    else:
        k = grad if reduction == 2 else grad[:, None]
    out = np.exp(logp)
    out *= k
    rows = np.arange(n)
    out[rows, t] -= k if reduction != 0 else grad
    if ignored is not None:
        out[ignored] = 0
    return out


@cross_entropy_backward.meta
def _(grad, target, input, logp, *, reduction=1, ignore_index=-100):
    return TensorMeta(tuple(logp.shape), logp.dtype)


@cross_entropy_backward.derivative
def _(gg, grad, target, input, *, reduction, ignore_index):
    # chain the derivatives of h = nll_loss_backward(grad), logp = log_softmax(input) and
    # log_softmax_backward(h, logp)
    logp = input._op(log_softmax, dim=1)
    p = logp.exp()
    h = grad._op(nll_loss_backward, target, None, shape=tuple(input.shape), reduction=reduction,
                 ignore_index=ignore_index)
    g_h = gg - (gg * p).sum(1, keepdim=True)
    g_logp = -gg * p * h.sum(1, keepdim=True)
    g_grad = g_h._op(nll_loss, target, None, reduction=reduction, ignore_index=ignore_index)
    return g_grad, None, g_logp._op(log_softmax_backward, logp, dim=1), None


# ------------------------------------------------------------------------------ layer_norm
def _compute_dtype(dt, name):
    if dt.kind == "c" or dt.kind not in "fV":
        raise NotImplementedError(f'"{name}" not implemented for \'{_title(dt)}\'')
    # float16/bfloat16 compute in float32 and round once at the end
    return np.dtype(np.float32) if dt.itemsize < 4 else dt


def _rows(a, k, ct):
    """``a`` as a C-contiguous ``(m, n)`` array of ``ct``, normalised over its ``k`` trailing dims."""
    n = math.prod(a.shape[a.ndim - k:])
    return np.ascontiguousarray(a.reshape(-1, n) if n else a.reshape(math.prod(a.shape[:a.ndim - k]), 0),
                                dtype=ct)


def _vec(v, n, fill, ct):
    return np.full(n, fill, ct) if v is None else np.ascontiguousarray(v.reshape(n), dtype=ct)


@primitive("native_layer_norm", kind="other", num_outputs=3, differentiable_outputs=(0,))
def native_layer_norm(input, weight, bias, *, normalized_shape, eps=1e-5):
    """``((x - mean) * rstd) * weight + bias`` over the trailing dims; also returns mean and rstd."""
    from ._nn_kernels import layer_norm_forward
    k = len(normalized_shape)
    dt = input.dtype
    ct = _compute_dtype(dt, "LayerNormKernelImpl")
    x = _rows(input, k, ct)  # shape: (m, n)
    m, n = x.shape
    out, mu, rstd = np.empty((m, n), ct), np.empty(m, ct), np.empty(m, ct)
    # one fused pass per row (NumPy needs ~6 passes over memory and is ~3x slower)
    layer_norm_forward(x, _vec(weight, n, 1, ct), _vec(bias, n, 0, ct), float(eps), out, mu, rstd)
    if n == 0:
        rstd[:] = np.nan
    stat = input.shape[:input.ndim - k] + (1,) * k
    return (out.reshape(input.shape).astype(dt, copy=False), mu.reshape(stat).astype(dt, copy=False),
            rstd.reshape(stat).astype(dt, copy=False))


@native_layer_norm.meta
def _(input, weight, bias, *, normalized_shape, eps=1e-5):
    stat = tuple(input.shape[:input.dim() - len(normalized_shape)]) + (1,) * len(normalized_shape)
    return (TensorMeta(tuple(input.shape), input.dtype), TensorMeta(stat, input.dtype),
            TensorMeta(stat, input.dtype))


@native_layer_norm.derivative
def _(grads, input, weight, out1, out2, *, normalized_shape, needs_input_grad):
    gi, gw, gb = grads[0]._op(native_layer_norm_backward, input, out1, out2, weight,
                              normalized_shape=normalized_shape)
    if weight is None and needs_input_grad[2]:  # the backward kernel sums grad only with a weight
        gb = grads[0].sum_to_size(tuple(normalized_shape))
    return gi, (gw if weight is not None else None), (gb if needs_input_grad[2] else None)


@primitive("native_layer_norm_backward", kind="other", num_outputs=3)
def native_layer_norm_backward(grad, input, mean, rstd, weight, *, normalized_shape):
    """Gradients of layer norm for input, weight and bias."""
    from ._nn_kernels import layer_norm_backward
    k = len(normalized_shape)
    dt = input.dtype
    ct = _compute_dtype(dt, "LayerNormBackwardKernelImpl")
    x, g = _rows(input, k, ct), _rows(grad, k, ct)  # shape: (m, n)
    m, n = x.shape
    gi, gw, gb = np.empty((m, n), ct), np.zeros(n), np.zeros(n)
    layer_norm_backward(g, x, np.ascontiguousarray(mean.reshape(m), dtype=ct),
                        np.ascontiguousarray(rstd.reshape(m), dtype=ct), _vec(weight, n, 1, ct),
                        gi, gw, gb)
    gi = gi.reshape(input.shape).astype(dt, copy=False)
    if weight is None:
        return gi, np.zeros(0, dt), np.zeros(0, dt)
    return gi, gw.reshape(weight.shape).astype(dt), gb.reshape(weight.shape).astype(dt)


@native_layer_norm_backward.meta
def _(grad, input, mean, rstd, weight, *, normalized_shape):
    ws = tuple(weight.shape) if weight is not None else (0,)
    return (TensorMeta(tuple(input.shape), input.dtype), TensorMeta(ws, input.dtype),
            TensorMeta(ws, input.dtype))


@native_layer_norm_backward.derivative
def _(ggs, grad, input, mean, rstd, weight, outs, *, normalized_shape):
    # hand-derived second derivative: A, Bw, Bb are the cotangents of (grad_input, grad_w, grad_b);
    # xhat and rstd are functions of input, so their dependence is folded into the input gradient
    A, Bw, Bb = ggs
    nd = len(normalized_shape)
    axes = tuple(range(-nd, 0))
    xhat = (input - mean) * rstd
    g = grad * weight if weight is not None else grad

    def mean_(t):
        return t.mean(axes, keepdim=True)

    # gradient through the linear map grad -> grad_input
    dg = rstd * (A - mean_(A) - xhat * mean_(A * xhat))
    g_grad = dg * weight if weight is not None else dg
    if weight is not None:
        g_grad = g_grad + Bw * xhat + Bb
    m = mean_(g * xhat)
    v = -rstd * (m * A + mean_(A * xhat) * g)
    if weight is not None:
        v = v + Bw * grad
    g_input = rstd * (v - mean_(v) - xhat * mean_(v * xhat)) - rstd * xhat * mean_(A * outs[0])
    g_weight = None
    if weight is not None:
        g_weight = (grad * dg).sum_to_size(tuple(weight.shape))
    return g_grad, g_input, None, None, g_weight


# ------------------------------------------------------------------------------ embedding
@primitive("embedding", kind="other")
def embedding(weight, indices, *, padding_idx=-1, scale_grad_by_freq=False):
    """Rows of ``weight`` picked by ``indices``: ``(*) -> (*, embedding_dim)``."""
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")  # torch's message; -1 does not wrap around
    return weight.take(indices, axis=0)


@embedding.meta
def _(weight, indices, *, padding_idx=-1, scale_grad_by_freq=False):
    return TensorMeta(tuple(indices.shape) + tuple(weight.shape[1:]), weight.dtype)


@embedding.derivative
def _(grad, indices, *, weight_shape, padding_idx, scale_grad_by_freq):
    return grad._op(embedding_backward, indices, num_weights=weight_shape[0],
                    padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq), None


@primitive("embedding_dense_backward", kind="other")
def embedding_backward(grad, indices, *, num_weights, padding_idx=-1, scale_grad_by_freq=False):
    """Sum the rows of ``grad`` into the rows their indices name."""
    d = grad.shape[-1]
    idx = indices.reshape(-1)
    out = np.zeros((num_weights, d), grad.dtype)
    if idx.size == 0:
        return out
    lo, hi = idx.min(), idx.max()
    if lo < 0 or hi >= num_weights:
        raise IndexError(f"index {lo if lo < 0 else hi} is out of bounds for dimension 0 with size "
                         f"{num_weights}")
    ct = grad.dtype if grad.dtype.kind == "f" and grad.dtype.itemsize >= 4 else None
    if ct is not None:
        from ._nn_kernels import index_add_rows
        # a scatter-add loop: NumPy's alternatives (sort + reduceat, add.at) are 3-10x slower
        index_add_rows(np.ascontiguousarray(grad.reshape(-1, d)), np.ascontiguousarray(idx),
                       padding_idx, out)
    else:
        acc = np.zeros((num_weights, d), np.complex128 if grad.dtype.kind == "c" else np.float64)
        np.add.at(acc, idx, grad.reshape(-1, d))
        out[...] = acc
    if padding_idx >= 0:
        out[padding_idx] = 0
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num_weights)
        used = counts > 1
        out[used] /= counts[used, None].astype(out.dtype)
    return out


@embedding_backward.meta
def _(grad, indices, *, num_weights, padding_idx=-1, scale_grad_by_freq=False):
    return TensorMeta((num_weights, grad.shape[-1]), grad.dtype)


@embedding_backward.derivative
def _(gg, indices, *, padding_idx, scale_grad_by_freq):
    if scale_grad_by_freq:
        counts = indices.new_zeros(gg.shape[0]).index_add(0, indices.reshape(-1),
                                                          indices.new_ones(indices.numel()))
        gg = gg / counts.clamp(min=1).to(gg.dtype).unsqueeze(1)
    if padding_idx >= 0:
        gg = gg.clone()
        gg[padding_idx] = 0
    return gg._op(embedding, indices), None


# ----------------------------------------------------------------------------- activations with edges
# Their own primitives because their derivatives special-case the edges as torch's do: softplus'(0)
# is sigmoid(0) = 1/2 (a max(z, 0) + log1p(e^-|z|) composite gives 1 there), and hardtanh's gradient
# is 0 at the bounds (clamp's is 1).
@primitive("softplus", kind="pointwise", promotion="int_to_float", expr="softplus(a)")
def softplus(a, *, beta=1.0, threshold=20.0):
    z = a * beta if beta != 1 else a
    with np.errstate(over="ignore"):
        soft = np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))
    if beta != 1:
        soft = soft / beta
    return np.where(z > threshold, a, soft).astype(a.dtype, copy=False)


@softplus.derivative
def _(grad, a, *, beta, threshold):
    z = a * beta if beta != 1 else a
    return grad * z.sigmoid().where((z > threshold).logical_not(), 1)  # NaN stays NaN, as in torch


@primitive("hardtanh", kind="pointwise", expr="hardtanh(a)")
def hardtanh(a, *, min_val=-1.0, max_val=1.0):
    if a.dtype == np.bool_:
        raise RuntimeError('"hardtanh_cpu" not implemented for \'Bool\'')
    lo, hi = (min_val, max_val) if a.dtype.kind == "f" else (math.ceil(min_val), math.floor(max_val))
    return np.clip(a, lo, hi).astype(a.dtype, copy=False)


@hardtanh.derivative
def _(grad, a, *, min_val, max_val):
    return grad.where((a > min_val).logical_and(a < max_val), 0)


@primitive("hardswish", kind="pointwise", expr="hardswish(a)")
def hardswish(a):
    _float_only("hardswish_cpu", a)
    with np.errstate(invalid="ignore"):  # -inf * 0 is NaN, as in torch
        return (a * np.clip(a + 3, 0, 6) / 6).astype(a.dtype, copy=False)


@hardswish.derivative
def _(grad, a):
    # torch's branches: 0 for x <= -3, x / 3 + 1/2 for x < 3, else 1 (so +inf and NaN give 1)
    inner = (a / 3 + 0.5).where(a < 3, 1)
    return grad * inner.where((a <= -3).logical_not(), 0)


__all__ += ["softplus", "hardtanh", "hardswish"]


@primitive("binary_cross_entropy", kind="pointwise", expr="bce(x, t)")
def binary_cross_entropy(input, target):
    """Elementwise ``-(t log x + (1 - t) log(1 - x))``, each log clamped at -100 (torch's)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lx = np.maximum(np.log(input), -100)
        l1x = np.maximum(np.log1p(-input), -100)
    return (-(target * lx + (1 - target) * l1x)).astype(np.result_type(input, target), copy=False)


@binary_cross_entropy.derivative
def _(grad, input, target):
    # torch's: (x - t) / clamp((1 - x) x, min=1e-12), finite at x = 0 or 1 (a saturated sigmoid)
    gi = grad * (input - target) / ((1 - input) * input).clamp(min=1e-12)
    gt = grad * ((-input).log1p() - input.log())  # unclamped, as torch's
    return gi, gt


@primitive("binary_cross_entropy_with_logits", kind="pointwise", expr="bce_logits(x, t, pw)")
def binary_cross_entropy_with_logits(input, target, pos_weight, *, has_pos_weight=True):
    """Elementwise ``(1 - t) x + lw softplus(-x)`` with ``lw = (pos_weight - 1) t + 1`` (1 without
    ``pos_weight``, which is then a 0-d placeholder of ``input``'s dtype and not read)."""
    with np.errstate(over="ignore", invalid="ignore"):
        sp = np.maximum(-input, 0) + np.log1p(np.exp(-np.abs(input)))  # softplus(-x), stable
        out = (1 - target) * input + ((pos_weight - 1) * target + 1) * sp if has_pos_weight else \
            (1 - target) * input + sp
    return np.asarray(out).astype(np.result_type(input, target, pos_weight), copy=False)


@binary_cross_entropy_with_logits.derivative
def _(grad, input, target, pos_weight, *, has_pos_weight):
    # torch's closed forms (finite wherever sigmoid is, e.g. at a saturated or zero logit):
    # d/dx = lw sigmoid(x) - pw t, d/dt = log_sigmoid(-x) - pw log_sigmoid(x) (= -x without
    # pos_weight; this form is the one finite at x = -inf); pos_weight takes no gradient
    sig = input.sigmoid()
    if not has_pos_weight:
        return grad * (sig - target), grad * -input, None
    pt = pos_weight * target
    soft = (-input.abs()).exp().log1p()
    log_sig, log_sig_neg = input.clamp(max=0) - soft, (-input).clamp(max=0) - soft
    return (grad * ((pt + 1 - target) * sig - pt), grad * (log_sig_neg - pos_weight * log_sig), None)


__all__ += ["binary_cross_entropy", "binary_cross_entropy_with_logits"]
