"""``torch.ao.nn.quantized``: quantized modules, ``dynamic`` and ``functional``."""
from . import dynamic, functional, reference  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all

__all__ = _modules_all + ["dynamic", "functional", "reference"]
