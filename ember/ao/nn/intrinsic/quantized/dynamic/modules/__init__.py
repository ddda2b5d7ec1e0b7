"""``torch.ao.nn.intrinsic.quantized.dynamic.modules``."""
from .linear_relu import LinearReLU

__all__ = ["LinearReLU"]
