"""``torch.ao.nn.qat``: modules with fake-quantized weights for quantization-aware training."""
from .modules import Conv1d, Conv2d, Linear

__all__ = ["Linear", "Conv1d", "Conv2d"]
