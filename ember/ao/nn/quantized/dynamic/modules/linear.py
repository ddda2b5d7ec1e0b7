"""Dynamic quantized Linear: int8 weights, float activations quantized per call from their range.

Each call quantizes the input to quint8 with (scale, zero point) from its own min/max (the range
reduced to 7 bits on x86/fbgemm, as torch does), accumulates ``(x_q - zp) * w_q`` exactly, and returns
``acc * x_scale * w_scale + bias`` in float32.

Shape:
    input (*, in_features) float -> output (*, out_features) float

Example:
    >>> import ember
    >>> m = Linear(4, 2)
    >>> m(ember.ones(3, 4)).shape
    torch.Size([3, 2])
"""
from __future__ import annotations

from ...... import _dtype as D
from ......_quantized.kernels import q_linear_dynamic
from ......backends import quantized as qbackend
from ...modules.linear import Linear as QLinear
from ...modules.utils import quantize_weight

__all__ = ["Linear"]


def reduce_range() -> bool:
    """Whether the current engine quantizes activations to 7 bits (x86, fbgemm)."""
    return qbackend.engine in ("x86", "fbgemm")


class Linear(QLinear):
    """A Linear with int8 weights applied to float inputs (``quantize_dynamic``'s replacement)."""

    _version = 4

    def __init__(self, in_features: int, out_features: int, bias_: bool = True, dtype=D.qint8):
        super().__init__(in_features, out_features, bias_, dtype=dtype)
        self.version = 4

    def _get_name(self):
        return "DynamicQuantizedLinear"

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._packed_params.dtype}, qscheme={self.weight().qscheme()}")

    def forward(self, x):
        w, b = self._packed_params._weight_bias()
        return q_linear_dynamic(x, w, b, reduce_range())

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Quantize a float Linear's weight with its qconfig's weight observer (default: per-tensor)."""
        inner = mod[0] if type(mod).__name__ == "LinearReLU" else mod
        qconfig = getattr(mod, "qconfig", None)
        if qconfig is None or qconfig.weight is None:  # quantize_dynamic always sets one
            raise AssertionError("Input float module must have qconfig defined")
        observer = qconfig.weight()
        dtype = observer.dtype
        if dtype is not D.qint8:
            raise RuntimeError(f"Unsupported dtype specified for dynamic quantized Linear: {dtype}")
        observer(inner.weight)
        wq = quantize_weight(inner.weight.float(), observer)
        q = cls(inner.in_features, inner.out_features, dtype=dtype)
        q.set_weight_bias(wq, inner.bias.detach() if inner.bias is not None else None)
        return q

    @classmethod
    def from_reference(cls, ref_qlinear):
        q = cls(ref_qlinear.in_features, ref_qlinear.out_features)
        q.set_weight_bias(ref_qlinear.get_quantized_weight(), ref_qlinear.bias)
        return q
