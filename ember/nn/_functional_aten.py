"""torch.* forms of nn operations whose aten signature differs from ``nn.functional``'s (layer L4):
losses with an int ``reduction`` (0 none, 1 mean, 2 sum), ``convolution``/``conv_tbc``,
``grid_sampler`` with int modes, in-place activations and dropouts, the recurrent layers and cells
(``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu`` and their ``*_cell``), ``embedding_bag`` with its
four outputs, ``constant_pad_nd``, ``frobenius_norm``, ``nuclear_norm``, ``norm_except_dim``.
All are composites of ember ops.

Example:
    >>> import ember
    >>> ember.constant_pad_nd(ember.ones(2), [1, 1], 0.5).tolist()
    [0.5, 1.0, 1.0, 0.5]
"""
from __future__ import annotations

import warnings

from .. import _dtype as D
from .._creation import arange, zeros
from .._tensor_methods.shape_copy import cat, stack
from ..autograd.grad_mode import no_grad
from .. import linalg as _linalg
from . import _functional_conv as FC
from . import _functional_loss as FL
from . import _functional_loss_likelihood as FLL
from . import _functional_loss_margin as FLMg
from . import _functional_pad_fold_shuffle as FPad
from . import _functional_pooling as FPool
from . import _functional_misc as FM
from . import _functional_norm as FN
from . import _functional_sampling as FS
from . import functional as F

__all__ = ["TORCH_FUNCTIONS"]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(r):
    if isinstance(r, str):
        return r
    if r not in _REDUCTIONS:
        raise ValueError(f"{r} is not a valid value for reduction")
    return _REDUCTIONS[r]


# ------------------------------------------------------------------------------ losses
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """``torch.binary_cross_entropy_with_logits``: the functional loss with an int reduction."""
    return FL.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                               pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    """``torch.cosine_embedding_loss`` (int reduction)."""
    return FLMg.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    """``torch.hinge_embedding_loss`` (int reduction)."""
    return FLMg.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def kl_div(input, target, reduction=1, *, log_target=False):
    """``torch.kl_div``: pointwise KL divergence; int ``reduction`` 1 is the plain mean (torch's
    aten op has no 'batchmean')."""
    with warnings.catch_warnings():  # the aten op has no 'batchmean' and gives no such advice
        warnings.filterwarnings("ignore", message="reduction: 'mean' divides")
        return FLL.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    """``torch.margin_ranking_loss`` (int reduction)."""
    return FLMg.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss`` (every argument positional, int reduction)."""
    return FLL.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=1):
    """``torch.triplet_margin_loss`` (int reduction)."""
    return FLMg.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                   reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    """``torch.ctc_loss`` (int reduction)."""
    return FLL.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                        _reduction(reduction), zero_infinity)


# ------------------------------------------------------------------------------ convolution
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution``: any convolution (1-3 spatial dims, transposed or not) from its
    aten arguments."""
    nd = weight.dim() - 2
    if nd not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3D, 4D or 5D weight, got {weight.dim()}D")
    if transposed:
        fn = (FC.conv_transpose1d, FC.conv_transpose2d, FC.conv_transpose3d)[nd - 1]
        return fn(input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding), groups,
                  tuple(dilation))
    fn = (FC.conv1d, FC.conv2d, FC.conv3d)[nd - 1]
    return fn(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def conv_tbc(input, weight, bias, pad=0):
    """``torch.conv_tbc``: 1-D convolution of a time-batch-channel ``(T, B, C_in)`` input with a
    ``(K, C_in, C_out)`` weight; returns ``(T + 2 pad - K + 1, B, C_out)``."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    x = input.permute(1, 2, 0)  # shape: (B, C_in, T)
    w = weight.permute(2, 1, 0)  # shape: (C_out, C_in, K)
    return FC.conv1d(x, w, bias, 1, pad).permute(2, 0, 1)


def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: pad the last ``len(pad) // 2`` dims with ``value`` (negative
    padding crops)."""
    return FPad.pad(input, tuple(pad), "constant", value)


# ------------------------------------------------------------------------------ sampling, pooling
_INTERP = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``: ``grid_sample`` with int modes (0 bilinear, 1 nearest, 2 bicubic;
    padding 0 zeros, 1 border, 2 reflection)."""
    return FS.grid_sample(input, grid, _INTERP[interpolation_mode], _PADDING[padding_mode],
                          align_corners)


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler_2d``: :func:`grid_sampler` on 4-D input."""
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, but got input with sizes "
                           f"{list(input.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler_3d``: :func:`grid_sampler` on 5-D input."""
    if input.dim() != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, but got input with sizes "
                           f"{list(input.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid_generator(theta, size, align_corners):
    """``torch.affine_grid_generator``: ``affine_grid`` with a required ``align_corners``."""
    return FS.affine_grid(theta, list(size), align_corners)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: ``(values, indices)``."""
    return FPool.adaptive_max_pool1d_with_indices(input, output_size)


# ------------------------------------------------------------------------------ in-place forms
def celu_(input, alpha=1.0):
    """``torch.celu_``: CELU in place."""
    return F.celu(input, alpha, inplace=True)


def selu_(input):
    """``torch.selu_``: SELU in place."""
    return F.selu(input, inplace=True)


def threshold_(input, threshold, value):
    """``torch.threshold_``: ``value`` where ``input <= threshold``, in place."""
    return F.threshold(input, threshold, value, inplace=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu_``: randomized leaky ReLU in place."""
    return FM.rrelu_(input, lower, upper, training)


def dropout_(input, p, train):
    """``torch.dropout_``: dropout in place."""
    return FM.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    """``torch.alpha_dropout_``: alpha dropout in place."""
    return FM.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    """``torch.feature_alpha_dropout_``: channel-wise alpha dropout in place."""
    return FM.feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input, p, train):
    """``torch.feature_dropout``: zero whole channels of ``(N, C, *)`` with probability ``p``."""
    return FM._feature_dropout(input, p, train, False, True)


