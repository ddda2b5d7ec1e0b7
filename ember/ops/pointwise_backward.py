"""Fused backward primitives of hot activations (layer L1): one kernel instead of 2-3 ops.

``tanh``, ``sigmoid`` and ``relu`` backward run in every MLP step; as compositions of ember ops they
cost three dispatches each. Each has its own derivative so double backward still works; the
composite forms in pointwise.py stay the reference in tests.
"""
from __future__ import annotations

import numpy as np

from ._registry import primitive


@primitive("tanh_backward", kind="pointwise", expr="grad * (1 - out * out)")
def tanh_backward(grad, out):
    return grad * (1 - out * out)


@tanh_backward.derivative
def _(gg, grad, out):
    return gg._op(tanh_backward, out), gg * grad * out * -2


@primitive("sigmoid_backward", kind="pointwise", expr="grad * out * (1 - out)")
def sigmoid_backward(grad, out):
    return grad * out * (1 - out)


@sigmoid_backward.derivative
def _(gg, grad, out):
    return gg._op(sigmoid_backward, out), gg * grad * (1 - 2 * out)


@primitive("threshold_backward", kind="pointwise", expr="grad if out > 0 else 0")
def threshold_backward(grad, out):
    return np.multiply(grad, out > 0, dtype=grad.dtype)  # 3-4x faster than np.where here


@threshold_backward.derivative
def _(gg, out):
    return gg._op(threshold_backward, out), None


__all__ = ["tanh_backward", "sigmoid_backward", "threshold_backward"]
