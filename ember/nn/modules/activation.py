"""Activation modules (layer L4): each ``forward`` calls one ``nn.functional`` function.

Example:
    >>> import ember
    >>> ReLU()(ember.tensor([-1., 2.]))
    tensor([0., 2.])
    >>> GELU(approximate='tanh')
    GELU(approximate='tanh')
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ReLU", "ReLU6", "Hardtanh", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish",
           "Softplus", "Sigmoid", "Tanh", "LogSigmoid", "Hardsigmoid", "Hardswish", "Softsign",
           "Tanhshrink", "Threshold", "GLU", "Softmax", "LogSoftmax", "Softmin"]


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """``max(0, x)`` elementwise. Shape: any."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Hardtanh(Module):
    """Clamp into ``[min_val, max_val]``. Shape: any."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)``. Shape: any."""

    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    """``x`` if positive else ``negative_slope * x``. Shape: any."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace}"


class ELU(Module):
    """``x`` if positive else ``alpha * (exp(x) - 1)``. Shape: any."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace}"


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``. Shape: any."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(Module):
    """Scaled ELU with the self-normalising constants. Shape: any."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class GELU(Module):
    """``x * Phi(x)`` (``approximate='tanh'`` for the tanh formula). Shape: any."""

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={repr(self.approximate)}"


class SiLU(Module):
    """``x * sigmoid(x)``. Shape: any."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Mish(SiLU):
    """``x * tanh(softplus(x))``. Shape: any."""

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``. Shape: any."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _Stateless(Module):
    _fn = None

    def forward(self, input):
        return type(self)._fn(input)


class Sigmoid(_Stateless):
    """``1 / (1 + exp(-x))``. Shape: any."""
    _fn = staticmethod(F.sigmoid)


class Tanh(_Stateless):
    """Hyperbolic tangent. Shape: any."""
    _fn = staticmethod(F.tanh)


class LogSigmoid(_Stateless):
    """``log(sigmoid(x))``. Shape: any."""
    _fn = staticmethod(F.logsigmoid)


class Softsign(_Stateless):
    """``x / (1 + |x|)``. Shape: any."""
    _fn = staticmethod(F.softsign)


class Tanhshrink(_Stateless):
    """``x - tanh(x)``. Shape: any."""
    _fn = staticmethod(F.tanhshrink)


class Hardsigmoid(SiLU):
    """``relu6(x + 3) / 6``. Shape: any."""

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(SiLU):
    """``x * relu6(x + 3) / 6``. Shape: any."""

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Threshold(Module):
    """``x`` if ``x > threshold`` else ``value``. Shape: any."""

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        inplace = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{inplace}"


class GLU(Module):
    """``a * sigmoid(b)`` for the two halves of ``dim``. Shape: ``(*, 2N, *) -> (*, N, *)``."""

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(Module):
    """``exp(x) / sum(exp(x))`` along ``dim``. Shape: any."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """``log(softmax(x))`` along ``dim``. Shape: any."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(Softmax):
    """``softmax(-x)`` along ``dim``. Shape: any."""

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)
