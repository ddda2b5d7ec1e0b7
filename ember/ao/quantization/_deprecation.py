"""torch 2.13's deprecation notice for torch.ao.quantization's eager and FX entry points."""
from __future__ import annotations

import warnings

__all__ = ["warn_deprecated"]

_MESSAGE = (
    "torch.ao.quantization is deprecated and will be removed in 2.10. \n"
    "For migrations of users: \n"
    "1. Eager mode quantization (torch.ao.quantization.quantize, "
    "torch.ao.quantization.quantize_dynamic), please migrate to use torchao eager mode quantize_ API "
    "instead \n"
    "2. FX graph mode quantization (torch.ao.quantization.quantize_fx.prepare_fx,"
    "torch.ao.quantization.quantize_fx.convert_fx, please migrate to use torchao pt2e quantization "
    "API instead (prepare_pt2e, convert_pt2e) \n"
    "3. pt2e quantization has been migrated to torchao "
    "(https://github.com/pytorch/ao/tree/main/torchao/quantization/pt2e) \n"
    "see https://github.com/pytorch/ao/issues/2259 for more details")


def warn_deprecated(stacklevel: int = 3) -> None:
    warnings.warn(_MESSAGE, DeprecationWarning, stacklevel=stacklevel)
