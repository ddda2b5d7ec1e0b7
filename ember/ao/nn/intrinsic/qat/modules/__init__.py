"""``torch.ao.nn.intrinsic.qat.modules``."""
from .conv_fused import ConvBn2d, ConvBnReLU2d, ConvReLU2d, LinearReLU

__all__ = ["ConvBn2d", "ConvBnReLU2d", "ConvReLU2d", "LinearReLU"]
