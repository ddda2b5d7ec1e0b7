"""Op-database entries for nn.functional: convolution, pooling, sampling, padding, folding,
normalisation, attention, losses and activations (small samples: the whole family runs in seconds)."""
from __future__ import annotations

import numpy as np

from ._core import OpInfo, Sample, arr, noncontig


def _F(lib):
    return lib.nn.functional


def _fn(name, **fixed):
    """``fn(lib, *args, **kw)`` calling ``lib.nn.functional.<name>``."""
    def fn(lib, *args, **kw):
        return getattr(_F(lib), name)(*args, **fixed, **kw)
    fn.__name__ = name
    return fn


def _dt(lib, name):
    return None if name is None else getattr(lib, name)


def _idx(shape, high):
    return arr(shape, "int64", 0, high)


# ------------------------------------------------------------------------------ convolution
def _conv1d(dt):
    return [Sample((arr((1, 2, 5), dt), arr((2, 2, 3), dt), arr((2,), dt)), name="tiny"),
            Sample((arr((2, 3, 9), dt), arr((4, 3, 3), dt), arr((4,), dt)),
                   dict(stride=2, padding=1, dilation=2), name="stride-pad-dil"),
            Sample((arr((2, 4, 8), dt), arr((4, 2, 3), dt)), dict(groups=2, padding="same"),
                   name="groups-same"),
            Sample((noncontig(arr((2, 3, 7), dt)), arr((2, 3, 2), dt)), dict(padding="valid"),
                   name="noncontig-valid")]


def _conv2d(dt):
    return [Sample((arr((1, 2, 4, 4), dt), arr((2, 2, 2, 2), dt), arr((2,), dt)), name="tiny"),
            Sample((arr((2, 3, 7, 6), dt), arr((4, 3, 3, 2), dt), arr((4,), dt)),
                   dict(stride=(2, 1), padding=(1, 2)), name="stride-pad"),
            Sample((arr((2, 4, 6, 6), dt), arr((4, 1, 3, 3), dt)), dict(groups=4, padding="same"),
                   name="depthwise-same"),
            Sample((arr((1, 2, 7, 7), dt), arr((3, 2, 3, 3), dt)), dict(dilation=2, padding=1),
                   name="dilation"),
            Sample((arr((2, 3, 5), dt), arr((2, 3, 2, 2), dt)), name="unbatched")]


def _conv3d(dt):
    return [Sample((arr((1, 1, 3, 3, 3), dt), arr((1, 1, 2, 2, 2), dt), arr((1,), dt)), name="tiny"),
            Sample((arr((2, 2, 5, 4, 4), dt), arr((3, 2, 3, 2, 2), dt), arr((3,), dt)),
                   dict(stride=(1, 2, 1), padding=1), name="stride-pad")]


def _conv_t2d(dt):
    return [Sample((arr((1, 2, 3, 3), dt), arr((2, 1, 2, 2), dt), arr((1,), dt)), name="tiny"),
            Sample((arr((2, 2, 4, 3), dt), arr((2, 3, 3, 3), dt), arr((3,), dt)),
                   dict(stride=2, padding=1, output_padding=1), name="stride-outpad"),
            Sample((arr((1, 4, 3, 3), dt), arr((4, 1, 2, 2), dt)), dict(groups=2, dilation=2),
                   name="groups-dilation")]


def _conv_t1d(dt):
    return [Sample((arr((1, 2, 4), dt), arr((2, 3, 3), dt), arr((3,), dt)), dict(stride=2),
                   name="stride")]


def _conv_errors(dt):
    return [Sample((arr((1, 3, 5, 5), dt), arr((2, 2, 3, 3), dt)), name="channels"),
            Sample((arr((1, 2, 2, 2), dt), arr((2, 2, 3, 3), dt)), name="kernel-too-big")]


# ------------------------------------------------------------------------------ pooling
def _max_pool2d(dt):
    return [Sample((arr((1, 2, 4, 4), dt), 2), name="tiny"),
            Sample((arr((2, 3, 7, 6), dt), 3), dict(stride=2, padding=1), name="pad"),
            Sample((arr((2, 2, 7, 7), dt), 2), dict(stride=2, ceil_mode=True), name="ceil"),
            Sample((arr((1, 2, 8, 8), dt), (2, 3)), dict(dilation=2), name="dilation"),
            Sample((noncontig(arr((3, 6, 5), dt)), 2), name="unbatched-noncontig")]


