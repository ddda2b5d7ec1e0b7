"""``torch.ao.nn``: quantized, dynamic-quantized, fused (intrinsic) and QAT modules."""