def feature_dropout_(input, p, train):
    """``torch.feature_dropout_``: :func:`feature_dropout` in place."""
    return FM._feature_dropout(input, p, train, True, True)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """``torch.embedding_renorm_``: rescale, in place, the rows of ``input`` named by ``indices``
    whose ``norm_type``-norm exceeds ``max_norm`` to norm ``max_norm`` (scale
    ``max_norm / (norm + 1e-7)``)."""
    with no_grad():
        rows = indices.reshape(-1).unique()
        sel = input.index_select(0, rows)
        norms = _linalg.vector_norm(sel, norm_type, 1, keepdim=True)
        scale = (max_norm / (norms + 1e-7)).where(norms > max_norm, norms.new_ones(()))
        input.index_copy_(0, rows, sel * scale)
    return input


# ------------------------------------------------------------------------------ norms
def frobenius_norm(input, dim, keepdim=False):
    """``torch.frobenius_norm``: the 2-norm over ``dim`` (at most two dims)."""
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    return _linalg.vector_norm(input, 2, dim, keepdim=keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """``torch.nuclear_norm``: sum of singular values of the matrices over ``dim`` (default the
    last two dims of a 2-D input)."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    if dim is None:
        if input.dim() != 2:
            raise RuntimeError(f"Expected a tensor with 2 dimensions, but got a tensor with "
                               f"{input.dim()} dimension{'s' if input.dim() != 1 else ''} instead.")
        dim = (0, 1)
    return _linalg.matrix_norm(input, "nuc", tuple(dim), keepdim=keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """``torch.norm_except_dim``: the ``pow``-norm over every dim but ``dim``, kept with size 1
    (``dim=-1``: the norm of the whole tensor, 0-d)."""
    if dim == -1:
        return _linalg.vector_norm(v, pow)
    others = tuple(d for d in range(v.dim()) if d != dim)
    return _linalg.vector_norm(v, pow, others, keepdim=True)


# ------------------------------------------------------------------------------ recurrent
def _cell_linear(x, w, b):
    y = x.matmul(w.t())
    return y if b is None else y + b


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_tanh_cell``: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return (_cell_linear(input, w_ih, b_ih) + _cell_linear(hx, w_hh, b_hh)).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_relu_cell``: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return (_cell_linear(input, w_ih, b_ih) + _cell_linear(hx, w_hh, b_hh)).relu()


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.lstm_cell``: one LSTM step; ``hx = (h, c)``; returns ``(h', c')``."""
    h, c = hx
    gates = _cell_linear(input, w_ih, b_ih) + _cell_linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c2.tanh(), c2


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.gru_cell``: one GRU step (``n = tanh(x_n + r * (W_hn h + b_hn))``)."""
    xr, xz, xn = _cell_linear(input, w_ih, b_ih).chunk(3, -1)
    hr, hz, hn = _cell_linear(hx, w_hh, b_hh).chunk(3, -1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (1 - z) * n + z * hx


def _layers(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
            batch_first):
    """Run a multi-layer (bi)directional recurrence from torch's flat ``params`` list (per layer
    and direction: ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``)."""
    if not isinstance(input, type(zeros(0))) or (batch_first is not None and
                                                  not isinstance(batch_first, bool)):
        raise NotImplementedError(f"{mode}: packed sequences (the .data overload) are not supported")
    is_lstm = mode == "lstm"
    dirs = 2 if bidirectional else 1
    per = len(params) // (num_layers * dirs)
    x = input.transpose(0, 1) if batch_first else input  # shape: (T, B, F)
    h0, c0 = (hx[0], hx[1]) if is_lstm else (hx, None)
    cell = {"lstm": lstm_cell, "gru": gru_cell, "rnn_tanh": rnn_tanh_cell,
            "rnn_relu": rnn_relu_cell}[mode]
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = (layer * dirs + d) * per
            p = params[k:k + per]
            w_ih, w_hh = p[0], p[1]
            b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
            w_hr = p[-1] if is_lstm and per in (3, 5) else None
            idx = layer * dirs + d
            h = h0[idx]
            c = c0[idx] if is_lstm else None
            steps = range(x.shape[0] - 1, -1, -1) if d == 1 else range(x.shape[0])
            seq = [None] * x.shape[0]
            for t in steps:
                if is_lstm:
                    h, c = cell(x[t], (h, c), w_ih, w_hh, b_ih, b_hh)
                    if w_hr is not None:
                        h = h.matmul(w_hr.t())
                else:
                    h = cell(x[t], h, w_ih, w_hh, b_ih, b_hh)
                seq[t] = h
            outs.append(stack(seq, 0))
            hs.append(h)
            cs.append(c)
        x = outs[0] if dirs == 1 else cat(outs, -1)
        if dropout and train and layer < num_layers - 1:
            x = FM.dropout(x, dropout, True)
    out = x.transpose(0, 1) if batch_first else x
    if is_lstm:
        return out, stack(hs, 0), stack(cs, 0)
    return out, stack(hs, 0)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """``torch.lstm``: ``(output, h_n, c_n)`` of a multi-layer LSTM; ``hx = [h_0, c_0]``."""
    return _layers("lstm", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first)


def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """``torch.gru``: ``(output, h_n)`` of a multi-layer GRU."""
    return _layers("gru", input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first)


def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """``torch.rnn_tanh``: ``(output, h_n)`` of a multi-layer Elman RNN with tanh."""
    return _layers("rnn_tanh", input, hx, params, has_biases, num_layers, dropout, train,
                   bidirectional, batch_first)


def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """``torch.rnn_relu``: ``(output, h_n)`` of a multi-layer Elman RNN with ReLU."""
    return _layers("rnn_relu", input, hx, params, has_biases, num_layers, dropout, train,
                   bidirectional, batch_first)


# ------------------------------------------------------------------------------ native norms
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm``: ``(output, mean, rstd)``; mean and rstd ``(*batch, 1, ...)`` keep
    the normalised dims as 1 and carry no gradient (as torch's)."""
    out = FN.layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.dim() - len(tuple(normalized_shape)), input.dim()))
    with no_grad():
        mean = input.mean(dims, keepdim=True) if dims else input.clone()
        rstd = (input.var(dims, correction=0, keepdim=True) + eps).rsqrt() if dims else \
            input.new_full(tuple(input.shape), eps).rsqrt()
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm``: ``(output, batch mean, batch 1/std)`` per channel when
    training (running stats, when given, updated in place); evaluation gives two empty tensors."""
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("native_batch_norm: running_mean and running_var must be defined in "
                           "evaluation mode")
    out = FN.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        return out, input.new_empty(0), input.new_empty(0)
    dims = [0] + list(range(2, input.dim()))
    with no_grad():
        mean = input.mean(dims)
        invstd = (input.var(dims, correction=0) + eps).rsqrt()
    return out, mean, invstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``torch.native_group_norm``: ``(output, mean, rstd)`` with mean/rstd ``(N, group)``; unlike
    layer norm's, they are differentiable (torch's are)."""
    out = FN.group_norm(input, group, weight, bias, eps)
    x = input.reshape(N, group, C // group * HxW)  # shape: (N, G, C/G * HxW)
    mean = x.mean(-1)
    rstd = (x.var(-1, correction=0) + eps).rsqrt()
    return out, mean, rstd


# ------------------------------------------------------------------------------ embedding_bag
_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag``: ``(output, offset2bag, bag_size, max_indices)``; ``mode`` 0 sum,
    1 mean, 2 max. ``offset2bag[i]`` is the bag of index ``i``, ``bag_size`` counts each bag's
    indices (padding excluded), ``max_indices`` (max mode) holds the winning index per feature."""
    out = FM.embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq,
                           _BAG_MODES[mode], sparse, per_sample_weights, include_last_offset,
                           padding_idx)
    with no_grad():
        nb = out.shape[0]
        z = zeros(nb, dtype=D.int64)
        if mode == 0 and padding_idx is None and weight.dtype is D.float32:
            # torch's fast float32 sum path keeps no bookkeeping: an empty offset2bag
            return out, zeros(0, dtype=D.int64), z, z.clone()
        flat = indices.reshape(-1)
        n = flat.shape[0]
        if indices.dim() == 2:
            offsets = arange(0, indices.shape[0] * indices.shape[1], indices.shape[1],
                             dtype=D.int64)
        starts = offsets[:nb].to(D.int64)
        pos = arange(n, dtype=D.int64)
        offset2bag = (pos.unsqueeze(1) >= starts.unsqueeze(0)).sum(1) - 1
        keep = flat != padding_idx if padding_idx is not None else flat == flat
        bag_size = zeros(nb, dtype=D.int64)
        if n and nb:
            bag_size.index_add_(0, offset2bag.clamp(min=0), keep.to(D.int64))
        if mode == 0:
            return out, offset2bag, z, z.clone()
        if mode != 2:
            return out, offset2bag, bag_size, bag_size.clone()
        max_idx = zeros(tuple(out.shape), dtype=D.int64)
        vals = weight.index_select(0, flat)  # shape: (n, D)
        for b in range(nb):
            m = (offset2bag == b) & keep
            if bool(m.any()):
                rows = flat[m]
                max_idx[b] = rows[vals[m].argmax(0)]
    return out, offset2bag, bag_size, max_idx


TORCH_FUNCTIONS = {n: globals()[n] for n in (
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss", "kl_div",
    "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss", "ctc_loss", "convolution",
    "conv_tbc", "constant_pad_nd", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
    "affine_grid_generator", "adaptive_max_pool1d", "celu_", "selu_", "threshold_", "rrelu_",
    "dropout_", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
    "embedding_renorm_", "frobenius_norm", "nuclear_norm", "norm_except_dim", "rnn_tanh_cell",
    "rnn_relu_cell", "lstm_cell", "gru_cell", "lstm", "gru", "rnn_tanh", "rnn_relu",
    "embedding_bag", "native_layer_norm", "native_batch_norm", "native_group_norm")}