def _max_pool1d(dt):
    return [Sample((arr((2, 3, 9), dt), 3), dict(stride=2, padding=1, ceil_mode=True))]


def _avg_pool2d(dt):
    return [Sample((arr((1, 2, 4, 4), dt), 2), name="tiny"),
            Sample((arr((2, 3, 7, 6), dt), 3), dict(stride=2, padding=1), name="pad"),
            Sample((arr((2, 3, 7, 6), dt), 3), dict(stride=2, padding=1, count_include_pad=False),
                   name="exclude-pad"),
            Sample((arr((2, 2, 7, 7), dt), 2), dict(ceil_mode=True), name="ceil"),
            Sample((arr((1, 2, 6, 6), dt), 3), dict(divisor_override=4), name="divisor")]


def _adaptive(dt):
    return [Sample((arr((1, 2, 4, 4), dt), 2), name="tiny"),
            Sample((arr((2, 3, 7, 5), dt), (3, 2)), name="uneven"),
            Sample((arr((3, 5, 7), dt), (None, 3)), name="none-unbatched")]


# ------------------------------------------------------------------------------ sampling, padding
def _interp_nearest(dt):
    return [Sample((arr((1, 2, 3, 3), dt),), dict(scale_factor=2), name="tiny"),
            Sample((arr((2, 2, 5, 4), dt),), dict(size=(7, 3)), name="size"),
            Sample((arr((2, 3, 5), dt),), dict(scale_factor=1.5, mode="nearest-exact"), name="exact")]


def _interp_linear(dt):
    return [Sample((arr((1, 2, 3, 3), dt),), dict(scale_factor=2, mode="bilinear"), name="tiny"),
            Sample((arr((2, 2, 5, 4), dt),), dict(size=(7, 3), mode="bilinear", align_corners=True),
                   name="align"),
            Sample((arr((2, 2, 5, 4), dt),), dict(size=(3, 6), mode="bicubic"), name="bicubic"),
            Sample((arr((2, 3, 5), dt),), dict(scale_factor=2.5, mode="linear"), name="linear"),
            Sample((arr((1, 2, 6, 6), dt),), dict(size=(4, 3), mode="area"), name="area"),
            Sample((arr((1, 1, 4, 3), dt),), dict(size=(2, 5), mode="bilinear", antialias=True),
                   name="aa-tiny"),
            Sample((arr((2, 2, 9, 7), dt),), dict(size=(4, 3), mode="bilinear", antialias=True),
                   name="aa-bilinear"),
            Sample((arr((1, 2, 10, 8), dt),), dict(scale_factor=0.4, mode="bicubic", antialias=True),
                   name="aa-bicubic")]


def _pad(dt):
    out = [Sample((arr((1, 2, 3, 3), dt), (1, 2)), name="constant-tiny"),
           Sample((arr((2, 3, 4), dt), (2, 1)), dict(value=1.5), name="constant-value"),
           Sample((arr((2, 2, 3, 4), dt), (1, 1, 2, 0)), name="constant-2d")]
    for mode in ("reflect", "replicate", "circular"):
        out.append(Sample((arr((1, 2, 3, 4), dt), (1, 2, 2, 1)), dict(mode=mode), name=mode))
        out.append(Sample((arr((2, 2, 5), dt), (2, 1)), dict(mode=mode), name=f"{mode}-1d"))
    return out


def _unfold(dt):
    return [Sample((arr((1, 2, 4, 4), dt), 2), name="tiny"),
            Sample((arr((2, 3, 6, 5), dt), (2, 3)), dict(dilation=1, padding=1, stride=2), name="pad")]


def _fold(dt):
    return [Sample((arr((1, 4, 9), dt), (4, 4), 2), name="tiny"),
            Sample((arr((2, 12, 12), dt), (5, 6), (2, 2)), dict(padding=1, stride=2), name="pad")]


def _grid_sample(dt):
    out = []
    for mode in ("bilinear", "nearest", "bicubic"):
        for pm in ("zeros", "border", "reflection"):
            out.append(Sample((arr((1, 2, 4, 5), dt), arr((1, 3, 2, 2), dt, -1.2, 1.2)),
                              dict(mode=mode, padding_mode=pm, align_corners=pm == "border"),
                              name=f"{mode}-{pm}"))
    return out


