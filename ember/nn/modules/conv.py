"""Convolution layers: ``Conv1d/2d/3d`` (with ``padding_mode``) and ``ConvTranspose1d/2d/3d`` (layer L4).

Example:
    >>> import ember
    >>> m = Conv2d(3, 8, 3, padding=1)
    >>> m(ember.ones(2, 3, 16, 16)).shape
    torch.Size([2, 8, 16, 16])
"""
from __future__ import annotations

import math

from .. import functional as F
from .. import init
from .linear import _weight_and_bias
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(v, n):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    """Shared state of convolutions: hyper-parameters, weight/bias and torch's default init."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]
    _nd = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0) -> None:
        super().__init__()
        n = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        valid_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        valid_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_modes:
            raise ValueError(f"padding_mode must be one of {valid_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(padding, str):
            rev = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    rev[2 * i], rev[2 * i + 1] = left, total - left
        else:
            rev = [p for p in reversed(padding) for _ in range(2)]
        self._reversed_padding_repeated_twice = rev
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups)) + kernel_size
        _weight_and_bias(self, shape, bias, out_channels, device, dtype)

    def reset_parameters(self) -> None:
        # torch's default: kaiming_uniform(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, device, dtype)

    def _conv_forward(self, input, weight, bias):
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            return fn(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                      weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over ``(N, C_in, L)``; weight ``(out, in / groups, k)``.

    Shape:
        Input ``(N, C_in, L_in)`` or ``(C_in, L_in)``; output ``(N, C_out, L_out)``.
    """

    _nd = 1


class Conv2d(_Conv):
    """2-d convolution over ``(N, C_in, H, W)``; weight ``(out, in / groups, kH, kW)``.

    Shape:
        Input ``(N, C_in, H, W)`` or ``(C_in, H, W)``; output ``(N, C_out, H_out, W_out)``.
    """

    _nd = 2


class Conv3d(_Conv):
    """3-d convolution over ``(N, C_in, D, H, W)``; weight ``(out, in / groups, kD, kH, kW)``.

    Shape:
        Input ``(N, C_in, D, H, W)`` or unbatched; output ``(N, C_out, D_out, H_out, W_out)``.
    """

    _nd = 3


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims,
                        dilation=None):
        if output_size is None:
            return self.output_padding
        has_batch = input.dim() == num_spatial_dims + 2
        non_spatial = 2 if has_batch else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size "
                             f"must have {num_spatial_dims} or {non_spatial + num_spatial_dims} elements "
                             f"(got {len(output_size)})")
        mins, maxs = [], []
        for d in range(num_spatial_dims):
            size = ((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            mins.append(size)
            maxs.append(size + stride[d] - 1)
        for d in range(num_spatial_dims):
            if not mins[d] <= output_size[d] <= maxs[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range "
                                 f"from {mins} to {maxs} (for an input of {input.size()[2:]})")
        return tuple(output_size[d] - mins[d] for d in range(num_spatial_dims))

    def forward(self, input, output_size=None):
        n = self._nd
        op = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, n,
                                  self.dilation)
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                  self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution; weight ``(in, out / groups, k)``.

    Shape:
        Input ``(N, C_in, L_in)``; output ``(N, C_out, L_out)`` with
        ``L_out = (L_in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution; weight ``(in, out / groups, kH, kW)``.

    Shape:
        Input ``(N, C_in, H_in, W_in)``; output ``(N, C_out, H_out, W_out)``.
    """

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution; weight ``(in, out / groups, kD, kH, kW)``.

    Shape:
        Input ``(N, C_in, D_in, H_in, W_in)``; output ``(N, C_out, D_out, H_out, W_out)``.
    """

    _nd = 3
