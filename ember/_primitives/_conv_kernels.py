"""NumPy kernels behind ``conv.py``'s convolution primitives (layer L1): blocked im2col + GEMM.

Column buffers are channel-major: the columns of a block of ``nb`` samples form one matrix
``(C * K, nb * L)`` (K = kernel taps, L = output positions), so a block costs one GEMM
``W (O, C*K) @ cols`` whatever the batch, and the output block is ``(O, nb, L)``. Blocks hold about
``BLOCK_BYTES`` of columns so they stay in cache; with ``nb == 1`` the GEMM writes straight into the
output. With ``CACHE_BYTES`` set, a forward whose whole column buffer fits builds it in one block
and keeps it (keyed by the identity of the input array, dropped when that array dies or once used)
for the weight gradient, which is then one GEMM against the output gradient (off by default, below). 1x1 convolutions (stride 1,
no padding) skip im2col: the input is its own column matrix. ``col2im`` adds the GEMM's columns back
tap by tap into a zero-padded canvas, again block by block (strided 2-d: a Numba pass straight into
the result). Three cases leave im2col (measured faster): stride-1 3x3 convs with many channels run
Winograd F(2x2, 3x3) (``_conv_winograd``), few-channel stride-1 convs run direct loops
(``_conv_direct``), and stride-1 float32 convs with few output channels (LeNet-5's second) run loops
with the batch in the vector lanes (``_conv_lanes``, which also adds back strided float32 input
gradients); all are Numba, imported on first use, and hand back to im2col on inputs they cannot
take exactly (non-finite values).

Example:
    >>> import numpy as np
    >>> x = np.ones((1, 1, 3, 3), np.float32); w = np.ones((1, 1, 2, 2), np.float32)
    >>> conv_forward(x, w, None, (1, 1), (0, 0), (1, 1)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
"""
from __future__ import annotations

import weakref
from math import prod

import numpy as np

__all__ = ["conv_forward", "conv_weight", "conv_transpose", "BLOCK_BYTES", "CACHE_BYTES"]

BLOCK_BYTES = 1 << 22
# Keeping the forward's columns for the weight gradient is off (0) by default: holding a multi-MB
# buffer from forward to backward made glibc hand the memory back and fault it in again every step
# (~2500 page faults, +6 ms system time per LeNet-5 step, measured); the recomputation is cheaper.
CACHE_BYTES = 0
SAMPLE_MAJOR_CK = 320  # C*K up to this: per-sample GEMMs on (C*K, L) columns (measured faster)
WIDE_WEIGHT_CK = 64  # ... except the weight gradient at stride 1 from C*K = 64 on: one GEMM on wide rows
SHORT_ROW = 16  # sample-major forward at stride 1: wide rows when output rows are shorter (measured)
STRIDED_WEIGHT_CK = 128  # ... and not wide: per-sample GEMMs below this C*K, one GEMM from it on
NUMBA_MIN_OUTPUTS = 1 << 16  # Winograd / direct loops only for convs with this many output elements
WINOGRAD_CHANNELS = 32  # stride-1 3x3 with at least this many input and output channels: Winograd


def _big(n, o, out_size) -> bool:
    """Enough output elements for a Numba path to pay: small convs keep im2col (no compile, and
    float32 rounding as the plain GEMM sums give it, e.g. observers' ranges in quantization)."""
    return n * o * prod(out_size) >= NUMBA_MIN_OUTPUTS


def _winograd(x, w_shape, stride, padding, dilation, c, o):
    """The Winograd module when it takes this convolution (float32/64, big enough channel counts)."""
    if min(c, o) < WINOGRAD_CHANNELS or x.dtype not in _FLOATS or x.shape[0] == 0:
        return None
    if not _big(x.shape[0], o, _out_size(x.shape[2:], w_shape[2:], stride, padding, dilation)):
        return None
    from . import _conv_winograd as W  # Numba: imported on first use
    return W if W.fits(x.shape, w_shape, stride, padding, dilation) else None


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
DIRECT_CHANNELS = 4  # stride-1 2-d convs with kernel width 3 and at most this many input channels


