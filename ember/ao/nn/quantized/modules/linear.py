"""Quantized Linear: int8 weights packed with a float bias, quint8 activations in and out.

``Linear(in_features, out_features)`` holds ``_packed_params`` (a ``LinearPackedParams``: the qint8
weight and the float bias) plus the output ``scale`` / ``zero_point``. Its state_dict has torch's keys
(``scale``, ``zero_point``, ``_packed_params.dtype``, ``_packed_params._packed_params``) so checkpoints
exchange with torch under ``weights_only=True``.

Shape:
    input (*, in_features) quint8 -> output (*, out_features) quint8

Example:
    >>> import ember
    >>> m = Linear(4, 2)
    >>> m.weight().dtype, m.state_dict()["_packed_params.dtype"]
    (torch.qint8, torch.qint8)
"""
from __future__ import annotations

from ..... import _dtype as D
from ....._creation import zeros
from ....._quantized.kernels import q_linear
from ....._quantized.tensor import QTensor
from .....nn.modules.container import Sequential
from .....nn.modules.module import Module
from .utils import activation_qparams, quantize_weight, quiet_quantize_per_tensor, save_output_qparams

__all__ = ["LinearPackedParams", "Linear"]


class LinearPackedParams(Module):
    """The packed (weight, bias) of a quantized Linear; ``dtype`` qint8 (or float16, unsupported)."""

    _version = 3

    def __init__(self, dtype=D.qint8):
        super().__init__()
        self.dtype = dtype
        if dtype is not D.qint8:
            raise RuntimeError(f"Unsupported dtype on dynamic quantized linear: {dtype} (ember packs "
                               "qint8 weights only)")
        wq = quiet_quantize_per_tensor(zeros(1, 1), 1.0, 0, D.qint8)
        self.set_weight_bias(wq, None)

    def set_weight_bias(self, weight: QTensor, bias) -> None:
        if not isinstance(weight, QTensor):
            raise RuntimeError("LinearPackedParams: the weight must be a quantized tensor")
        self._weight = weight
        self._bias = bias
        self._packed_params = (weight, bias)

    def _weight_bias(self):
        return self._weight, self._bias

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_params"] = self._weight_bias()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        if prefix + "dtype" in state_dict:
            self.dtype = state_dict.pop(prefix + "dtype")
        elif strict:
            missing_keys.append(prefix + "dtype")
        if prefix + "_packed_params" in state_dict:
            w, b = state_dict.pop(prefix + "_packed_params")
            self.set_weight_bias(w, b)
        elif strict:
            missing_keys.append(prefix + "_packed_params")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def __repr__(self):
        return repr(self._weight_bias())


class Linear(Module):
    """A quantized Linear (static: quint8 activations with fixed output ``scale``/``zero_point``)."""

    _version = 3
    _FLOAT_MODULE = None  # set below (nn.Linear and its intrinsic/qat relatives)

    def __init__(self, in_features: int, out_features: int, bias_: bool = True, dtype=D.qint8):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bias = zeros(out_features) if bias_ else None
        wq = quiet_quantize_per_tensor(zeros(out_features, in_features), 1.0, 0, D.qint8)
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(wq, bias)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self):
        return "QuantizedLinear"

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"scale={self.scale}, zero_point={self.zero_point}, qscheme={self.weight().qscheme()}")

    def __repr__(self):  # the packed params are an implementation detail, hidden as torch does
        return f"{self._get_name()}({self.extra_repr()})"

    def forward(self, x):
        w, b = self._packed_params._weight_bias()
        return q_linear(x, w, b, self.scale, self.zero_point)

    def weight(self):
        return self._packed_params._weight_bias()[0]

    def bias(self):
        return self._packed_params._weight_bias()[1]

    def _weight_bias(self):
        return self._packed_params._weight_bias()

    def set_weight_bias(self, w, b) -> None:
        self._packed_params.set_weight_bias(w, b)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        save_output_qparams(self, destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for name, kind in (("scale", float), ("zero_point", int)):
            if prefix + name in state_dict:
                setattr(self, name, kind(state_dict.pop(prefix + name).item()))
            elif strict:
                missing_keys.append(prefix + name)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized Linear from an observed float (or fused LinearReLU / QAT) Linear."""
        if not hasattr(mod, "qconfig") or mod.qconfig is None:
            raise AssertionError("Input float module must have qconfig defined")
        weight_post_process = getattr(mod, "weight_fake_quant", None)  # a QAT module
        inner = mod[0] if isinstance(mod, Sequential) else mod  # a fused LinearReLU
        if not hasattr(inner, "weight") or not hasattr(inner, "in_features"):
            raise AssertionError(f"nnq.{cls.__name__}.from_float only works for nn.Linear")
        act = mod.activation_post_process
        if weight_post_process is None:
            weight_post_process = mod.qconfig.weight()
            weight_post_process(inner.weight)
        wq = quantize_weight(inner.weight.float(), weight_post_process)
        q = cls(inner.in_features, inner.out_features)
        q.set_weight_bias(wq, inner.bias.detach() if inner.bias is not None else None)
        q.scale, q.zero_point = activation_qparams(act)
        return q

    @classmethod
    def from_reference(cls, ref_qlinear, output_scale, output_zero_point):
        """A quantized Linear from a reference (quantize-dequantize) Linear and output qparams."""
        q = cls(ref_qlinear.in_features, ref_qlinear.out_features)
        q.set_weight_bias(ref_qlinear.get_quantized_weight(), ref_qlinear.bias)
        q.scale, q.zero_point = float(output_scale), int(output_zero_point)
        return q
