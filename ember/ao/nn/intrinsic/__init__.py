"""``torch.ao.nn.intrinsic``: fused modules (float), and their ``quantized`` / ``qat`` versions."""
from . import qat, quantized  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all

__all__ = _modules_all + ["quantized", "qat"]
