"""Dynamic quantized LSTM / GRU: int8 weight matrices, float activations quantized per step.

The input projection ``x @ W_ih`` of a whole sequence is one dynamic int8 linear (the sequence's range
sets the activation qparams); each time step then adds ``h @ W_hh`` (h quantized from its own range)
and applies the float cell update, as torch's dynamic RNNs do.

State dicts: ember stores ``_all_weight_values.{k}.param`` as a tuple ``(w_ih, w_hh, b_ih, b_hh)`` of
tensors (qint8 weights, float biases). torch pickles TorchScript ``CellParamsBase`` objects there;
those load into ember only with ``weights_only=False`` (torch itself refuses them under
``weights_only=True``), and exporting ember's dynamic RNN state_dicts to torch's format is not
supported.

Shape:
    input (T, B, input_size) (or (B, T, ·) with ``batch_first``) -> output (T, B, D * hidden_size),
    h_n (D * num_layers, B, hidden_size) [and c_n for LSTM]

Example:
    >>> import ember
    >>> m = LSTM(3, 4)
    >>> out, (h, c) = m(ember.ones(5, 2, 3))
    >>> out.shape, h.shape
    (torch.Size([5, 2, 4]), torch.Size([1, 2, 4]))
"""
from __future__ import annotations

import numpy as np

from ...... import _dtype as D
from ......_dispatch import wrap
from ......_quantized.kernels import packed_weight
from ......nn.modules.container import ModuleList
from ......nn.modules.module import Module
from ...modules.utils import quantize_weight, quiet_quantize_per_tensor
from .linear import reduce_range

__all__ = ["LSTM", "GRU", "PackedParameter"]


class PackedParameter(Module):
    """One layer-direction's (w_ih, w_hh, b_ih, b_hh), saved under ``param``."""

    def __init__(self, param):
        super().__init__()
        self.param = param

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "param"] = self.param

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        key = prefix + "param"
        if key in state_dict:
            self.param = _from_torch_cell(state_dict.pop(key))
        elif strict:
            missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)


class ScriptObject:
    """Stand-in for a pickled TorchScript object (``torch.ScriptObject``) in trusted checkpoints."""

    def __setstate__(self, state):
        self.state, self.qualified_name = state


def _from_torch_cell(obj):
    """(w_ih, w_hh, b_ih, b_hh) from ember's tuple or torch's pickled ``CellParamsBase``."""
    if isinstance(obj, tuple):
        return obj
    if isinstance(obj, ScriptObject) and obj.qualified_name.endswith("CellParamsBase"):
        kind, biases, _, _, packed = obj.state
        if kind != "quantized_dynamic":
            raise RuntimeError(f"unsupported dynamic RNN cell format: {kind}")
        (w_ih, _), (w_hh, _) = (p.state for p in packed)
        return (w_ih, w_hh, biases[0], biases[1])
    raise RuntimeError(f"cannot read dynamic RNN weights from {type(obj).__name__}")


def _dyn_linear(x: np.ndarray, packed, bias, rr: bool):
    return packed.dynamic_linear(x.astype(np.float32, copy=False), rr, bias)


def _sigmoid(v):
    return (1.0 / (1.0 + np.exp(-v))).astype(np.float32)


