"""``torch.ao.nn``: quantized, dynamic-quantized, fused (intrinsic) and QAT modules."""
from . import intrinsic, qat, quantized  # noqa: F401

__all__ = ["intrinsic", "qat", "quantized"]
