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


class TensorProtoDataType:
    """ONNX's element type codes (``TensorProto.DataType``)."""
    UNDEFINED, FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL = range(10)
    FLOAT16, DOUBLE, UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16 = range(10, 17)


_CUSTOM_SYMBOLICS: dict = {}  # ("ns::op", opset) -> symbolic function, for an exporter to consult


def register_custom_op_symbolic(symbolic_name: str, symbolic_fn, opset_version: int) -> None:
    """Record how custom op ``symbolic_name`` ("ns::op") exports to ONNX from ``opset_version`` on.
    ember has no exporter yet; the registry is kept so libraries that register on import work."""
    if "::" not in symbolic_name:
        raise ValueError(f"Failed to register operator {symbolic_name}. The symbolic name must "
                         "match the format domain::name")
    _CUSTOM_SYMBOLICS[(symbolic_name, opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    _CUSTOM_SYMBOLICS.pop((symbolic_name, opset_version), None)


__all__ += ["TensorProtoDataType", "register_custom_op_symbolic", "unregister_custom_op_symbolic"]
