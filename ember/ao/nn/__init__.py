"""``torch.ao.nn``: quantized, dynamic-quantized, fused (intrinsic) and QAT modules."""
from . import intrinsic, quantized  # noqa: F401

__all__ = ["intrinsic", "quantized"]
