"""Lazy convolutions and norms (layer L4): ``in_channels`` (``num_features``) is read from the first
input, then the module becomes the plain class (``LazyConv2d`` -> ``Conv2d``, ``LazyBatchNorm2d`` ->
``BatchNorm2d``), as torch's lazy modules do.

Example:
    >>> import ember
    >>> m = ember.nn.LazyConv2d(4, 3)
    >>> m(ember.ones(1, 2, 5, 5)).shape, type(m).__name__
    (torch.Size([1, 4, 3, 3]), 'Conv2d')
"""
from __future__ import annotations

from ..._creation import empty, ones, zeros
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _LazyConvMixin:
    """Defers the weight's input-channel dim; ``cls_to_become`` is the class after the first call."""

    cls_to_become = None

    def reset_parameters(self) -> None:
        if self.in_channels != 0:  # nothing to initialise before the shape is known
            super().reset_parameters()

    def has_uninitialized_params(self) -> bool:
        return self.in_channels == 0

    def initialize_parameters(self, input) -> None:
        batched = input.dim() == self._nd + 2
        c = input.shape[1] if batched else input.shape[0]
        if c % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        self.in_channels = c
        shape = ((c, self.out_channels // self.groups) if self._transposed
                 else (self.out_channels, c // self.groups)) + tuple(self.kernel_size)
        self.weight.data = empty(shape, dtype=self.weight.dtype)
        self.__class__ = self.cls_to_become
        self.reset_parameters()

    def forward(self, input, *args, **kwargs):
        if self.in_channels == 0:
            self.initialize_parameters(input)
        return self.forward(input, *args, **kwargs)  # the plain class's forward now


def _lazy_class(base, mixin, init, doc):
    """``Lazy<base>``: ``mixin`` over ``base`` with constructor ``init``; it becomes ``base`` once shaped."""
    return type(f"Lazy{base.__name__}", (mixin, base),
                {"__init__": init, "cls_to_become": base, "__doc__": doc, "__module__": __name__})


def _lazy(base, doc):
    def __init__(self, out_channels, kernel_size, *args, **kwargs):
        # the base's own argument order follows (stride, padding, ...), minus in_channels
        base.__init__(self, 0, out_channels, kernel_size, *args, **kwargs)

    return _lazy_class(base, _LazyConvMixin, __init__, doc)


LazyConv1d = _lazy(Conv1d, "A ``Conv1d`` whose ``in_channels`` comes from the first input.")
LazyConv2d = _lazy(Conv2d, "A ``Conv2d`` whose ``in_channels`` comes from the first input.")
LazyConv3d = _lazy(Conv3d, "A ``Conv3d`` whose ``in_channels`` comes from the first input.")
LazyConvTranspose1d = _lazy(ConvTranspose1d, "A ``ConvTranspose1d`` with a lazy ``in_channels``.")
LazyConvTranspose2d = _lazy(ConvTranspose2d, "A ``ConvTranspose2d`` with a lazy ``in_channels``.")
LazyConvTranspose3d = _lazy(ConvTranspose3d, "A ``ConvTranspose3d`` with a lazy ``in_channels``.")


class _LazyNormMixin:
    """Defers ``num_features`` (0 until the first input, whose dim 1 it becomes, as in torch)."""

    cls_to_become = None

    def reset_parameters(self) -> None:
        if self.num_features != 0:
            super().reset_parameters()

    def has_uninitialized_params(self) -> bool:
        return self.num_features == 0

    def initialize_parameters(self, input) -> None:
        if not (self.affine or self.track_running_stats):  # nothing to shape: torch keeps 0
            self.__class__ = self.cls_to_become
            return
        c = input.shape[1] if input.dim() > 1 else input.shape[0]
        self.num_features = c
        if self.affine:
            self.weight.data = empty(c, dtype=self.weight.dtype)
            if self.bias is not None:
                self.bias.data = empty(c, dtype=self.bias.dtype)
        if self.track_running_stats:
            self.running_mean = zeros(c, dtype=self.running_mean.dtype)
            self.running_var = ones(c, dtype=self.running_var.dtype)
        self.__class__ = self.cls_to_become
        self.reset_parameters()

    def forward(self, input):
        if self.num_features == 0:
            self.initialize_parameters(input)
        return self.forward(input)  # the plain class's forward now


def _lazy_norm(base, doc):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        base.__init__(self, 0, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    return _lazy_class(base, _LazyNormMixin, __init__, doc)


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, "A ``BatchNorm1d`` whose ``num_features`` comes from the first input.")
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, "A ``BatchNorm2d`` whose ``num_features`` comes from the first input.")
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, "A ``BatchNorm3d`` whose ``num_features`` comes from the first input.")
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, "An ``InstanceNorm1d`` with a lazy ``num_features``.")
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, "An ``InstanceNorm2d`` with a lazy ``num_features``.")
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, "An ``InstanceNorm3d`` with a lazy ``num_features``.")
