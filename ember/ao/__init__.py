"""``torch.ao``: architecture optimisation; ember provides ``ao.quantization`` and ``ao.nn``."""
from . import nn, quantization  # noqa: F401

__all__ = ["nn", "quantization"]