def _direct(x, w_shape, stride, padding, dilation, c, weight_grad=False):
    """The direct-loop module when it takes this convolution (measured faster than im2col: few input
    channels, 3-wide kernels, where the column buffer is mostly copying; for the weight gradient also
    5-wide kernels on up to 2 * DIRECT_CHANNELS channels, LeNet-5's)."""
    widths = (3, 5) if weight_grad else (3,)
    limit = 2 * DIRECT_CHANNELS if weight_grad else DIRECT_CHANNELS
    if (c > limit or len(w_shape) != 4 or w_shape[3] not in widths or any(s != 1 for s in stride)
            or x.dtype not in _FLOATS):
        return None
    if not _big(x.shape[0], w_shape[0], _out_size(x.shape[2:], w_shape[2:], stride, padding, dilation)):
        return None
    from . import _conv_direct as D  # Numba: imported on first use
    return D


LANES_MAX_OUT = 16  # batch-in-lanes loops: stride-1 2-d convs with at most this many output
LANES_MIN_CHANNELS = 5  # channels, at least this many input channels (fewer: the direct loops),
LANES_3X3_PLANE = 400  # 5-wide kernels, or 3-wide ones on planes of at most this many positions,
LANES_MIN_BATCH = 16  # a batch filling the 16 lanes (a smaller one computes spare lanes),
LANES_SAMPLE_BYTES = 1 << 18  # and per sample at most this much input / output / columns (blocks of
# 16 samples then stay within im2col's 4 MB)


def _lanes(dtype, k, stride, c, o, size, out_size, n):
    """The batch-in-lanes module when it takes this convolution (measured faster than im2col: few
    output channels, where im2col's columns cost as much as the GEMM). ``c``/``o``/``size``/
    ``out_size`` are the forward conv's input channels, output channels, input and output planes
    whichever of its three products is computed. float32 only (one compiled version of each loop:
    float64 convs keep im2col)."""
    if (len(k) != 2 or any(s != 1 for s in stride) or dtype != _FLOATS[0] or o > LANES_MAX_OUT
            or c < LANES_MIN_CHANNELS or n < LANES_MIN_BATCH
            or n * o * prod(out_size) < NUMBA_MIN_OUTPUTS):
        return None
    if k[1] != 5 and not (k[1] == 3 and prod(size) <= LANES_3X3_PLANE):
        return None
    if max(c * prod(size), c * prod(k) * prod(out_size)) * dtype.itemsize > LANES_SAMPLE_BYTES:
        return None
    from . import _conv_lanes as B  # Numba: imported on first use
    return B


def _zeros(shape, dtype):
    """``np.zeros`` through malloc + fill: large ``calloc`` blocks are fresh mmaps whose pages fault
    on every use (measured: ~2500 page faults, 6 ms of system time per LeNet step)."""
    a = np.empty(shape, dtype)
    a.fill(0)
    return a


