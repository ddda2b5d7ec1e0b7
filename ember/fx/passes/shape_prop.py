"""``ShapeProp``: run a GraphModule and store each node's ``TensorMetadata`` in ``node.meta``.

With ``fake_mode="meta"`` the inputs, parameters and buffers are moved to the 'meta' device first,
so shapes are found without computing any data.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.fx import symbolic_trace
    >>> from ember.fx.passes.shape_prop import ShapeProp
    >>> gm = symbolic_trace(nn.Sequential(nn.Linear(3, 5), nn.ReLU()))
    >>> _ = ShapeProp(gm, fake_mode="meta").propagate(ember.randn(2, 3))
    >>> [tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes if n.op != "output"]
    [(2, 3), (2, 5), (2, 5)]
"""
from __future__ import annotations

import copy
from typing import Any, NamedTuple

from ..._tensor import Tensor
from ..node import Node, map_aggregate
from ..interpreter import Interpreter

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records for a tensor value."""
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result: Tensor, include_contiguity: bool = True) -> TensorMetadata:
    memory_format = None
    if include_contiguity and result.is_contiguous():
        memory_format = "torch.contiguous_format"
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, tuple(result.stride()),
                          memory_format, False, {})


class ShapeProp(Interpreter):
    """Fill ``node.meta['tensor_meta']`` (and ``node.meta['type']``) by executing the graph."""

    def __init__(self, gm, fake_mode=None) -> None:
        self.fake_mode = fake_mode
        if fake_mode is not None:
            if fake_mode not in ("meta", True):
                raise ValueError(f"ShapeProp: unsupported fake_mode {fake_mode!r} (use 'meta')")
            self.real_module = gm
            gm = copy.deepcopy(gm).to("meta")
            self._graph_for_meta = gm.graph
        super().__init__(gm)
        if fake_mode is not None:
            # the deep copy has its own nodes: record metadata on the caller's graph too
            self._orig_nodes = dict(zip(gm.graph.nodes, self.real_module.graph.nodes))

    def run_node(self, n: Node):
        result = super().run_node(n)
        found = False

        def extract(obj):
            nonlocal found
            if isinstance(obj, Tensor):
                found = True
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        targets = [n] if self.fake_mode is None else [n, self._orig_nodes[n]]
        for t in targets:
            if found:
                t.meta["tensor_meta"] = meta
            t.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run on ``args`` (moved to 'meta' under ``fake_mode``); returns the graph's output."""
        if self.fake_mode is not None:
            args = tuple(a.to("meta") if isinstance(a, Tensor) else a for a in args)
        return super().run(*args)
