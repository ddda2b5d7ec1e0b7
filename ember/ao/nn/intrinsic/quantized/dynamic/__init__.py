"""``torch.ao.nn.intrinsic.quantized.dynamic``."""
from .modules import LinearReLU

__all__ = ["LinearReLU"]
