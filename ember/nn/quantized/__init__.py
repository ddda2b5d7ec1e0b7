"""``torch.nn.quantized``: the legacy alias of ``torch.ao.nn.quantized``.

Example:
    >>> import ember
    >>> ember.nn.quantized.Linear is ember.ao.nn.quantized.Linear
    True
"""
from ...ao.nn.quantized import *  # noqa: F401,F403
from ...ao.nn.quantized import __all__, dynamic, functional  # noqa: F401
