"""Linear layers: ``Identity``, ``Linear``, ``Bilinear`` (layer L4).

Example:
    >>> import ember
    >>> m = Linear(20, 30)
    >>> m(ember.ones(128, 20)).shape
    torch.Size([128, 30])
"""
from __future__ import annotations

import math

from ..._creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear", "NonDynamicallyQuantizableLinear"]


def _weight_and_bias(module, weight_shape: tuple, bias: bool, out: int, device, dtype) -> None:
    """Register ``module.weight`` of ``weight_shape`` and ``module.bias`` of ``(out,)`` (None when not
    ``bias``), then initialise them with ``module.reset_parameters()`` (Linear, Bilinear, convs)."""
    module.weight = Parameter(empty(weight_shape, dtype=dtype, device=device))
    if bias:
        module.bias = Parameter(empty(out, dtype=dtype, device=device))
    else:
        module.register_parameter("bias", None)
    module.reset_parameters()


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x W^T + b``.

    Args:
        in_features: size of each input sample. out_features: size of each output sample.
        bias: learn an additive bias. Default: True.

    Shape:
        Input ``(*, in_features)``; output ``(*, out_features)``.
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        _weight_and_bias(self, (out_features, in_features), bias, out_features, device, dtype)

    def reset_parameters(self) -> None:
        # torch's default: kaiming_uniform(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, " \
               f"bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under the name MultiheadAttention's ``out_proj`` has in torch (for checkpoints)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b``.

    Shape:
        Inputs ``(*, in1_features)``, ``(*, in2_features)``; output ``(*, out_features)``.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        _weight_and_bias(self, (out_features, in1_features, in2_features), bias, out_features, device,
                         dtype)

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in1_features={self.in1_features}, in2_features={self.in2_features}, " \
               f"out_features={self.out_features}, bias={self.bias is not None}"


class LazyLinear(Linear):
    """A ``Linear`` whose ``in_features`` is inferred from the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        self._lazy_dtype = dtype
        self.weight = Parameter(empty((out_features, 0), dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, input):
        if self.in_features == 0:
            self.in_features = input.shape[-1]
            self.weight.data = empty((self.out_features, self.in_features), dtype=self._lazy_dtype)
            self.reset_parameters()
            del self._lazy_dtype
            self.__class__ = Linear
        return F.linear(input, self.weight, self.bias)
