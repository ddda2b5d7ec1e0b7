"""``torch.ao.nn.intrinsic.modules``."""
from .fused import (BNReLU2d, ConvBn1d, ConvBn2d, ConvBnReLU1d, ConvBnReLU2d, ConvReLU1d, ConvReLU2d,
                    LinearBn1d, LinearReLU, _FusedModule)

__all__ = ["_FusedModule", "ConvReLU1d", "ConvReLU2d", "ConvBn1d", "ConvBn2d", "ConvBnReLU1d",
           "ConvBnReLU2d", "BNReLU2d", "LinearReLU", "LinearBn1d"]