def _out_size(size, k, s, p, d):
    return tuple((size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(len(k)))


def _tap(j, out, stride, dilation):
    """The strided slices of a padded input read by kernel tap ``j`` (one per spatial dim)."""
    return tuple(slice(j[i] * dilation[i], j[i] * dilation[i] + (out[i] - 1) * stride[i] + 1, stride[i])
                 for i in range(len(j)))


def _interior(size, padding):
    return tuple(slice(p, p + s) for s, p in zip(size, padding))


def _pointwise(k, stride, padding) -> bool:
    return prod(k) == 1 and not any(padding) and all(s == 1 for s in stride)


def _block(n, per_sample_bytes, whole_ok=False):
    """Samples per block: all of them when ``whole_ok``, else as many as fit ``BLOCK_BYTES``."""
    if whole_ok:
        return n
    return max(1, min(n, BLOCK_BYTES // max(per_sample_bytes, 1)))


def _im2col(x, k, stride, padding, dilation, out, ones):
    """Channel-major columns ``(C*K [+1], nb*L)`` of ``x (nb, C, *S)``; the optional last row is ones
    (the bias rides in the GEMM as an extra weight column)."""
    nb, c = x.shape[:2]
    xp = _zeros((c, nb) + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)), x.dtype)
    xp[(slice(None), slice(None)) + _interior(x.shape[2:], padding)] = x.swapaxes(0, 1)
    ck = c * prod(k)
    cols = np.empty((ck + ones, nb * prod(out)), x.dtype)
    view = cols[:ck].reshape((c,) + tuple(k) + (nb,) + tuple(out))
    full = (slice(None),)
    for j in np.ndindex(*k):
        view[full + j] = xp[full * 2 + _tap(j, out, stride, dilation)]
    if ones:
        cols[ck] = 1
    return cols


def _im2col_samples(x, k, stride, padding, dilation, out, ones):
    """Sample-major columns ``(nb, C*K [+1], L)`` of ``x (nb, C, *S)``: for few input channels, where
    one GEMM per sample writes its output in place and needs no transposition."""
    nb, c = x.shape[:2]
    xp = x
    if any(padding):
        xp = _zeros((nb, c) + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)), x.dtype)
        xp[(slice(None), slice(None)) + _interior(x.shape[2:], padding)] = x
    ck = c * prod(k)
    cols = np.empty((nb, ck + ones, prod(out)), x.dtype)
    st = xp.strides
    nd = len(k)
    win = np.lib.stride_tricks.as_strided(
        xp, (nb, c) + tuple(k) + tuple(out), st[:2] + tuple(st[2 + i] * dilation[i] for i in range(nd))
        + tuple(st[2 + i] * stride[i] for i in range(nd)), writeable=False)
    np.copyto(cols[:, :ck].reshape((nb, c) + tuple(k) + tuple(out)), win)
    if ones:
        cols[:, ck] = 1
    return cols


def _sample_major(ck) -> bool:
    return ck <= SAMPLE_MAJOR_CK


# Stride 1 ("wide rows"): on the zero-padded input flattened per (channel, sample), output position
# o sits at flat q(o) = sum(o_i * pstride_i) and tap j reads flat q(o) + off(j). The columns of a tap
# are then one contiguous slice of length ``span`` (every q up to the last output, including the
# positions between rows, which are computed and dropped): long copies instead of short rows.
def _grid(size, padding):
    padded = tuple(s + 2 * p for s, p in zip(size, padding))
    pstr = tuple(prod(padded[i + 1:]) for i in range(len(padded)))
    return padded, pstr


def _span(out, pstr):
    return sum((o - 1) * s for o, s in zip(out, pstr)) + 1


def _offsets(k, dilation, pstr):
    offs = [0]
    for i in range(len(k)):  # taps in np.ndindex order
        step = dilation[i] * pstr[i]
        offs = [o + j * step for o in offs for j in range(k[i])]
    return offs


def _wide_view(a, out, pstr):
    """The output positions ``(..., *out)`` of wide rows ``a (..., span)`` (a strided view)."""
    st = a.strides[:-1] + tuple(s * a.itemsize for s in pstr)
    return np.lib.stride_tricks.as_strided(a, a.shape[:-1] + tuple(out), st, writeable=False)


def _im2col_wide(x, k, padding, dilation, out, ones):
    """Channel-major wide columns ``(C*K [+1], nb*span)`` of ``x (nb, C, *S)`` (stride 1)."""
    nb, c = x.shape[:2]
    padded, pstr = _grid(x.shape[2:], padding)
    xp = _zeros((c, nb) + padded, x.dtype)
    xp[(slice(None), slice(None)) + _interior(x.shape[2:], padding)] = x.swapaxes(0, 1)
    xf = xp.reshape(c, nb, -1)
    span = _span(out, pstr)
    ck = c * prod(k)
    cols = np.empty((ck + ones, nb * span), x.dtype)
    view = cols[:ck].reshape(c, prod(k), nb, span)
    for t, off in enumerate(_offsets(k, dilation, pstr)):
        view[:, t] = xf[:, :, off:off + span]
    if ones:
        cols[ck] = 1
    return cols


