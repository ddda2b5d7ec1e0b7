"""``torch.ao.nn.intrinsic.quantized.modules``."""
from .conv_relu import ConvReLU1d, ConvReLU2d
from .linear_relu import LinearReLU

__all__ = ["ConvReLU1d", "ConvReLU2d", "LinearReLU"]
