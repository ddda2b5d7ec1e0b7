"""``torch.ao``: architecture optimisation; ember provides ``ao.quantization`` and ``ao.nn``."""
from . import quantization, nn  # noqa: F401  (quantization first: ao.nn uses its observers)

__all__ = ["nn", "quantization"]
