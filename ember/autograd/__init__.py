"""ember.autograd: ``backward``, ``grad``, grad modes, ``Function``, ``gradcheck``, anomaly detection.

Example:
    >>> import ember
    >>> x = ember.tensor([1., 2.], requires_grad=True)
    >>> ember.autograd.grad((x * x).sum(), x)
    (tensor([2., 4.]),)
"""
from __future__ import annotations

from . import graph
from ._backward_api import backward, grad
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .engine import queue_callback
from .function import Function, FunctionCtx, InplaceFunction, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck, GradcheckError

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "graph", "Variable", "Function", "FunctionCtx", "InplaceFunction",
           "once_differentiable", "gradcheck", "gradgradcheck", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _Engine:
    """``Variable._execution_engine``: ``queue_callback`` runs a function when backward ends."""

    queue_callback = staticmethod(queue_callback)


class Variable:
    """Legacy name kept for ``Variable._execution_engine.queue_callback``."""

    _execution_engine = _Engine()


def __getattr__(name):
    # autograd.functional uses Tensor creation: imported on first use, after the Tensor exists
    if name == "functional":
        import importlib
        return importlib.import_module(".functional", __name__)
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")
