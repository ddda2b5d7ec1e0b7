"""``ember.onnx``: importable, and ``export`` says plainly that ONNX export is not supported yet.

Example:
    >>> import ember
    >>> ember.onnx.is_in_onnx_export()
    False
"""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export", "OperatorExportTypes", "TrainingMode"]

_MSG = ("ember.onnx.export is not supported yet: ember has no ONNX exporter. Trace the model with "
        "ember.fx.symbolic_trace to inspect its graph, or save weights with ember.save.")


def export(model, args=(), f=None, *a, **kwargs):
    raise NotImplementedError(_MSG)


dynamo_export = export


def is_in_onnx_export() -> bool:
    return False


class OperatorExportTypes:
    ONNX, ONNX_ATEN, ONNX_ATEN_FALLBACK, ONNX_FALLTHROUGH = range(4)


class TrainingMode:
    EVAL, PRESERVE, TRAINING = range(3)
