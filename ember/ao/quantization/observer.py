"""Observers: modules that watch tensors go by and pick quantization parameters (torch.ao's names).

An observer's ``forward(x)`` records statistics (running min/max, a histogram) and returns ``x``
unchanged; ``calculate_qparams()`` returns ``(scale, zero_point)`` tensors (shape ``(1,)`` per tensor,
``(C,)`` per channel) computed in float32 as torch does.

Example:
    >>> import ember
    >>> obs = MinMaxObserver()
    >>> _ = obs(ember.tensor([-1.0, 2.0]))
    >>> [t.tolist() for t in obs.calculate_qparams()]
    [[0.0117647061124444], [85]]
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from ... import _dtype as D
from ..._creation import tensor, zeros
from ..._quantized.qparams import observer_qparams
from ..._quantized.tensor import (per_channel_affine, per_channel_affine_float_qparams,
                                  per_channel_symmetric, per_tensor_affine, per_tensor_symmetric)
from ...nn.modules.module import Module

__all__ = ["ObserverBase", "UniformQuantizationObserverBase", "MinMaxObserver",
           "MovingAverageMinMaxObserver", "PerChannelMinMaxObserver", "HistogramObserver",
           "MovingAveragePerChannelMinMaxObserver", "PlaceholderObserver", "NoopObserver",
           "ReuseInputObserver", "FixedQParamsObserver", "RecordingObserver", "default_observer",
           "default_weight_observer", "default_per_channel_weight_observer", "default_placeholder_observer",
           "default_dynamic_quant_observer", "default_reuse_input_observer", "default_float_qparams_observer", "default_debug_observer",
           "weight_observer_range_neg_127_to_127", "per_channel_weight_observer_range_neg_127_to_127",
           "default_fixed_qparams_range_0to1_observer", "default_fixed_qparams_range_neg1to1_observer",
           "get_observer_state_dict", "load_observer_state_dict"]

_EPS = float(np.finfo(np.float32).eps)


class _AdoptSavedShapes:
    """Mixin: on load, the buffers named in ``_adopt_shapes`` first become copies of the saved tensors,
    so per-channel values of any length load into a module made with empty ones."""

    _adopt_shapes: tuple = ()

    def _load_from_state_dict(self, state_dict, prefix, *args):
        for name in self._adopt_shapes:
            if prefix + name in state_dict:
                setattr(self, name, state_dict[prefix + name].detach().clone())
        super()._load_from_state_dict(state_dict, prefix, *args)


class _PartialWrapper:
    """``Observer.with_args(...)``: a factory that remembers its arguments (prints as torch's)."""

    def __init__(self, p):
        self.p = p
        self.callable_args = {}

    def __call__(self, *args, **keywords):
        for k, fn in self.callable_args.items():
            keywords[k] = fn()
        return self.p(*args, **keywords)

    def __repr__(self):
        return self.p.__repr__() + self.callable_args.__repr__()

    def with_args(self, **kwargs):
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs):
        r = _PartialWrapper(self.p)
        r.callable_args = {**self.callable_args, **kwargs}
        return r


def _with_args(cls_or_self, **kwargs):
    return _PartialWrapper(functools.partial(cls_or_self, **kwargs))


def _qrange(dtype, reduce_range: bool, quant_min, quant_max) -> tuple:
    if quant_min is not None and quant_max is not None:
        if not quant_min <= 0 <= quant_max:
            raise AssertionError("Used-specified quantization range must include 0.")
        if quant_min >= quant_max:
            raise AssertionError("qmin must be strictly less than qmax for user-specified "
                                 "quantization range.")
        if reduce_range:  # torch halves a user-given range too
            return int(quant_min) // 2, int(quant_max) // 2
        return int(quant_min), int(quant_max)
    ranges = {D.qint8: (-128, 127), D.int8: (-128, 127), D.quint8: (0, 255), D.uint8: (0, 255),
              D.qint32: (-2 ** 31, 2 ** 31 - 1), D.int32: (-2 ** 31, 2 ** 31 - 1), D.int16: (-32768, 32767)}
    lo, hi = ranges.get(dtype, (0, 255))
    if reduce_range and dtype in (D.qint8, D.int8, D.quint8, D.uint8):
        lo, hi = (-64, 63) if lo < 0 else (0, 127)
    return lo, hi