class _RNNBase(Module):
    _NUM_GATES = 4
    _FLOAT_NAME = "LSTM"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=D.qint8):
        super().__init__()
        self.mode = self._FLOAT_NAME
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.dtype = bidirectional, dtype
        self.version = 2
        g = self._NUM_GATES * hidden_size
        dirs = 2 if bidirectional else 1
        params = []
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else hidden_size * dirs
            for _ in range(dirs):
                w_ih = quiet_quantize_per_tensor(_zeros(g, in_size), 1.0, 0, D.qint8)
                w_hh = quiet_quantize_per_tensor(_zeros(g, hidden_size), 1.0, 0, D.qint8)
                b = wrap(np.zeros(g, np.float32)) if bias else None
                params.append(PackedParameter((w_ih, w_hh, b, b)))
        self._all_weight_values = ModuleList(params)

    def _get_name(self):
        return "DynamicQuantized" + self._FLOAT_NAME

    def __repr__(self):
        return f"{self._get_name()}({self.extra_repr()})"

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    def _weights(self):
        out = []
        for p in self._all_weight_values:
            w_ih, w_hh, b_ih, b_hh = p.param
            out.append((packed_weight(w_ih), packed_weight(w_hh),
                        None if b_ih is None else b_ih._data.astype(np.float64),
                        None if b_hh is None else b_hh._data.astype(np.float64)))
        return out

    def get_weight(self):
        return {f"weight_{k}_l{i // self._dirs()}{'_reverse' if i % 2 and self.bidirectional else ''}":
                p.param[j] for i, p in enumerate(self._all_weight_values)
                for j, k in ((0, "ih"), (1, "hh"))}

    def _dirs(self):
        return 2 if self.bidirectional else 1

    def forward(self, input, hx=None):
        if not hasattr(input, "_data") or input.__class__.__name__ == "PackedSequence":
            raise NotImplementedError("dynamic quantized RNNs in ember take padded tensors, not "
                                      "PackedSequence")
        x = input._data.astype(np.float32)
        batched = x.ndim == 3
        if not batched:
            x = x[:, None]
        if self.batch_first and batched:
            x = x.transpose(1, 0, 2)
        T, B, _ = x.shape
        H, dirs = self.hidden_size, self._dirs()
        h0, c0 = self._initial(hx, B, batched)
        rr = reduce_range()
        weights = self._weights()
        hn, cn = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                h, c = h0[k], (c0[k] if c0 is not None else None)
                steps = range(T - 1, -1, -1) if d == 1 else range(T)
                ys = np.empty((T, B, H), np.float32)
                # the input projection of the whole sequence is one dynamic linear (one set of
                # activation qparams), as torch's quantized RNN computes it
                p_ih, _, b_ih, _ = weights[k]
                gi_all = _dyn_linear(layer_in.reshape(T * B, -1), p_ih, b_ih, rr)
                gi_all = gi_all.reshape(T, B, -1)
                for t in steps:
                    h, c = self._cell(gi_all[t], h, c, weights[k], rr)
                    ys[t] = h
                outs.append(ys)
                hn.append(h)
                cn.append(c)
            layer_in = np.concatenate(outs, axis=2) if dirs == 2 else outs[0]
        out = layer_in
        if self.batch_first and batched:
            out = out.transpose(1, 0, 2)
        if not batched:
            out = out[:, 0]
        h_n = np.stack(hn)
        c_n = np.stack(cn) if self._NUM_GATES == 4 else None
        if not batched:
            h_n = h_n[:, 0]
            c_n = c_n[:, 0] if c_n is not None else None
        out_t = wrap(np.ascontiguousarray(out))
        if self._NUM_GATES == 4:
            return out_t, (wrap(h_n), wrap(c_n))
        return out_t, wrap(h_n)

    def _initial(self, hx, B, batched):
        n = self.num_layers * self._dirs()
        zeros = np.zeros((n, B, self.hidden_size), np.float32)
        if hx is None:
            return zeros, (zeros if self._NUM_GATES == 4 else None)
        if isinstance(hx, tuple):
            h, c = (t._data.astype(np.float32) for t in hx)
        else:
            h, c = hx._data.astype(np.float32), None
        if not batched:
            h = h[:, None]
            c = c[:, None] if c is not None else None
        return h, c

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Quantize each weight matrix of a float RNN with its qconfig's weight observer."""
        qconfig = getattr(mod, "qconfig", None)
        if qconfig is None or qconfig.weight is None:  # quantize_dynamic always sets one
            raise AssertionError("Input float module must have qconfig defined")
        make_obs = qconfig.weight
        if getattr(mod, "proj_size", 0):
            raise NotImplementedError("dynamic quantized LSTM with proj_size is not supported")
        q = cls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first,
                mod.dropout, mod.bidirectional)
        params = []
        for layer in range(mod.num_layers):
            for suffix in (["", "_reverse"] if mod.bidirectional else [""]):
                ws = []
                for kind in ("ih", "hh"):
                    w = getattr(mod, f"weight_{kind}_l{layer}{suffix}")
                    obs = make_obs()
                    if obs.dtype is not D.qint8:
                        raise RuntimeError(f"Unsupported dtype for dynamic RNN quantization: {obs.dtype}")
                    obs(w)
                    ws.append(quantize_weight(w.float(), obs))
                bs = [getattr(mod, f"bias_{k}_l{layer}{suffix}").detach() if mod.bias else None
                      for k in ("ih", "hh")]
                params.append(PackedParameter((ws[0], ws[1], bs[0], bs[1])))
        q._all_weight_values = ModuleList(params)
        return q


def _zeros(*shape):
    return wrap(np.zeros(shape, np.float32))


class LSTM(_RNNBase):
    """Dynamic quantized LSTM (gates i, f, g, o)."""

    _NUM_GATES = 4
    _FLOAT_NAME = "LSTM"

    def _cell(self, gi, h, c, w, rr):
        _, p_hh, _, b_hh = w
        gates = gi + _dyn_linear(h, p_hh, b_hh, rr)
        i, f, g, o = np.split(gates, 4, axis=1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        return h.astype(np.float32), c.astype(np.float32)


class GRU(_RNNBase):
    """Dynamic quantized GRU (gates r, z, n)."""

    _NUM_GATES = 3
    _FLOAT_NAME = "GRU"

    def _cell(self, gi, h, c, w, rr):
        _, p_hh, _, b_hh = w
        gh = _dyn_linear(h, p_hh, b_hh, rr)
        ir, iz, in_ = np.split(gi, 3, axis=1)
        hr, hz, hn = np.split(gh, 3, axis=1)
        r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
        n = np.tanh(in_ + r * hn)
        return ((1 - z) * n + z * h).astype(np.float32), None
