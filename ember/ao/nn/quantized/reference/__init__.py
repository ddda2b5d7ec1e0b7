"""``torch.ao.nn.quantized.reference``: float modules with quantize-dequantized weights."""
from .modules import Conv1d, Conv2d, Linear

__all__ = ["Linear", "Conv1d", "Conv2d"]