def _im2col_wide_samples(x, k, padding, dilation, out, ones):
    """Sample-major wide columns ``(nb, C*K [+1], span)`` of ``x (nb, C, *S)`` (stride 1): one strided
    copy whose inner run is a tap's whole contiguous slice (not one short output row)."""
    nb, c = x.shape[:2]
    padded, pstr = _grid(x.shape[2:], padding)
    if any(padding):
        xp = _zeros((nb, c) + padded, x.dtype)
        xp[(slice(None), slice(None)) + _interior(x.shape[2:], padding)] = x
    else:
        xp = np.ascontiguousarray(x)
    span = _span(out, pstr)
    ck = c * prod(k)
    cols = np.empty((nb, ck + ones, span), x.dtype)
    it = x.itemsize
    win = np.lib.stride_tricks.as_strided(
        xp, (nb, c) + tuple(k) + (span,),
        xp.strides[:2] + tuple(dilation[i] * pstr[i] * it for i in range(len(k))) + (it,), writeable=False)
    np.copyto(cols[:, :ck].reshape((nb, c) + tuple(k) + (span,)), win)
    if ones:
        cols[:, ck] = 1
    return cols, pstr


def _to_wide(g, size, padding, out):
    """``g (nb, O, *out)`` as zero-filled wide rows ``(O, nb*span)`` on the padded grid of ``size``."""
    nb, o = g.shape[:2]
    _, pstr = _grid(size, padding)
    span = _span(out, pstr)
    gw = _zeros((o, nb, span), g.dtype)
    st = gw.strides[:2] + tuple(s * g.itemsize for s in pstr)
    np.lib.stride_tricks.as_strided(gw, (o, nb) + tuple(out), st)[...] = g.swapaxes(0, 1)
    return gw.reshape(o, nb * span)


def _finite(a) -> bool:
    return a.dtype.kind not in "fc" or bool(np.isfinite(a).all())


def _wide_ok(stride, size, k, padding, dilation, out) -> bool:
    return all(s == 1 for s in stride) and tuple(out) == _out_size(size, k, stride, padding, dilation)


# ------------------------------------------------------------------ cached columns (forward -> weight grad)
_CACHE: dict = {}


def _forget(key):
    _CACHE.pop(key, None)


def _remember(x, params, cols):
    key = id(x)
    try:
        ref = weakref.ref(x, lambda _r, key=key: _forget(key))
    except TypeError:
        return
    _CACHE[key] = (ref, params, cols)
    total = sum(v[2].nbytes for v in _CACHE.values())
    while total > 4 * CACHE_BYTES and len(_CACHE) > 1:  # oldest first
        old = next(iter(_CACHE))
        total -= _CACHE.pop(old)[2].nbytes


def _recall(x, params):
    hit = _CACHE.get(id(x))
    if hit is None or hit[0]() is not x or hit[1] != params:
        return None
    del _CACHE[id(x)]
    return hit[2]


