"""``torch._dynamo.utils``: the helpers libraries import from it (torchvision asks whether compiling
is supported for a device before choosing a code path).

Example:
    >>> from ember._dynamo.utils import is_compile_supported
    >>> is_compile_supported("cpu"), is_compile_supported("cuda")
    (True, False)
"""
from __future__ import annotations

__all__ = ["is_compile_supported"]


def is_compile_supported(device_type: str) -> bool:
    """True where ``ember.compile`` can run code for ``device_type``: the CPU (ember has no other
    compute device)."""
    return device_type == "cpu"