def _grid_sample_bicubic(dt):
    return [Sample((arr((1, 1, 3, 4), dt), arr((1, 2, 3, 2), dt, -1.3, 1.3)),
                   dict(mode="bicubic", padding_mode=pm, align_corners=al), name=f"{pm}-{al}")
            for pm in ("zeros", "border", "reflection") for al in (False, True)]


# ------------------------------------------------------------------------------ norms, softmax
def _softmax(dt):
    return [Sample((arr((3, 4), dt), 1), name="tiny"), Sample((arr((2, 3, 4), dt), 0), name="dim0"),
            Sample((noncontig(arr((3, 5), dt)), -1), name="noncontig"),
            Sample((arr((2, 3), dt, -1e4, 1e4), 1), name="large")]


def _layer_norm(dt):
    return [Sample((arr((3, 4), dt), (4,), arr((4,), dt), arr((4,), dt)), name="tiny"),
            Sample((arr((2, 3, 4), dt), (3, 4)), name="no-affine"),
            Sample((noncontig(arr((5, 6), dt)), (6,), arr((6,), dt)), dict(eps=1e-3),
                   name="weight-only")]


def _group_norm(dt):
    return [Sample((arr((2, 4, 3), dt), 2, arr((4,), dt), arr((4,), dt)), name="tiny"),
            Sample((arr((2, 6, 3, 2), dt), 3), name="no-affine")]


def _batch_norm_train(lib, x, weight=None, bias=None, momentum=0.1):
    return _F(lib).batch_norm(x, None, None, weight, bias, training=True, momentum=momentum)


def _batch_norm_stats(lib, x, weight=None, bias=None, momentum=0.1):
    """Training batch_norm with running statistics: the updated buffers are outputs too."""
    rm = lib.zeros(x.shape[1], dtype=x.dtype, device=x.device)
    rv = lib.ones(x.shape[1], dtype=x.dtype, device=x.device)
    out = _F(lib).batch_norm(x, rm, rv, weight, bias, training=True, momentum=momentum)
    return out, rm, rv


def _batch_norm(dt):
    return [Sample((arr((4, 3), dt), arr((3,), dt), arr((3,), dt)), name="tiny"),
            Sample((arr((3, 2, 4, 2), dt),), dict(momentum=0.3), name="spatial")]


def _batch_norm_eval(dt):
    return [Sample((arr((4, 3, 2), dt), arr((3,), dt), arr((3,), dt, 0.5, 2)),
                   dict(weight=arr((3,), dt), bias=arr((3,), dt)))]


def _instance_norm(dt):
    return [Sample((arr((2, 3, 5), dt),), dict(weight=arr((3,), dt), bias=arr((3,), dt)))]


def _rms_norm(dt):
    return [Sample((arr((3, 4), dt), (4,), arr((4,), dt)), name="tiny"),
            Sample((arr((2, 3, 4), dt), (3, 4)), dict(eps=1e-3), name="eps")]


def _normalize(dt):
    return [Sample((arr((3, 4), dt),)), Sample((arr((2, 3, 4), dt),), dict(p=1, dim=2))]


# ------------------------------------------------------------------------------ embedding, attention
def _embedding(dt):
    return [Sample((_idx((2, 3), 5), arr((6, 3), dt)), name="tiny"),
            Sample((noncontig(_idx((4, 5), 7)), arr((8, 4), dt)), name="noncontig")]


def _embedding_grad_rules(dt):
    return [Sample((_idx((4, 5), 4), arr((5, 4), dt)), dict(padding_idx=2), name="padding"),
            Sample((_idx((4, 5), 4), arr((5, 4), dt)), dict(padding_idx=-2), name="padding-neg"),
            Sample((_idx((7,), 3), arr((4, 3), dt)), dict(scale_grad_by_freq=True), name="freq")]


