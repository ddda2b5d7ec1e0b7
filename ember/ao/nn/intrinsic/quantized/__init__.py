"""``torch.ao.nn.intrinsic.quantized``: quantized fused modules."""
from . import dynamic  # noqa: F401
from .modules import ConvReLU1d, ConvReLU2d, LinearReLU

__all__ = ["ConvReLU1d", "ConvReLU2d", "LinearReLU", "dynamic"]