class ObserverBase(Module):
    """Base of every observer: holds ``dtype`` and ``is_dynamic``; subclasses define forward."""

    with_args = classmethod(_with_args)

    def __init__(self, dtype, is_dynamic: bool = False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    @classmethod
    def with_callable_args(cls, **kwargs):
        return _PartialWrapper(functools.partial(cls)).with_callable_args(**kwargs)


class UniformQuantizationObserverBase(ObserverBase):
    """Observers with an affine or symmetric scheme, a quantized range and ``eps``."""

    _version = 3  # torch's state_dict version (older ones named per-channel stats min_vals/max_vals)

    def __init__(self, dtype=D.quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        super().__init__(dtype, is_dynamic)
        self.qscheme = qscheme
        if reduce_range and qscheme in (per_tensor_symmetric, per_channel_symmetric) and \
                dtype is D.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")
        self.reduce_range = reduce_range
        self.register_buffer("eps", tensor([eps], dtype=D.float32))
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        self.quant_min, self.quant_max = _qrange(dtype, reduce_range, quant_min, quant_max)

    def _calculate_qparams(self, min_val, max_val):
        mn, mx = np.asarray(min_val._data, np.float32), np.asarray(max_val._data, np.float32)
        if mn.ndim == 0 and (np.isinf(mn) or np.isinf(mx)):
            warnings.warn("must run observer before calling calculate_qparams. Returning default "
                          "values.")
            return tensor([1.0]), tensor([0])
        symmetric = self.qscheme in (per_tensor_symmetric, per_channel_symmetric)
        unsigned = self.dtype in (D.quint8, D.uint8)
        scale, zp = observer_qparams(mn, mx, self.quant_min, self.quant_max, symmetric, unsigned,
                                     float(self.eps._data[0]))
        if self.qscheme is per_channel_affine_float_qparams:
            scale = np.where(mx - mn > float(self.eps._data[0]), (mx - mn) / np.float32(
                self.quant_max - self.quant_min), np.float32(1.0)).astype(np.float32)
            zp = (-mn / scale).astype(np.float32)
            return tensor(scale.reshape(-1)), tensor(zp.reshape(-1))
        # torch: affine zero points are int32, symmetric ones int64
        return tensor(scale.reshape(-1)), tensor(zp.reshape(-1), dtype=D.int64 if symmetric else D.int32)

    def reset_min_max_vals(self):
        self.min_val = tensor(float("inf"))
        self.max_val = tensor(float("-inf"))


class MinMaxObserver(UniformQuantizationObserverBase):
    """Tracks the running minimum and maximum of every tensor it sees."""

    def __init__(self, dtype=D.quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps,
                         is_dynamic=is_dynamic, **kwargs)
        self.register_buffer("min_val", tensor(float("inf")))
        self.register_buffer("max_val", tensor(float("-inf")))

    def _observed_range(self, x):
        a = x.detach()._data.astype(np.float32, copy=False)
        return np.float32(a.min()), np.float32(a.max())

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        mn, mx = self._observed_range(x_orig)
        self.min_val = tensor(min(mn, float(self.min_val._data)), dtype=D.float32)
        self.max_val = tensor(max(mx, float(self.max_val._data)), dtype=D.float32)
        return x_orig

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={float(self.min_val._data)}, max_val={float(self.max_val._data)}"


class MovingAverageMinMaxObserver(MinMaxObserver):
    """min/max as exponential moving averages: ``m += averaging_constant * (new - m)``."""

    def __init__(self, averaging_constant=0.01, dtype=D.quint8, qscheme=per_tensor_affine,
                 reduce_range=False, quant_min=None, quant_max=None, eps=_EPS, is_dynamic=False,
                 **kwargs):
        self.averaging_constant = averaging_constant
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        mn, mx = self._observed_range(x_orig)
        old_mn, old_mx = np.float32(self.min_val._data), np.float32(self.max_val._data)
        if np.isinf(old_mn) and np.isinf(old_mx):
            new_mn, new_mx = mn, mx
        else:
            c = np.float32(self.averaging_constant)
            new_mn = np.float32(old_mn + c * (mn - old_mn))
            new_mx = np.float32(old_mx + c * (mx - old_mx))
        self.min_val = tensor(float(new_mn), dtype=D.float32)
        self.max_val = tensor(float(new_mx), dtype=D.float32)
        return x_orig


class PerChannelMinMaxObserver(_AdoptSavedShapes, UniformQuantizationObserverBase):
    """Running min/max per index of dimension ``ch_axis`` (weights: one scale per output channel)."""

    _adopt_shapes = ("min_val", "max_val")  # per-channel values take the saved shape

    def __init__(self, ch_axis=0, dtype=D.quint8, qscheme=per_channel_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False,
                 **kwargs):
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps,
                         is_dynamic=is_dynamic, **kwargs)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", tensor([]))
        self.register_buffer("max_val", tensor([]))

    def _channel_range(self, x):
        a = x.detach()._data.astype(np.float32, copy=False)
        a = np.moveaxis(a, self.ch_axis, 0).reshape(a.shape[self.ch_axis], -1)
        return a.min(axis=1), a.max(axis=1)

    def _update(self, mn, mx):
        if self.min_val.numel() == 0 or self.max_val.numel() == 0:
            return mn, mx
        return np.minimum(self.min_val._data, mn), np.maximum(self.max_val._data, mx)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        mn, mx = self._update(*self._channel_range(x_orig))
        self.min_val = tensor(mn.astype(np.float32))
        self.max_val = tensor(mx.astype(np.float32))
        return x_orig

    def calculate_qparams(self):
        if self.min_val.numel() == 0:
            warnings.warn("must run observer before calling calculate_qparams. Returning default "
                          "values.")
            return tensor([1.0]), tensor([0], dtype=D.int32)
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        self.min_val = tensor([])
        self.max_val = tensor([])


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """Per-channel min/max as exponential moving averages."""

    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=D.quint8,
                 qscheme=per_channel_affine, reduce_range=False, quant_min=None, quant_max=None,
                 eps=_EPS, is_dynamic=False, **kwargs):
        super().__init__(ch_axis=ch_axis, dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        self.averaging_constant = averaging_constant

    def _update(self, mn, mx):
        if self.min_val.numel() == 0 or self.max_val.numel() == 0:
            return mn, mx
        c = np.float32(self.averaging_constant)
        old_mn, old_mx = self.min_val._data, self.max_val._data
        return old_mn + c * (mn - old_mn), old_mx + c * (mx - old_mx)


class PlaceholderObserver(ObserverBase):
    """Records nothing; marks a dtype (float16, dynamic quint8 activations) for convert."""

    def __init__(self, dtype=D.float32, custom_op_name="", compute_dtype=None, quant_min=None,
                 quant_max=None, qscheme=None, eps=None, is_dynamic=False):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        self.qscheme = per_tensor_affine if qscheme is None else qscheme
        self.quant_min, self.quant_max, self.eps = quant_min, quant_max, eps
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def extra_repr(self):
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")


class RecordingObserver(ObserverBase):
    """Keeps every tensor it sees in ``tensor_val`` (debugging)."""

    def __init__(self, dtype=D.quint8):
        super().__init__(dtype=dtype, is_dynamic=False)
        self.tensor_val = []

    def forward(self, x):
        self.tensor_val.append(x.clone())
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for RecordingObserver")

    def get_tensor_value(self):
        return self.tensor_val


class NoopObserver(ObserverBase):
    """Passes tensors through; says the op keeps float16 (or this dtype) without statistics."""

    def __init__(self, dtype=D.float16, custom_op_name=""):
        super().__init__(dtype=dtype, is_dynamic=False)
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for NoopObserver")


class ReuseInputObserver(ObserverBase):
    """The output shares the input's observer (reshape-like ops)."""

    def __init__(self):
        super().__init__(D.quint8, is_dynamic=False)

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for ReuseInputObserver")


class FixedQParamsObserver(ObserverBase):
    """Fixed (scale, zero_point) for ops with a known output range (sigmoid, tanh, hardsigmoid)."""

    def __init__(self, scale, zero_point, dtype=D.quint8, qscheme=per_tensor_affine, quant_min=0,
                 quant_max=255, is_dynamic=False, **kwargs):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        self.quant_min, self.quant_max = quant_min, quant_max
        self.register_buffer("scale", tensor([scale], dtype=D.float32))
        self.register_buffer("zero_point", tensor([zero_point], dtype=D.int32))
        self.qscheme = qscheme

    def forward(self, X):
        return X

    def calculate_qparams(self):
        return self.scale, self.zero_point


# ------------------------------------------------------------------------------ HistogramObserver
# A running histogram over [min, max] in ``bins`` bins. calculate_qparams narrows the range bin by bin
# from whichever side holds less mass (steps of 1e-5 of the total), estimating the squared error of
# quantizing the histogram's piecewise-uniform density into 2**bits levels, and keeps the narrowest
# range before the error grows; the qparams are the min/max ones of that range.
_BITS = {D.quint8: 8, D.qint8: 8, D.uint8: 8, D.int8: 8, D.qint32: 32, D.int32: 32}


class HistogramObserver(UniformQuantizationObserverBase):
    """Picks qparams minimising the L2 error over a histogram of everything observed."""

    def __init__(self, bins: int = 2048, dtype=D.quint8, qscheme=per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False,
                 **kwargs):
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps,
                         is_dynamic=is_dynamic)
        self.bins = bins
        self.register_buffer("histogram", zeros(bins))
        self.register_buffer("min_val", tensor(float("inf")))
        self.register_buffer("max_val", tensor(float("-inf")))
        self.dst_nbins = 2 ** _BITS.get(dtype, 8)
        self.upsample_rate = 16

    # ------------------------------------------------------------------ observing
    def _histc(self, a, lo, hi):
        h, _ = np.histogram(a, bins=self.bins, range=(float(lo), float(hi)) if hi > lo else
                            (float(lo), float(lo) + 1e-30))
        return h.astype(np.float32)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        a = x_orig.detach()._data.astype(np.float32, copy=False)
        x_min, x_max = np.float32(a.min()), np.float32(a.max())
        mn, mx = np.float32(self.min_val._data), np.float32(self.max_val._data)
        if np.isinf(mn) or np.isinf(mx) or mn == mx:
            new_min, new_max = x_min, x_max
            hist = self._histc(a, x_min, x_max)
        else:
            new_min, new_max = min(x_min, mn), max(x_max, mx)
            hist = self._histc(a, new_min, new_max)
            hist += self._rebin(self.histogram._data.astype(np.float64), mn, mx, new_min, new_max)
        self.histogram = tensor(hist.astype(np.float32))
        self.min_val = tensor(float(new_min), dtype=D.float32)
        self.max_val = tensor(float(new_max), dtype=D.float32)
        return x_orig

    def _rebin(self, hist, old_min, old_max, new_min, new_max):
        """Spread each old bin's count uniformly over the new bins it overlaps."""
        if new_min == old_min and new_max == old_max:
            return hist.astype(np.float32)
        old_edges = np.linspace(float(old_min), float(old_max), self.bins + 1)
        new_edges = np.linspace(float(new_min), float(new_max), self.bins + 1)
        cum_old = np.concatenate([[0.0], np.cumsum(hist)])
        cum_at_new = np.interp(new_edges, old_edges, cum_old)
        return np.diff(cum_at_new).astype(np.float32)

    # ------------------------------------------------------------------ the search
    def _quantization_error(self, start_bin: int, end_bin: int) -> float:
        bins = self.bins
        bin_width = (self._max - self._min) / bins
        dst_nbins = self.dst_nbins
        dst_w = bin_width * (end_bin - start_bin + 1) / dst_nbins
        if dst_w == 0.0:
            return 0.0
        src = np.arange(bins, dtype=np.float32)
        begin = (src - start_bin) * bin_width
        end = begin + bin_width
        dst_begin = np.clip(np.floor(begin / dst_w), 0, dst_nbins - 1)
        dst_end = np.clip(np.floor(end / dst_w), 0, dst_nbins - 1)
        density = self._hist / bin_width
        half = dst_w / 2

        def norm(d_begin, d_end):
            return density * ((d_end * d_end * d_end - d_begin * d_begin * d_begin) / 3)

        total = norm(begin - (dst_begin + 0.5) * dst_w, np.full(bins, half, np.float32))
        total = total + (dst_end - dst_begin - 1) * norm(np.float32(-half), np.float32(half))
        total = total + norm(np.float32(-half), end - (dst_end * dst_w + half))
        return float(total.astype(np.float32).sum(dtype=np.float32))

    def _non_linear_param_search(self):
        hist = self._hist
        total = float(hist.sum(dtype=np.float32))
        csum = np.cumsum(hist, dtype=np.float32)
        stepsize = 1e-5
        alpha, beta = 0.0, 1.0
        start_bin, end_bin = 0, self.bins - 1
        norm_min = float("inf")
        while alpha < beta:
            next_alpha, next_beta = alpha + stepsize, beta - stepsize
            l, r = start_bin, end_bin
            while l < end_bin and csum[l] < next_alpha * total:
                l += 1
            while r > start_bin and csum[r] > next_beta * total:
                r -= 1
            next_start, next_end = start_bin, end_bin
            if (l - start_bin) > (end_bin - r):
                next_start, alpha = l, next_alpha
            else:
                next_end, beta = r, next_beta
            if next_start == start_bin and next_end == end_bin:
                continue
            norm = self._quantization_error(next_start, next_end)
            if norm > norm_min:
                break
            norm_min, start_bin, end_bin = norm, next_start, next_end
        bin_width = (self._max - self._min) / self.bins
        return self._min + bin_width * start_bin, self._min + bin_width * (end_bin + 1)

    def calculate_qparams(self):
        mn, mx = np.float32(self.min_val._data), np.float32(self.max_val._data)
        if np.isinf(mn) and np.isinf(mx):
            return self._calculate_qparams(self.min_val, self.max_val)
        if mn == mx:
            return self._calculate_qparams(self.min_val, self.max_val)
        self._min, self._max = np.float32(mn), np.float32(mx)
        self._hist = self.histogram._data.astype(np.float32)
        new_min, new_max = self._non_linear_param_search()
        return self._calculate_qparams(tensor(float(np.float32(new_min))),
                                       tensor(float(np.float32(new_max))))

    def extra_repr(self):
        return f"min_val={float(self.min_val._data)}, max_val={float(self.max_val._data)}"


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_debug_observer = RecordingObserver
default_weight_observer = MinMaxObserver.with_args(dtype=D.qint8, qscheme=per_tensor_symmetric)
weight_observer_range_neg_127_to_127 = MinMaxObserver.with_args(
    dtype=D.qint8, qscheme=per_tensor_symmetric, quant_min=-127, quant_max=127, eps=2 ** -12)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(
    dtype=D.qint8, qscheme=per_channel_symmetric)