def _sdpa(dt):
    q, k, v = arr((1, 2, 3, 2), dt), arr((1, 2, 3, 2), dt), arr((1, 2, 3, 2), dt)
    big = [arr((2, 2, 4, 3), dt), arr((2, 2, 5, 3), dt), arr((2, 2, 5, 4), dt)]
    return [Sample((q, k, v), name="tiny"),
            Sample((arr((2, 2, 4, 3), dt), arr((2, 2, 4, 3), dt), arr((2, 2, 4, 3), dt)),
                   dict(is_causal=True), name="causal"),
            Sample(tuple(big), dict(attn_mask=arr((4, 5), dt)), name="float-mask"),
            Sample(tuple(big), dict(attn_mask=arr((2, 1, 4, 5), "bool") | (np.arange(5) == 0)),
                   name="bool-mask"),
            Sample(tuple(big), dict(scale=0.3), name="scale"),
            Sample((arr((1, 4, 3, 2), dt), arr((1, 2, 3, 2), dt), arr((1, 2, 3, 2), dt)),
                   dict(enable_gqa=True), name="gqa")]


# ------------------------------------------------------------------------------ losses
def _pair_loss(dt):
    return [Sample((arr((3, 4), dt), arr((3, 4), dt)), name="mean"),
            Sample((arr((2, 3), dt), arr((2, 3), dt)), dict(reduction="sum"), name="sum"),
            Sample((arr((2, 3), dt), arr((2, 3), dt)), dict(reduction="none"), name="none")]


def _nll(dt):
    return [Sample((arr((4, 3), dt), _idx((4,), 2)), name="tiny"),
            Sample((arr((5, 4), dt), _idx((5,), 3)), dict(weight=arr((4,), dt, 0.1, 2)), name="weight"),
            Sample((arr((5, 4), dt), _idx((5,), 3)), dict(ignore_index=1, reduction="sum"),
                   name="ignore"),
            Sample((arr((2, 3, 2, 2), dt), _idx((2, 2, 2), 2)), dict(reduction="none"), name="spatial"),
            Sample((arr((3,), dt), _idx((), 2)), name="unbatched")]


def _nll_errors(dt):
    return [Sample((arr((4, 3), dt), _idx((5,), 2)), name="batch"),
            Sample((arr((4, 3), dt), _idx((4, 2), 2)), name="target-dim"),
            Sample((arr((3,), dt), _idx((2,), 2)), name="1d-target-size"),
            Sample((arr((4, 3), dt), _idx((), 2)), name="0d-target"),
            Sample((arr((2, 3, 4), dt), _idx((2, 5), 2)), name="3d-size"),
            Sample((arr((2, 3, 4, 5), dt), _idx((2, 4, 6), 2)), name="4d-size"),
            Sample((arr((2, 3, 4, 5), dt), _idx((2, 4), 2)), name="4d-target-dim"),
            Sample((arr((2, 3, 4, 5), dt), _idx((2, 4, 5), 2)), dict(weight=arr((4,), dt)),
                   name="4d-weight"),
            Sample((arr((4, 3), dt), _idx((4,), 2)), dict(weight=arr((4,), dt)), name="weight"),
            Sample((arr((4, 3), dt), arr((4,), dt)), name="float-target"),
            Sample((arr((4, 3), dt), _idx((4,), 2).astype("int32")), name="int-target"),
            Sample((arr((4, 3), dt), _idx((4,), 2) + 3), name="out-of-bounds")]


def _cross_entropy(dt):
    return [Sample((arr((4, 3), dt), _idx((4,), 2)), name="tiny"),
            Sample((arr((5, 4), dt), _idx((5,), 3)), dict(weight=arr((4,), dt, 0.1, 2),
                                                            label_smoothing=0.2), name="weight-smooth"),
            Sample((arr((5, 4), dt), _idx((5,), 3)), dict(ignore_index=2), name="ignore"),
            Sample((arr((2, 3, 2, 2), dt), _idx((2, 2, 2), 2)), dict(reduction="none"), name="spatial"),
            Sample((arr((3, 4), dt), arr((3, 4), dt, 0, 1)), name="probabilities"),
            Sample((arr((3, 4), dt, -1e4, 1e4), _idx((3,), 3)), name="large-logits")]


def _bce(dt):
    return [Sample((arr((3, 4), dt, 0.05, 0.95), arr((3, 4), dt, 0, 1)), name="tiny"),
            Sample((arr((2, 3), dt, 0.05, 0.95), arr((2, 3), dt, 0, 1)),
                   dict(weight=arr((3,), dt, 0.1, 2), reduction="sum"), name="weight")]