# ------------------------------------------------------------------ forward
def conv_forward(x, w, b, stride, padding, dilation, out=None, cache=True):
    """``x (N, C, *S)`` correlated with ``w (O, C, *k)`` (+ ``b (O,)``) -> ``(N, O, *S')``, written
    into ``out`` when given (it may be a channel slice of a larger output)."""
    n, c = x.shape[:2]
    o = w.shape[0]
    k = tuple(w.shape[2:])
    osz = _out_size(x.shape[2:], k, stride, padding, dilation)
    L = prod(osz)
    res = np.empty((n, o) + osz, x.dtype) if out is None else out
    if n == 0:  # an empty batch: nothing to compute (the blocking below needs a sample)
        return res
    r3 = res.reshape(n, o, L) if out is None else None
    w2 = w.reshape(o, -1)
    if _pointwise(k, stride, padding):
        y = np.matmul(w2, x.reshape(n, c, L))
        if b is not None:
            y += b.reshape(o, 1)
        if out is None:
            return y.reshape((n, o) + osz)
        out[...] = y.reshape(out.shape)
        return out
    W = _winograd(x, w.shape, stride, padding, dilation, c, o)
    if W is not None and w.dtype == x.dtype and (b is None or b.dtype == x.dtype):
        if W.forward(x, w, b, padding, out=res) is not None:
            return res
    B = _lanes(x.dtype, k, stride, c, o, x.shape[2:], osz, n)
    if B is not None and w.dtype == x.dtype and (b is None or b.dtype == x.dtype):
        if B.forward(x, w, b, padding, dilation, out=res) is not None:
            return res
    D = _direct(x, w.shape, stride, padding, dilation, c)
    if D is not None and w.dtype == x.dtype and (b is None or b.dtype == x.dtype) and (
            out is None or out.flags.c_contiguous):
        return D.forward(x, w, b, padding, dilation, out=res)
    ck = c * prod(k)
    ones = b is not None
    wb = np.concatenate([w2, b.reshape(o, 1).astype(w.dtype)], 1) if ones else w2
    key = (k, stride, padding, dilation)
    if _sample_major(ck):
        whole = cache and (ck + ones) * n * L * x.itemsize <= CACHE_BYTES
        if not whole and all(s == 1 for s in stride) and osz[-1] < SHORT_ROW:
            # short output rows make im2col's copies short: wide rows instead (one long copy per
            # tap and sample, a few dropped columns in the GEMM)
            span = _span(osz, _grid(x.shape[2:], padding)[1])
            nb = _block(n, (ck + ones) * span * x.itemsize)
            for n0 in range(0, n, nb):
                n1 = min(n, n0 + nb)
                cols, pstr = _im2col_wide_samples(x[n0:n1], k, padding, dilation, osz, ones)
                res[n0:n1] = _wide_view(np.matmul(wb, cols), osz, pstr)
            return res
        nb = _block(n, (ck + ones) * L * x.itemsize, whole)
        for n0 in range(0, n, nb):
            n1 = min(n, n0 + nb)
            cols = _im2col_samples(x[n0:n1], k, stride, padding, dilation, osz, ones)
            if r3 is not None:
                np.matmul(wb, cols, out=r3[n0:n1])
            else:
                res[n0:n1] = np.matmul(wb, cols).reshape((n1 - n0, o) + osz)
        if whole:
            _remember(x, key, cols)
        return res
    wide = all(s == 1 for s in stride)
    if wide:
        _, pstr = _grid(x.shape[2:], padding)
        span = _span(osz, pstr)
    else:
        span = L
    whole = cache and (ck + ones) * n * span * x.itemsize <= CACHE_BYTES
    nb = _block(n, (ck + ones) * span * x.itemsize, whole)
    cols = None
    for n0 in range(0, n, nb):
        n1 = min(n, n0 + nb)
        if wide:
            cols = _im2col_wide(x[n0:n1], k, padding, dilation, osz, ones)
            y = np.matmul(wb, cols).reshape(o, n1 - n0, span)
            res[n0:n1] = _wide_view(y, osz, pstr).swapaxes(0, 1)
        else:
            cols = _im2col(x[n0:n1], k, stride, padding, dilation, osz, ones)
            if n1 - n0 == 1 and r3 is not None:
                np.matmul(wb, cols, out=r3[n0])
            else:
                y = np.matmul(wb, cols).reshape(o, n1 - n0, *osz)
                res[n0:n1] = y.swapaxes(0, 1)
    if whole:
        _remember(x, key, cols)
    return res


