"""``ember.cpu``: the CPU device module (``ember.cpu.amp.autocast``, ``is_available``, ``synchronize``).

Example:
    >>> import ember
    >>> ember.cpu.is_available(), ember.cpu.device_count()
    (True, 1)
"""
from . import amp

__all__ = ["amp", "is_available", "device_count", "synchronize", "current_device"]


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def synchronize(device=None) -> None:
    """CPU work is synchronous: nothing to wait for."""


def current_device() -> str:
    return "cpu"
