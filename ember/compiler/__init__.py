"""``ember.compiler``: torch.compiler's user-facing helpers.

Example:
    >>> import ember
    >>> ember.compiler.is_compiling()
    False
"""
from __future__ import annotations

from .._dynamo import allow_in_graph, disable, is_compiling, list_backends, reset  # noqa: F401
from .._dynamo import is_compiling as is_dynamo_compiling  # noqa: F401


def compile(*args, **kwargs):
    """Same as ``ember.compile``."""
    from .._dynamo.eval_frame import compile as _compile
    return _compile(*args, **kwargs)


__all__ = ["compile", "reset", "allow_in_graph", "disable", "is_compiling", "is_dynamo_compiling",
           "list_backends"]
