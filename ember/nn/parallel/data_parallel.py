"""DataParallel as torch's on a machine without accelerators (ember's only kind).

torch's DataParallel splits the batch over GPUs (scatter), copies the module to each (replicate), runs
the copies (parallel_apply) and concatenates the outputs (gather). Without an accelerator torch skips
all of it: the wrapper keeps ``module`` and ``device_ids == []`` and calls the module directly,
whatever ``device_ids`` was given; ember does the same.
"""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module`` (state_dict keys prefixed ``module.``); on CPU ``forward`` calls it directly.

    Shape: whatever ``module`` returns for the whole batch.

    Example:
        >>> import ember
        >>> dp = DataParallel(ember.nn.Linear(2, 3))
        >>> dp(ember.ones(4, 2)).shape, dp.device_ids, list(dp.state_dict())
        (torch.Size([4, 3]), [], ['module.weight', 'module.bias'])
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []  # no accelerator: torch stops here too (dim/output_device are not kept)

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form: needs an accelerator, so it raises as torch does on a CPU-only machine."""
    raise RuntimeError("device type could not be determined")