# ------------------------------------------------------------------ weight gradient
def conv_weight(x, g, weight_size, stride, padding, dilation):
    """``d<g, conv(x, w)>/dw``: ``x (N, C, *S)``, output gradient ``g (N, O, *S')`` -> ``weight_size``."""
    n, c = x.shape[:2]
    o = g.shape[1]
    k = tuple(weight_size[2:])
    osz = tuple(g.shape[2:])
    L = prod(osz)
    ck = c * prod(k)
    if n == 0:
        return np.zeros(weight_size, x.dtype)
    g3 = g.reshape(n, o, L)
    if _pointwise(k, stride, padding):
        acc = np.matmul(g3[0], x[0].reshape(c, L).T)
        for i in range(1, n):
            acc += np.matmul(g3[i], x[i].reshape(c, L).T)
        return acc.reshape(weight_size)
    W = _winograd(x, weight_size, stride, padding, dilation, c, o)
    if W is not None and g.dtype == x.dtype:
        gw = W.weight_grad(x, g, padding)
        if gw is not None:
            return gw
    B = _lanes(x.dtype, k, stride, c, o, x.shape[2:], osz, n)
    if B is not None and g.dtype == x.dtype:
        gw = B.weight_grad(x, g, weight_size, padding, dilation)
        if gw is not None:
            return gw
    D = _direct(x, weight_size, stride, padding, dilation, c, weight_grad=True)
    if D is not None and g.dtype == x.dtype:
        gw = D.weight_grad(x, g, weight_size, padding, dilation)
        if gw is not None:
            return gw
    cols = _recall(x, (k, stride, padding, dilation))
    # wide rows multiply the output gradient's zeros between rows by input values there: exact
    # only for a finite input (0 * inf is nan where torch computes nothing)
    wide = _wide_ok(stride, x.shape[2:], k, padding, dilation, osz) and _finite(x)
    if _sample_major(ck) and (cols is not None or ck < WIDE_WEIGHT_CK
                              or (not wide and ck < STRIDED_WEIGHT_CK)):
        nb = n if cols is not None else _block(n, ck * L * x.itemsize)
        acc = None
        for n0 in range(0, n, nb):
            n1 = min(n, n0 + nb)
            c_ = cols if cols is not None else _im2col_samples(x[n0:n1], k, stride, padding, dilation,
                                                               osz, False)
            part = np.matmul(g3[n0:n1], c_[:, :ck].swapaxes(1, 2)).sum(0)
            acc = part if acc is None else np.add(acc, part, out=acc)
        return acc.reshape(weight_size)
    if cols is not None and not wide and all(s == 1 for s in stride):
        cols = None  # cached as wide rows, which this input cannot use
    if cols is not None:
        if wide:
            g2 = _to_wide(g, x.shape[2:], padding, osz)
        else:
            g2 = np.ascontiguousarray(g3.swapaxes(0, 1)).reshape(o, n * L)
        # (C*K, O) is the faster GEMM shape; the gradient is returned contiguous (DDP copies it flat)
        return np.ascontiguousarray(np.matmul(cols[:ck], g2.T).T).reshape(weight_size)
    span = _span(osz, _grid(x.shape[2:], padding)[1]) if wide else L
    nb = _block(n, ck * span * x.itemsize)
    acc = None
    for n0 in range(0, n, nb):
        n1 = min(n, n0 + nb)
        if wide:
            cols = _im2col_wide(x[n0:n1], k, padding, dilation, osz, False)
            g2 = _to_wide(g[n0:n1], x.shape[2:], padding, osz)
        else:
            cols = _im2col(x[n0:n1], k, stride, padding, dilation, osz, False)
            g2 = g3[n0] if n1 - n0 == 1 else np.ascontiguousarray(g3[n0:n1].swapaxes(0, 1)).reshape(o, -1)
        part = np.matmul(cols, g2.T)
        acc = part if acc is None else np.add(acc, part, out=acc)
    return np.ascontiguousarray(acc.T).reshape(weight_size)


