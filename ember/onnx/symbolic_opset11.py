"""``torch.onnx.symbolic_opset11``: symbolic functions emitting ONNX opset-11 nodes through a graph
context ``g`` (``g.op(kind, *inputs, **attributes)``). Only the few libraries build on are here:
``unsqueeze``/``squeeze`` (opset 11 takes ``axes`` as an attribute) and ``select`` (a ``Gather``).

Example:
    >>> class G:
    ...     def op(self, kind, *inputs, **attrs):
    ...         return (kind, inputs, attrs)
    >>> unsqueeze(G(), "x", 0)
    ('Unsqueeze', ('x',), {'axes_i': [0]})
"""
from __future__ import annotations

__all__ = ["unsqueeze", "squeeze", "select"]


def unsqueeze(g, self, dim: int):
    return g.op("Unsqueeze", self, axes_i=[dim])


def squeeze(g, self, dim=None):
    if dim is None:
        return g.op("Squeeze", self)
    return g.op("Squeeze", self, axes_i=[dim])


def select(g, self, dim: int, index):
    return g.op("Gather", self, index, axis_i=dim)