def _bce_logits(dt):
    return [Sample((arr((3, 4), dt), arr((3, 4), dt, 0, 1)), name="tiny"),
            Sample((arr((2, 3), dt, -50, 50), arr((2, 3), dt, 0, 1)),
                   dict(pos_weight=arr((3,), dt, 0.1, 2), weight=arr((3,), dt, 0.1, 2)),
                   name="pos-weight")]


def _kl_div(dt):
    return [Sample((arr((3, 4), dt, -3, -0.1), arr((3, 4), dt, 0.05, 1)), dict(reduction="batchmean")),
            Sample((arr((3, 4), dt, -3, -0.1), arr((3, 4), dt, -3, -0.1)),
                   dict(reduction="sum", log_target=True), name="log-target")]


def _act(dt):
    return [Sample((arr((3, 4), dt),), name="tiny"), Sample((noncontig(arr((2, 3, 4), dt)),),
                                                          name="noncontig")]


def _cosine(dt):
    return [Sample((arr((3, 4), dt), arr((3, 4), dt))), Sample((arr((2, 3, 4), dt), arr((3, 4), dt)),
                                                               dict(dim=-1), name="broadcast")]


def _cdist(dt):
    return [Sample((arr((3, 2), dt), arr((4, 2), dt)), name="p2"),
            Sample((arr((2, 3, 2), dt), arr((2, 4, 2), dt)), dict(p=1.0), name="p1")]


def _rnn(kind):
    """A one-layer ``nn.GRU``/``nn.LSTM`` over (L, N, 3) with its weights as arguments (functional_call),
    so inputs and weights get gradients compared with torch's."""
    def fn(lib, x, w_ih, w_hh, b_ih, b_hh):
        m = getattr(lib.nn, kind)(3, 4)
        params = {"weight_ih_l0": w_ih, "weight_hh_l0": w_hh, "bias_ih_l0": b_ih, "bias_hh_l0": b_hh}
        return lib.func.functional_call(m, params, (x,))[0]
    fn.__name__ = kind
    return fn


def _lstm_cell(lib, x, w_ih, w_hh, b_ih, b_hh):
    """``nn.LSTMCell(3, 4)`` with its weights as arguments: the cell primitives (nn.LSTM runs
    one whole-layer op instead)."""
    m = lib.nn.LSTMCell(3, 4)
    params = {"weight_ih": w_ih, "weight_hh": w_hh, "bias_ih": b_ih, "bias_hh": b_hh}
    return lib.func.functional_call(m, params, (x,))


def _lstm_cell_samples(dt):
    w = (arr((16, 3), dt, -0.5, 0.5), arr((16, 4), dt, -0.5, 0.5), arr((16,), dt, -0.5, 0.5),
         arr((16,), dt, -0.5, 0.5))
    return [Sample((arr((2, 3), dt),) + w, name="batch 2")]


def _rnn_samples(gates):
    def samples(dt):
        w = (arr((gates * 4, 3), dt, -0.5, 0.5), arr((gates * 4, 4), dt, -0.5, 0.5),
             arr((gates * 4,), dt, -0.5, 0.5), arr((gates * 4,), dt, -0.5, 0.5))
        return [Sample((arr((1, 1, 3), dt),) + w, name="one step"), Sample((arr((4, 2, 3), dt),) + w, name="4 steps")]
    return samples


