"""``torch.ao.nn.quantized.reference.modules``."""
from .linear import Conv1d, Conv2d, Linear

__all__ = ["Linear", "Conv1d", "Conv2d"]