per_channel_weight_observer_range_neg_127_to_127 = PerChannelMinMaxObserver.with_args(
    dtype=D.qint8, qscheme=per_channel_symmetric, quant_min=-127, quant_max=127, eps=2 ** -12)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(
    dtype=D.quint8, qscheme=per_channel_affine_float_qparams, ch_axis=0)
default_dynamic_quant_observer = PlaceholderObserver.with_args(
    dtype=D.quint8, quant_min=0, quant_max=255, is_dynamic=True)
default_reuse_input_observer = ReuseInputObserver
default_fixed_qparams_range_neg1to1_observer = FixedQParamsObserver.with_args(
    scale=2.0 / 256.0, zero_point=128, dtype=D.quint8, quant_min=0, quant_max=255)
default_fixed_qparams_range_0to1_observer = FixedQParamsObserver.with_args(
    scale=1.0 / 256.0, zero_point=0, dtype=D.quint8, quant_min=0, quant_max=255)


def get_observer_state_dict(mod):
    """Every observer/fake-quant entry of ``mod``'s state_dict."""
    from collections import OrderedDict
    return OrderedDict((k, v) for k, v in mod.state_dict().items()
                       if "activation_post_process" in k or "observer" in k or "fake_quant" in k)


def load_observer_state_dict(mod, obs_dict):
    """Load observer entries saved by ``get_observer_state_dict``."""
    missing = mod.load_state_dict(obs_dict, strict=False)
    unexpected = [k for k in missing.missing_keys if "activation_post_process" in k]
    if unexpected:
        raise Exception(f"Missing keys for observer in state dict: {unexpected}")
