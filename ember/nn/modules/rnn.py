"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their cells (layer L4).

Parameter names, shapes and gate orders are torch's (LSTM gates ``i, f, g, o``; GRU ``r, z, n``), so
state dicts move between the two. Each layer projects the whole input sequence with one matmul, then
runs one ``(B, H) @ (H, G)`` matmul per time step; the LSTM/GRU gate maths of a step is one fused
primitive (``ember/_primitives/rnn_ops.py``).

Example:
    >>> import ember
    >>> lstm = LSTM(4, 8, num_layers=2, batch_first=True)
    >>> out, (h, c) = lstm(ember.randn(3, 5, 4))
    >>> out.shape, h.shape
    (torch.Size([3, 5, 8]), torch.Size([2, 3, 8]))
"""
from __future__ import annotations

import math
import numbers
import warnings

from ..._creation import empty, zeros
from ... import _dtype as _D
from ..._dispatch import MODES, dispatch
from ..._tensor_methods.shape_copy import cat, stack
from ..._primitives import rnn_ops as R
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._packed_sequence import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_LAYER_DTYPES = (_D.float32, _D.float64)
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _apply_permutation(tensor, permutation, dim: int = 1):
    return tensor.index_select(dim, permutation)


# ------------------------------------------------------------------------------ recurrences
def _whole_layer(x, w, h0, c0) -> bool:
    """Whether a layer runs as one ``lstm_layer`` op: float32/float64 cpu data, and no graph capture
    (``aten_graph`` modes: their graphs hold aten ops, as for ``F.cross_entropy``'s fused op) nor
    autocast (which casts the per-step products) active. Meta tracing keeps the per-step ops too."""
    if MODES.stack and any(getattr(m, "aten_graph", False) or getattr(m, "casts_whole_matmul", False)
                           for m in MODES.stack):
        return False
    dt = x._dtype
    return x._data is not None and dt in _LAYER_DTYPES and w._dtype is dt and h0._dtype is dt \
        and c0._dtype is dt  # anything else keeps the per-step ops and their errors


def _lstm_step(xg, h, c, w_hh, w_hr, hidden):
    gates = xg.addmm(h, w_hh.t())  # shape: (B, 4H); both biases are folded into xg
    # one fused kernel for the gate maths; its backward fills one (B, 4H) gradient buffer
    h, c, _ = dispatch(R.lstm_cell_pointwise, gates, c)
    if w_hr is not None:
        h = h.matmul(w_hr.t())
    return h, c


def _gru_step(xg, h, w_hh, b_hh, hidden):
    hg = F.linear(h, w_hh, b_hh)  # shape: (B, 3H); b_hh stays inside r * (W_hn h + b_hn)
    return dispatch(R.gru_cell_pointwise, xg, hg, h)[0]


def _run_direction(mode, steps, batch_sizes, h0, c0, weights, hidden, reverse):
    """One layer in one direction over per-step projected inputs ``steps`` (``(b_t, G)`` each).

    ``batch_sizes`` is None for a full batch, else the packed batch sizes (non-increasing). Returns
    ``(per-step outputs, h_n, c_n)``.
    """
    w_hh, b_hh, w_hr = weights
    n = len(steps)
    order = range(n - 1, -1, -1) if reverse else range(n)
    h, c = h0, c0
    if batch_sizes is not None and reverse:
        h = h0[:batch_sizes[-1]]
        c = c0[:batch_sizes[-1]] if c0 is not None else None
    finished_h, finished_c = [], []
    outs = [None] * n
    for t in order:
        if batch_sizes is not None:
            b, cur = batch_sizes[t], h.shape[0]
            if b < cur:  # forward: sequences that ended keep their last state
                finished_h.append(h[b:])
                h = h[:b]
                if c is not None:
                    finished_c.append(c[b:])
                    c = c[:b]
            elif b > cur:  # reverse: sequences that start now begin from the initial state
                h = cat([h, h0[cur:b]])
                if c is not None:
                    c = cat([c, c0[cur:b]])
        xg = steps[t]
        if mode == "LSTM":
            h, c = _lstm_step(xg, h, c, w_hh, w_hr, hidden)
        elif mode == "GRU":
            h = _gru_step(xg, h, w_hh, b_hh, hidden)
        else:
            pre = xg + h.matmul(w_hh.t())
            h = pre.tanh() if mode == "RNN_TANH" else pre.relu()
        outs[t] = h
    if finished_h:
        h = cat([h] + finished_h[::-1])
        if c is not None:
            c = cat([c] + finished_c[::-1])
    return outs, h, c


class RNNBase(Module):
    """Shared parameters, checks and the layer/direction loop of ``RNN``, ``LSTM`` and ``GRU``."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        gate_size = _GATES[mode] * hidden_size
        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                params = [Parameter(empty((gate_size, layer_input), **kw)),
                          Parameter(empty((gate_size, real_hidden), **kw))]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    params += [Parameter(empty(gate_size, **kw)), Parameter(empty(gate_size, **kw))]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    params.append(Parameter(empty((proj_size, hidden_size), **kw)))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [x.format(layer, suffix) for x in names]
                for name, param in zip(names, params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, w) for w in weights] for weights in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op kept for torch compatibility (there is no cuDNN weight buffer to compact)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def __setstate__(self, d):
        super().__setstate__(d)
        if "proj_size" not in d:
            self.proj_size = 0

    # -------------------------------------------------------------------- checks
    def check_input(self, input, batch_sizes) -> None:
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes) -> tuple:
        mini_batch = int(batch_sizes[0]) if batch_sizes is not None else \
            input.size(0 if self.batch_first else 1)
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, real_hidden)

    def check_hidden_size(self, hx, expected, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected):
            raise RuntimeError(msg.format(tuple(expected), list(hx.size())))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    # -------------------------------------------------------------------- the recurrence
    def _run(self, input, batch_sizes, h0, c0):
        """All layers and directions: input ``(T, B, I)`` (or packed data ``(N, I)``); states
        ``(L * D, B, H)``. Returns ``(output, h_n, c_n)``."""
        num_directions = 2 if self.bidirectional else 1
        bs = [int(b) for b in batch_sizes.tolist()] if batch_sizes is not None else None
        hidden = self.hidden_size
        fold_bias = self.mode != "GRU"  # GRU's b_hh sits inside r * (W_hn h + b_hn)
        layer_in = input
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            dir_outs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                suffix = "_reverse" if direction == 1 else ""
                w_ih = getattr(self, f"weight_ih_l{layer}{suffix}")
                w_hh = getattr(self, f"weight_hh_l{layer}{suffix}")
                b_ih = getattr(self, f"bias_ih_l{layer}{suffix}", None) if self.bias else None
                b_hh = getattr(self, f"bias_hh_l{layer}{suffix}", None) if self.bias else None
                w_hr = getattr(self, f"weight_hr_l{layer}{suffix}") if self.proj_size > 0 else None
                b_in = (b_ih + b_hh if fold_bias else b_ih) if b_ih is not None else None
                if self.mode == "LSTM" and bs is None and w_hr is None and \
                        _whole_layer(layer_in, w_ih, h0, c0):
                    out, h, c = dispatch(R.lstm_layer, layer_in, h0[idx], c0[idx], w_ih, w_hh, b_in,
                                         reverse=direction == 1)[:3]
                    dir_outs.append(out)
                    h_out.append(h)
                    c_out.append(c)
                    continue
                flat = layer_in.reshape(-1, layer_in.shape[-1])
                proj = F.linear(flat, w_ih, b_in)  # shape: (T * B, G) or (N, G)
                # per-step pieces whose backward is one concatenation (unbind/split would fill a
                # zeroed full-sequence buffer per step)
                sizes = (layer_in.shape[1],) * layer_in.shape[0] if bs is None else tuple(bs)
                steps = dispatch(R.rnn_split_steps, proj, sizes=sizes)
                outs, h, c = _run_direction(self.mode, steps, bs, h0[idx],
                                            c0[idx] if c0 is not None else None,
                                            (w_hh, b_hh if not fold_bias else None, w_hr), hidden,
                                            direction == 1)
                dir_outs.append(stack(outs) if bs is None else cat(outs))
                h_out.append(h)
                if c is not None:
                    c_out.append(c)
            layer_in = dir_outs[0] if num_directions == 1 else cat(dir_outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        return layer_in, stack(h_out), (stack(c_out) if c_out else None)

    def _prepare(self, input, hx, is_lstm: bool):
        """Unpack/unbatch the input and default the states; returns what ``_finish`` needs."""
        orig_input = input
        sorted_indices = unsorted_indices = batch_sizes = None
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = orig_input
            is_batched = True
        else:
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                if input.dim() != 2:
                    raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                                     f"{input.dim()}D instead")
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    states = hx if is_lstm else (hx,)
                    for s in states:
                        if s.dim() != 2:
                            if is_lstm:
                                raise RuntimeError("For unbatched 2-D input, hx and cx should also be "
                                                   f"2-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) "
                                                   "tensors")
                            raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but "
                                               f"got {hx.dim()}-D tensor")
                    hx = tuple(s.unsqueeze(1) for s in hx) if is_lstm else hx.unsqueeze(1)
            elif hx is not None:
                states = hx if is_lstm else (hx,)
                for s in states:
                    if s.dim() != 3:
                        if is_lstm:
                            raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D "
                                               f"but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                        raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                                           f"{hx.dim()}-D tensor")
            if self.batch_first:
                input = input.transpose(0, 1)  # shape: (T, B, I)
        self.check_input(input, batch_sizes)
        if batch_sizes is None and input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        num_directions = 2 if self.bidirectional else 1
        expected = (self.num_layers * num_directions,
                    int(batch_sizes[0]) if batch_sizes is not None else input.size(1),
                    self.proj_size if self.proj_size > 0 else self.hidden_size)
        if hx is None:
            h0 = zeros(expected, dtype=input.dtype, device=input.device)
            c0 = zeros((self.num_layers * num_directions, expected[1], self.hidden_size),
                       dtype=input.dtype, device=input.device) if is_lstm else None
        else:
            if is_lstm:
                h0, c0 = (self.permute_hidden(s, sorted_indices) for s in hx)
                self.check_hidden_size(h0, expected, "Expected hidden[0] size {}, got {}")
                self.check_hidden_size(c0, (expected[0], expected[1], self.hidden_size),
                                       "Expected hidden[1] size {}, got {}")
            else:
                h0, c0 = self.permute_hidden(hx, sorted_indices), None
                self.check_hidden_size(h0, expected)
        return input, batch_sizes, sorted_indices, unsorted_indices, is_batched, h0, c0

    def _finish(self, output, h, c, orig_input, batch_sizes, sorted_indices, unsorted_indices,
                is_batched):
        if isinstance(orig_input, PackedSequence):
            output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            h = self.permute_hidden(h, unsorted_indices)
            c = self.permute_hidden(c, unsorted_indices) if c is not None else None
            return output, h, c
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h = h.squeeze(1)
            c = c.squeeze(1) if c is not None else None
        return output, h, c

    def forward(self, input, hx=None):
        is_lstm = self.mode == "LSTM"
        x, bsz, si, ui, batched, h0, c0 = self._prepare(input, hx, is_lstm)
        out, h, c = self._run(x, bsz, h0, c0)
        out, h, c = self._finish(out, h, c, input, bsz, si, ui, batched)
        return (out, (h, c)) if is_lstm else (out, h)


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu).

    Args: input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False.

    Shape:
        Input ``(L, N, H_in)`` (``(N, L, H_in)`` batch_first, ``(L, H_in)`` unbatched, or packed);
        ``h_0`` ``(D * num_layers, N, H_out)``. Returns ``(output (L, N, D * H_out), h_n)``.
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory over a sequence (gates ``i, f, g, o``; optional ``proj_size``).

    Shape:
        Input as ``RNN``; states ``(h_0, c_0)`` with ``h_0`` ``(D * num_layers, N, H_out)`` and
        ``c_0`` ``(D * num_layers, N, H_cell)``. Returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit over a sequence (gates ``r, z, n``).

    Shape:
        As ``RNN``: returns ``(output, h_n)``.
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ------------------------------------------------------------------------------ cells
class RNNCellBase(Module):
    """Shared parameters of the single-step cells."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, name: str):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        return input.dim() == 2

    def _zeros(self, input):
        return zeros((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``. Shape: input ``(N, I)``
    or ``(I,)``, hidden ``(N, H)`` or ``(H,)``."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        batched = self._batched(input, "RNNCell")
        if not batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        pre = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx, self.weight_hh,
                                                                       self.bias_hh)
        if self.nonlinearity == "tanh":
            ret = pre.tanh()
        elif self.nonlinearity == "relu":
            ret = pre.relu()
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns ``(h', c')``. Shape: input ``(N, I)`` or ``(I,)``; states ``(N, H)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        batched = self._batched(input, "LSTMCell")
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            h = c = self._zeros(input)
        else:
            h, c = (hx if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0)))
        xg = F.linear(input, self.weight_ih, self.bias_ih)
        if self.bias_hh is not None:
            xg = xg + self.bias_hh
        h, c = _lstm_step(xg, h, c, self.weight_hh, None, self.hidden_size)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step. Shape: input ``(N, I)`` or ``(I,)``; hidden ``(N, H)`` or ``(H,)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        batched = self._batched(input, "GRUCell")
        if not batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if batched else hx.unsqueeze(0))
        xg = F.linear(input, self.weight_ih, self.bias_ih)
        ret = _gru_step(xg, hx, self.weight_hh, self.bias_hh, self.hidden_size)
        return ret if batched else ret.squeeze(0)
