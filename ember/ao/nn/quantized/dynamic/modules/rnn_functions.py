"""torch's functional quantized RNNs (``torch.quantized_lstm``/``quantized_gru`` and the four
``quantized_*_cell`` functions), on ember's dynamic int8 kernels (layer L6).

- ``quantized_lstm`` / ``quantized_gru`` take one cell-parameter object per layer and direction:
  ember's are the ``(w_ih, w_hh, b_ih, b_hh)`` tuples its dynamic ``LSTM``/``GRU`` keep in
  ``_all_weight_values[k].param`` (torch's are TorchScript ``CellParamsBase`` objects). A list of
  plain tensors (torch's legacy form) raises torch's "no longer supported" error.
- The cells take int8 weight matrices with their scale and zero point (what
  ``fbgemm_linear_quantize_weight`` returns) and float biases; activations are quantized per call
  from their range over the full uint8 range, as torch's fbgemm path does. ``packed_*`` and
  ``col_offsets_*`` (fbgemm's opaque prepacked forms) are accepted and not read.

Example:
    >>> import ember
    >>> w = ember.ones(3, 2, dtype=ember.int8)
    >>> h = quantized_rnn_relu_cell(ember.ones(1, 2), ember.zeros(1, 3), w, w.new_zeros(3, 3),
    ...                             ember.zeros(3), ember.zeros(3), None, None, None, None,
    ...                             0.5, 0.5, 0, 0)
    >>> h.tolist()
    [[1.0, 1.0, 1.0]]
"""
from __future__ import annotations

import numpy as np

from ...... import _dtype as D
from ......_dispatch import wrap
from ......_quantized.kernels import packed_weight
from ......_quantized.tensor import quantize_per_tensor
from ......nn.modules.container import ModuleList
from .rnn import GRU, LSTM, PackedParameter

__all__ = ["quantized_lstm", "quantized_gru", "quantized_lstm_cell", "quantized_gru_cell",
           "quantized_rnn_relu_cell", "quantized_rnn_tanh_cell"]


def _check_params(name, params):
    if any(hasattr(p, "_data") for p in params):  # a Tensor: torch's legacy List[Tensor] form
        raise RuntimeError(f"torch.{name} with List[Tensor] for parameters is no longer supported. "
                           f"Please re-export your model using the newer definitions in "
                           f"torch.jit.quantized")


def _run(cls, name, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):
    params = list(params)
    _check_params(name, params)
    w_ih, w_hh = params[0][0], params[0][1]
    hidden = w_hh.shape[1]
    mod = cls(w_ih.shape[1], hidden, num_layers, has_biases, batch_first, dropout, bidirectional)
    mod._all_weight_values = ModuleList([PackedParameter(tuple(p)) for p in params])
    mod.train(train)
    return mod(input, hx)


def quantized_lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first, *, dtype=None, use_dynamic=False):
    """Dynamic quantized LSTM over ``input`` (T, B, I) (``(B, T, I)`` with ``batch_first``) from
    ``hx = [h0, c0]`` (each (D * num_layers, B, H)); returns ``(output, h_n, c_n)``."""
    out, (h, c) = _run(LSTM, "quantized_lstm", input, tuple(hx), params, has_biases, num_layers,
                       dropout, train, bidirectional, batch_first)
    return out, h, c


def quantized_gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                  batch_first):
    """Dynamic quantized GRU over ``input`` from ``hx`` (D * num_layers, B, H); returns
    ``(output, h_n)``."""
    return _run(GRU, "quantized_gru", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)


def _linear(x, w, b, scale, zero_point):
    """fbgemm's int8-weight linear: ``x`` quantized from its range (uint8), exact int GEMM, float
    epilogue with the bias; float32 (N, M)."""
    q = quantize_per_tensor(wrap((w._data.astype(np.float32) - float(zero_point)) * np.float32(scale)),
                            float(scale), int(zero_point), D.qint8)
    bias = None if b is None else b._data.astype(np.float64)
    return packed_weight(q).dynamic_linear(np.ascontiguousarray(x._data, np.float32), False, bias)


def _gates(input, h, w_ih, w_hh, b_ih, b_hh, scale_ih, scale_hh, zero_point_ih, zero_point_hh):
    return (_linear(input, w_ih, b_ih, scale_ih, zero_point_ih),
            _linear(h, w_hh, b_hh, scale_hh, zero_point_hh))


def _sigmoid(v):
    return (1.0 / (1.0 + np.exp(-v))).astype(np.float32)


def quantized_rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh, packed_ih, packed_hh,
                            col_offsets_ih, col_offsets_hh, scale_ih, scale_hh, zero_point_ih,
                            zero_point_hh):
    """``tanh(input @ W_ih^T + b_ih + hx @ W_hh^T + b_hh)`` with int8 weights; (B, H)."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh, scale_ih, scale_hh, zero_point_ih, zero_point_hh)
    return wrap(np.tanh(gi + gh).astype(np.float32))


def quantized_rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh, packed_ih, packed_hh,
                            col_offsets_ih, col_offsets_hh, scale_ih, scale_hh, zero_point_ih,
                            zero_point_hh):
    """``relu(input @ W_ih^T + b_ih + hx @ W_hh^T + b_hh)`` with int8 weights; (B, H)."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh, scale_ih, scale_hh, zero_point_ih, zero_point_hh)
    return wrap(np.maximum(gi + gh, 0).astype(np.float32))


def quantized_lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh, packed_ih, packed_hh, col_offsets_ih,
                        col_offsets_hh, scale_ih, scale_hh, zero_point_ih, zero_point_hh):
    """One LSTM step (gates i, f, g, o) with int8 weights from ``hx = [h, c]``; returns ``(h', c')``."""
    h, c = hx
    gi, gh = _gates(input, h, w_ih, w_hh, b_ih, b_hh, scale_ih, scale_hh, zero_point_ih, zero_point_hh)
    i, f, g, o = np.split(gi + gh, 4, axis=1)
    c_new = (_sigmoid(f) * c._data + _sigmoid(i) * np.tanh(g)).astype(np.float32)
    return wrap((_sigmoid(o) * np.tanh(c_new)).astype(np.float32)), wrap(c_new)


def quantized_gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh, packed_ih, packed_hh, col_offsets_ih,
                       col_offsets_hh, scale_ih, scale_hh, zero_point_ih, zero_point_hh):
    """One GRU step (gates r, z, n) with int8 weights; (B, H)."""
    gi, gh = _gates(input, hx, w_ih, w_hh, b_ih, b_hh, scale_ih, scale_hh, zero_point_ih, zero_point_hh)
    ir, iz, in_ = np.split(gi, 3, axis=1)
    hr, hz, hn = np.split(gh, 3, axis=1)
    r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
    n = np.tanh(in_ + r * hn)
    return wrap(((1 - z) * n + z * hx._data).astype(np.float32))
