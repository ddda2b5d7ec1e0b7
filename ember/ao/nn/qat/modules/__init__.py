"""``torch.ao.nn.qat.modules``."""
from .linear import Conv1d, Conv2d, Linear

__all__ = ["Linear", "Conv1d", "Conv2d"]