# ------------------------------------------------------------------ transposed convolution (input gradient)
def conv_transpose(x, w, stride, padding, dilation, size, out=None):
    """The adjoint of ``conv_forward`` in its input: ``x (N, Cin, *S')``, ``w (Cin, Cout, *k)`` ->
    ``(N, Cout, *size)`` (written into ``out`` when given)."""
    n, cin = x.shape[:2]
    cout = w.shape[1]
    k = tuple(w.shape[2:])
    insz = tuple(x.shape[2:])
    L = prod(insz)
    size = tuple(size)
    res = np.empty((n, cout) + size, x.dtype) if out is None else out
    if n == 0:
        return res
    wt = np.ascontiguousarray(w.reshape(cin, -1).T)  # (Cout*K, Cin)
    x3 = x.reshape(n, cin, L)
    if _pointwise(k, stride, padding) and insz == size:
        res[...] = np.matmul(wt, x3).reshape((n, cout) + size)
        return res
    W = _winograd(x, (cout, cin) + k, stride, padding, dilation, cin, cout)
    if W is not None and w.dtype == x.dtype and max(padding) <= 2:
        # stride 1: the adjoint is a correlation with the flipped kernel, in/out swapped, padding 2 - p
        wf = w.swapaxes(0, 1)[:, :, ::-1, ::-1]
        pad = tuple(2 - p for p in padding)
        if tuple(s + 2 * q - 2 for s, q in zip(insz, pad)) == size:
            if W.forward(x, wf, None, pad, out=res) is not None:
                return res
    B = _lanes(x.dtype, k, stride, cout, cin, size, insz, n)
    if B is not None and w.dtype == x.dtype and _out_size(size, k, stride, padding, dilation) == insz:
        return B.transpose(x, w, stride, padding, dilation, size, out=res)
    if (len(k) == 2 and any(s != 1 for s in stride) and x.dtype == w.dtype == _FLOATS[0]
            and n >= LANES_MIN_BATCH and n * cout * prod(size) >= NUMBA_MIN_OUTPUTS
            and cout * max(prod(size), prod(k) * L) * x.itemsize <= LANES_SAMPLE_BYTES):
        # strided: col2im on batch-innermost columns (vectorised adds; measured 2x the col2im below)
        from . import _conv_lanes as B
        return B.transpose(x, w, stride, padding, dilation, size, out=res)
    ck = cout * prod(k)
    full = (slice(None),)
    if _wide_ok(stride, size, k, padding, dilation, insz) and _finite(w):  # (see conv_weight)
        padded, pstr = _grid(size, padding)
        span = _span(insz, pstr)
        nb = _block(n, ck * span * x.itemsize)
        offs = _offsets(k, dilation, pstr)
        for n0 in range(0, n, nb):
            n1 = min(n, n0 + nb)
            cols = np.matmul(wt, _to_wide(x[n0:n1], size, padding, insz)).reshape(cout, len(offs), n1 - n0, span)
            canvas = _zeros((cout, n1 - n0, prod(padded)), x.dtype)
            for t, off in enumerate(offs):
                canvas[:, :, off:off + span] += cols[:, t]
            canvas = canvas.reshape((cout, n1 - n0) + padded)
            res[n0:n1] = canvas[full * 2 + _interior(size, padding)].swapaxes(0, 1)
        return res
    nb = _block(n, ck * L * x.itemsize)
    padded = tuple(s + 2 * p for s, p in zip(size, padding))
    # strided float64 (or not wide) 2-d: Numba's col2im (measured faster here; slower than wide rows)
    numba_ok = len(k) == 2 and x.dtype in _FLOATS and w.dtype == x.dtype and res.flags.c_contiguous
    for n0 in range(0, n, nb):
        n1 = min(n, n0 + nb)
        xb = x3[n0] if n1 - n0 == 1 else np.ascontiguousarray(x3[n0:n1].swapaxes(0, 1)).reshape(cin, -1)
        if numba_ok:  # one pass, straight into the result (no padded canvas, no transposition)
            from ._conv_direct import col2im
            col2im(np.matmul(wt, xb), k, stride, padding, dilation, insz, res[n0:n1])
            continue
        cols = np.matmul(wt, xb).reshape((cout,) + k + (n1 - n0,) + insz)
        canvas = _zeros((cout, n1 - n0) + padded, x.dtype)
        # one strided add per tap: positions within one tap never collide
        for j in np.ndindex(*k):
            canvas[full * 2 + _tap(j, insz, stride, dilation)] += cols[full + j]
        res[n0:n1] = canvas[full * 2 + _interior(size, padding)].swapaxes(0, 1)
    return res
