"""Pooling layers: max / avg / adaptive / power-average pools and max-unpooling (layer L4).

Example:
    >>> import ember
    >>> MaxPool2d(2)(ember.ones(1, 3, 8, 8)).shape
    torch.Size([1, 3, 4, 4])
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, dilation={dilation}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool1d(_MaxPoolNd):
    """1-d max pooling. Shape: ``(N, C, L_in) -> (N, C, L_out)``."""

    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """2-d max pooling. Shape: ``(N, C, H_in, W_in) -> (N, C, H_out, W_out)``."""

    _fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """3-d max pooling. Shape: ``(N, C, D_in, H_in, W_in) -> (N, C, D_out, H_out, W_out)``."""

    _fn = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """1-d average pooling. Shape: ``(N, C, L_in) -> (N, C, L_out)``."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """2-d average pooling. Shape: ``(N, C, H_in, W_in) -> (N, C, H_out, W_out)``."""

    _fn = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """3-d average pooling. Shape: ``(N, C, D_in, H_in, W_in) -> (N, C, D_out, H_out, W_out)``."""

    _fn = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]
    _fn = None

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return type(self)._fn(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed length. Shape: ``(N, C, L_in) -> (N, C, output_size)``."""

    _fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed ``(H_out, W_out)`` (``None`` keeps the input size)."""

    _fn = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed ``(D_out, H_out, W_out)``."""

    _fn = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]
    _fn = None

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed length. Shape: ``(N, C, L_in) -> (N, C, output_size)``."""

    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed ``(H_out, W_out)``."""

    _fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed ``(D_out, H_out, W_out)``."""

    _fn = staticmethod(F.adaptive_max_pool3d)


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _fn = None

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))


class LPPool1d(_LPPoolNd):
    """Power-average pooling ``(sum x^p)^(1/p)`` over 1-d windows."""

    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling ``(sum x^p)^(1/p)`` over 2-d windows."""

    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling ``(sum x^p)^(1/p)`` over 3-d windows."""

    _fn = staticmethod(F.lp_pool3d)


class _MaxUnpoolNd(Module):
    _nd = 2
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._nd
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of ``MaxPool1d``: maxima back at their indices, zeros elsewhere."""

    _nd = 1
    _fn = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of ``MaxPool2d``: maxima back at their indices, zeros elsewhere."""

    _nd = 2
    _fn = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of ``MaxPool3d``: maxima back at their indices, zeros elsewhere."""

    _nd = 3
    _fn = staticmethod(F.max_unpool3d)


class _FractionalMaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n = self._nd
        self.kernel_size = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) \
            else (kernel_size,) * n
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else (
            tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * n)
        self.output_ratio = None if output_ratio is None else (
            tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * n)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a "
                             "pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling (see :func:`ember.nn.functional.fractional_max_pool2d`).

    Shape: ``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C, oH, oW)`` or ``(C, oH, oW)``.

    Example:
        >>> import ember
        >>> ember.nn.FractionalMaxPool2d(2, output_size=3)(ember.randn(1, 2, 7, 7)).shape
        torch.Size([1, 2, 3, 3])
    """
    _nd = 2

    def forward(self, input):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling (see :func:`ember.nn.functional.fractional_max_pool3d`).

    Shape: ``(N, C, T, H, W)`` or ``(C, T, H, W)`` -> ``(N, C, oT, oH, oW)`` or ``(C, oT, oH, oW)``.

    Example:
        >>> import ember
        >>> ember.nn.FractionalMaxPool3d(2, output_ratio=0.5)(ember.randn(1, 1, 6, 6, 6)).shape
        torch.Size([1, 1, 3, 3, 3])
    """
    _nd = 3

    def forward(self, input):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)


__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
