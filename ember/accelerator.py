"""ember.accelerator: torch's device-agnostic accelerator API; no accelerator is ever available.

Example:
    >>> import ember
    >>> ember.accelerator.is_available(), ember.accelerator.current_accelerator()
    (False, None)
"""
from __future__ import annotations

__all__ = ["is_available", "device_count", "current_accelerator", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "synchronize",
           "device_index"]

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    """The accelerator device type, or None (ember has none)."""
    return None


def _no_device(*args, **kwargs):
    raise RuntimeError(_NONE)


current_device_index = current_device_idx = set_device_index = set_device_idx = _no_device
synchronize = _no_device


class device_index:
    """Context manager selecting an accelerator device index; a no-op for ``None``."""

    def __init__(self, device_index):
        self.idx = device_index

    def __enter__(self):
        if self.idx is not None:
            _no_device()

    def __exit__(self, *exc):
        return False
