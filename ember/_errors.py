"""Message helpers so every error names the op and the offending shapes/dtypes (layer L0).

Example:
    >>> fmt_shape((4, 3))
    '4x3'
"""
from __future__ import annotations

__all__ = ["fmt_shape", "dtype_title", "op_error", "type_name"]

_TITLES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
           "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
           "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
           "complex32": "ComplexHalf"}


def fmt_shape(shape) -> str:
    """torch's ``4x3`` form used in matmul-style messages."""
    return "x".join(str(s) for s in shape)


def dtype_title(d) -> str:
    """torch's C++ scalar-type name (``Float``, ``Long``...) used in dtype messages."""
    return _TITLES[d.name]


def op_error(exc_type: type, op: str, message: str) -> Exception:
    return exc_type(f"{op}(): {message}" if op else message)


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def type_name(obj) -> str:
    """The type name torch's messages print for ``obj`` (the C ``tp_name``): the bare name for
    builtins and classes defined in Python, module-qualified for extension types.

    >>> import numpy as np
    >>> type_name(3), type_name(np.float32(1))
    ('int', 'numpy.float32')
    """
    c = type(obj)
    return c.__name__ if c.__module__ == "builtins" or c.__flags__ & _HEAPTYPE else \
        f"{c.__module__}.{c.__qualname__}"