OPS = [
    OpInfo("nn.conv1d", _fn("conv1d"), _conv1d, atol=1e-4, rtol=1e-5),
    OpInfo("nn.conv2d", _fn("conv2d"), _conv2d, atol=1e-4, rtol=1e-5, error_samples=_conv_errors),
    OpInfo("nn.conv3d", _fn("conv3d"), _conv3d, atol=1e-4, rtol=1e-5),
    OpInfo("nn.conv_transpose1d", _fn("conv_transpose1d"), _conv_t1d, atol=1e-4, rtol=1e-5),
    OpInfo("nn.conv_transpose2d", _fn("conv_transpose2d"), _conv_t2d, atol=1e-4, rtol=1e-5),
    OpInfo("nn.max_pool2d", _fn("max_pool2d"), _max_pool2d),
    OpInfo("nn.max_pool2d_with_indices", _fn("max_pool2d", return_indices=True), _max_pool2d),
    OpInfo("nn.max_pool1d_with_indices", _fn("max_pool1d", return_indices=True), _max_pool1d),
    OpInfo("nn.avg_pool2d", _fn("avg_pool2d"), _avg_pool2d),
    OpInfo("nn.adaptive_avg_pool2d", _fn("adaptive_avg_pool2d"), _adaptive),
    OpInfo("nn.adaptive_max_pool2d", _fn("adaptive_max_pool2d", return_indices=True), _adaptive),
    OpInfo("nn.interpolate_nearest", _fn("interpolate"), _interp_nearest),
    OpInfo("nn.interpolate_linear", _fn("interpolate"), _interp_linear, atol=1e-5, rtol=1e-5),
    OpInfo("nn.pad", _fn("pad"), _pad),
    OpInfo("nn.unfold", _fn("unfold"), _unfold),
    OpInfo("nn.fold", _fn("fold"), _fold),
    OpInfo("nn.grid_sample", _fn("grid_sample"), _grid_sample, atol=1e-5, rtol=1e-5,
           grad_atol=1e-3, grad_rtol=1e-3),
    OpInfo("nn.grid_sample_bicubic", _fn("grid_sample"), _grid_sample_bicubic, atol=1e-5,
           rtol=1e-5, grad_atol=1e-3, grad_rtol=1e-3),
    OpInfo("nn.pixel_shuffle", _fn("pixel_shuffle"),
           lambda dt: [Sample((arr((1, 8, 2, 3), dt), 2))]),
    OpInfo("nn.softmax", _fn("softmax"), _softmax, gradgrad=True),
    OpInfo("nn.log_softmax", _fn("log_softmax"), _softmax, gradgrad=True),
    OpInfo("softmax", lambda lib, x, d, dtype=None: lib.softmax(x, d, _dt(lib, dtype)),
           lambda dt: _softmax(dt) + [Sample((arr((2, 3), dt), 0), dict(dtype="float64"), "dtype")]),
    OpInfo("Tensor.log_softmax", lambda lib, x, d, dtype=None: x.log_softmax(d, dtype=_dt(lib, dtype)),
           lambda dt: _softmax(dt) + [Sample((arr((2, 3), dt), 0), dict(dtype="float64"), "dtype")]),
    OpInfo("nn.layer_norm", _fn("layer_norm"), _layer_norm, atol=1e-5, rtol=1e-5),
    OpInfo("nn.group_norm", _fn("group_norm"), _group_norm, atol=1e-5, rtol=1e-5),
    OpInfo("nn.batch_norm_training", _batch_norm_train, _batch_norm, atol=1e-5, rtol=1e-5),
    OpInfo("nn.batch_norm_running_stats", _batch_norm_stats, _batch_norm, atol=1e-5, rtol=1e-5,
           gradcheck=False, notes="the running statistics are outputs without a gradient"),
    OpInfo("nn.batch_norm_eval", _fn("batch_norm"), _batch_norm_eval, atol=1e-5, rtol=1e-5),
    OpInfo("nn.instance_norm", _fn("instance_norm"), _instance_norm, atol=1e-5, rtol=1e-5),
    OpInfo("nn.rms_norm", _fn("rms_norm"), _rms_norm, atol=1e-5, rtol=1e-5),
    OpInfo("nn.normalize", _fn("normalize"), _normalize),
    OpInfo("nn.embedding", _fn("embedding"), _embedding),
    OpInfo("nn.embedding_grad_rules", _fn("embedding"), _embedding_grad_rules, gradcheck=False,
           notes="padding_idx and scale_grad_by_freq change the gradient on purpose: not d/dw"),
    OpInfo("nn.scaled_dot_product_attention", _fn("scaled_dot_product_attention"), _sdpa,
           atol=1e-5, rtol=1e-5),
    OpInfo("nn.nll_loss", _fn("nll_loss"), lambda dt: _nll(dt) + [
        Sample((arr((3,), dt), _idx((1,), 2)), dict(reduction="none"), name="1d-target-1")],
        error_samples=_nll_errors),
    OpInfo("nn.cross_entropy", _fn("cross_entropy"), _cross_entropy, atol=1e-5, rtol=1e-5),
    OpInfo("nn.mse_loss", _fn("mse_loss"), _pair_loss),
    OpInfo("nn.l1_loss", _fn("l1_loss"), _pair_loss),
    OpInfo("nn.smooth_l1_loss", _fn("smooth_l1_loss", beta=0.5), _pair_loss),
    OpInfo("nn.huber_loss", _fn("huber_loss", delta=0.7), _pair_loss),
    OpInfo("nn.binary_cross_entropy", _fn("binary_cross_entropy"), _bce),
    OpInfo("nn.binary_cross_entropy_with_logits", _fn("binary_cross_entropy_with_logits"),
           _bce_logits),
    OpInfo("nn.kl_div", _fn("kl_div"), _kl_div),
    OpInfo("nn.gelu", _fn("gelu"), _act),
    OpInfo("nn.gelu_tanh", _fn("gelu", approximate="tanh"), _act),
    OpInfo("nn.silu", _fn("silu"), _act),
    OpInfo("nn.mish", _fn("mish"), _act),
    OpInfo("nn.hardswish", _fn("hardswish"), _act),
    OpInfo("nn.elu", _fn("elu", alpha=0.7), _act),
    OpInfo("nn.selu", _fn("selu"), _act),
    OpInfo("nn.leaky_relu", _fn("leaky_relu", negative_slope=0.2), _act),
    OpInfo("nn.softplus", _fn("softplus", beta=2.0, threshold=3.0), _act),
    OpInfo("nn.logsigmoid", _fn("logsigmoid"), _act),
    OpInfo("nn.glu", _fn("glu"), _act),
    OpInfo("nn.cosine_similarity", _fn("cosine_similarity"), _cosine),
    OpInfo("nn.pairwise_distance", _fn("pairwise_distance"), lambda dt: [
        Sample((arr((3, 4), dt), arr((3, 4), dt))),
        Sample((arr((2, 3, 4), dt), arr((3, 4), dt)), dict(p=1.0, keepdim=True), name="p1-keepdim")]),
    OpInfo("nn.cdist", lambda lib, a, b, **kw: lib.cdist(a, b, **kw), _cdist, atol=1e-5, rtol=1e-5),
    OpInfo("nn.hardtanh", _fn("hardtanh", min_val=-0.5, max_val=1.0), _act),
    OpInfo("nn.relu6", _fn("relu6"), lambda dt: [Sample((arr((3, 4), dt, -2, 8),), name="tiny")]),
    OpInfo("nn.max_pool3d", _fn("max_pool3d", return_indices=True),
           lambda dt: [Sample((arr((1, 2, 4, 4, 4), dt), 2), name="tiny"),
                       Sample((arr((1, 1, 5, 4, 5), dt), 3), dict(stride=2, padding=1), name="pad")]),
    OpInfo("nn.avg_pool3d", _fn("avg_pool3d"),
           lambda dt: [Sample((arr((1, 2, 4, 4, 4), dt), 2), name="tiny"),
                       Sample((arr((1, 1, 5, 4, 5), dt), 3), dict(stride=2, padding=1), name="pad")]),
    OpInfo("nn.adaptive_avg_pool3d", _fn("adaptive_avg_pool3d"),
           lambda dt: [Sample((arr((1, 2, 4, 5, 3), dt), (2, 3, 2)), name="uneven")]),
    OpInfo("nn.adaptive_max_pool3d", _fn("adaptive_max_pool3d", return_indices=True),
           lambda dt: [Sample((arr((1, 2, 4, 5, 3), dt), (2, 3, 2)), name="uneven")]),
    OpInfo("nn.GRU", _rnn("GRU"), _rnn_samples(3), atol=1e-5, rtol=1e-5, skip_checks=("meta",),
           notes="a module call: the meta device does not carry nn.GRU's fused cell path"),
    OpInfo("nn.LSTM", _rnn("LSTM"), _rnn_samples(4), atol=1e-5, rtol=1e-5, skip_checks=("meta",),
           notes="a module call: the meta device does not carry nn.LSTM's fused cell path"),
    OpInfo("nn.LSTMCell", _lstm_cell, _lstm_cell_samples, atol=1e-5, rtol=1e-5),
]
