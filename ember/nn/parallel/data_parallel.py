"""DataParallel as torch's on a machine without GPUs: a wrapper that calls its module."""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; with no GPU devices (always, in ember) ``forward`` calls it directly.

    Example:
        >>> import ember
        >>> DataParallel(ember.nn.Identity())(ember.ones(2)).shape
        torch.Size([2])
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if device_ids:
            raise AssertionError("Torch not compiled with CUDA enabled")
        self.module = module
        self.device_ids = []
        self.dim = dim
        self.output_device = None

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Evaluate ``module(*inputs)`` (no GPUs to spread over)."""
    if device_ids:
        raise AssertionError("Torch not compiled with CUDA enabled")
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*inputs, **(module_kwargs or {}))
