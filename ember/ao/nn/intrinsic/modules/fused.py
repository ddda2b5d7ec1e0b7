"""Fused float modules (``torch.ao.nn.intrinsic``): sequences that quantize as one op.

``fuse_modules`` builds these from (conv, bn, relu) / (linear, relu) runs; in eval mode the batch
norm is folded into the conv first, so ``ConvBn2d`` / ``ConvBnReLU2d`` appear only for QAT.

Example:
    >>> from ember import nn
    >>> m = LinearReLU(nn.Linear(2, 3), nn.ReLU())
    >>> type(m[0]).__name__, type(m[1]).__name__
    ('Linear', 'ReLU')
"""
from __future__ import annotations

from .....nn.modules.activation import ReLU
from .....nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from .....nn.modules.container import Sequential
from .....nn.modules.conv import Conv1d, Conv2d
from .....nn.modules.linear import Linear

__all__ = ["_FusedModule", "ConvReLU1d", "ConvReLU2d", "ConvBn1d", "ConvBn2d", "ConvBnReLU1d",
           "ConvBnReLU2d", "BNReLU2d", "LinearReLU", "LinearBn1d"]


class _FusedModule(Sequential):
    pass


def _fused(name, parts, doc):
    def __init__(self, *mods):
        if len(mods) != len(parts) or not all(isinstance(m, p) for m, p in zip(mods, parts)):
            raise AssertionError(f"Incorrect types for input modules{tuple(type(m) for m in mods)}")
        _FusedModule.__init__(self, *mods)
    return type(name, (_FusedModule,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


ConvReLU1d = _fused("ConvReLU1d", (Conv1d, ReLU), "Conv1d followed by ReLU.")
ConvReLU2d = _fused("ConvReLU2d", (Conv2d, ReLU), "Conv2d followed by ReLU.")
ConvBn1d = _fused("ConvBn1d", (Conv1d, BatchNorm1d), "Conv1d followed by BatchNorm1d (QAT).")
ConvBn2d = _fused("ConvBn2d", (Conv2d, BatchNorm2d), "Conv2d followed by BatchNorm2d (QAT).")
ConvBnReLU1d = _fused("ConvBnReLU1d", (Conv1d, BatchNorm1d, ReLU), "Conv1d, BatchNorm1d, ReLU (QAT).")
ConvBnReLU2d = _fused("ConvBnReLU2d", (Conv2d, BatchNorm2d, ReLU), "Conv2d, BatchNorm2d, ReLU (QAT).")
BNReLU2d = _fused("BNReLU2d", (BatchNorm2d, ReLU), "BatchNorm2d followed by ReLU.")
LinearReLU = _fused("LinearReLU", (Linear, ReLU), "Linear followed by ReLU.")
LinearBn1d = _fused("LinearBn1d", (Linear, BatchNorm1d), "Linear followed by BatchNorm1d (QAT).")
