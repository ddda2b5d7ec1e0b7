"""``FlopCounter``: count matmul/conv/attention FLOPs and activation/parameter memory of a graph.

FLOPs follow torch.utils.flop_counter's convention: a multiply-add is 2 FLOPs and only
matrix products (linear, matmul, bmm, addmm, convolutions, attention) are counted.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.fx import symbolic_trace
    >>> from ember.fx.passes.flop_counter import FlopCounter
    >>> fc = FlopCounter(symbolic_trace(nn.Sequential(nn.Linear(8, 4), nn.ReLU())))
    >>> _ = fc.run(ember.randn(2, 8))
    >>> fc.total_flops, fc.flops_by_node
    (128, {'_0': 128})
"""
from __future__ import annotations

import math

from ..._tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node

__all__ = ["FlopCounter", "count_flops"]

_CONV = {"conv1d", "conv2d", "conv3d", "Conv1d", "Conv2d", "Conv3d"}
_CONV_T = {"conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "ConvTranspose1d",
           "ConvTranspose2d", "ConvTranspose3d"}
_MATMUL = {"matmul", "mm", "bmm", "__matmul__", "einsum_matmul"}


def _numel(t) -> int:
    return math.prod(t.shape) if isinstance(t, Tensor) else 0


def _flops(kind: str, args: tuple, kwargs: dict, out, module=None) -> int:
    if not isinstance(out, Tensor):
        return 0
    if kind in ("linear", "Linear"):
        w = module.weight if module is not None else (args[1] if len(args) > 1 else kwargs["weight"])
        return 2 * _numel(out) * w.shape[-1]
    if kind in _MATMUL:
        a = args[0]
        return 2 * _numel(out) * (a.shape[-1] if a.ndim > 0 else 1)
    if kind in ("addmm", "baddbmm", "addbmm"):
        return 2 * _numel(out) * args[1].shape[-1]
    if kind in _CONV:
        w = module.weight if module is not None else (args[1] if len(args) > 1 else kwargs["weight"])
        return 2 * _numel(out) * math.prod(w.shape[1:])
    if kind in _CONV_T:
        w = module.weight if module is not None else (args[1] if len(args) > 1 else kwargs["weight"])
        x = args[0]
        # every input element meets every (C_out/groups x kernel) weight element
        return 2 * _numel(x) * math.prod(w.shape[1:])
    if kind == "scaled_dot_product_attention":
        q, k = args[0], args[1]
        # q @ k^T and attn @ v, each 2 * (batch * L * S * E)
        return 2 * 2 * _numel(q) * k.shape[-2]
    return 0


class FlopCounter(Interpreter):
    """Run the graph, recording FLOPs per node and bytes of every tensor produced."""

    def __init__(self, module, **kwargs) -> None:
        super().__init__(module, **kwargs)
        self.flops_by_node: dict = {}
        self.activation_bytes_by_node: dict = {}

    @property
    def total_flops(self) -> int:
        return sum(self.flops_by_node.values())

    @property
    def activation_bytes(self) -> int:
        """Bytes of all intermediate tensors (what a training step would keep for backward)."""
        return sum(self.activation_bytes_by_node.values())

    @property
    def parameter_bytes(self) -> int:
        seen, total = set(), 0
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if id(t) not in seen:
                seen.add(id(t))
                total += t.numel() * t.element_size()
        return total

    def run_node(self, n: Node):
        out = super().run_node(n)
        args, kwargs = self.fetch_args_kwargs_from_env(n) if n.op != "output" else ((), {})
        module = None
        if n.op == "call_module":
            module = self.fetch_attr(n.target)
            kind = type(module).__name__
        elif n.op == "call_function":
            kind = getattr(n.target, "__name__", "")
        elif n.op == "call_method":
            kind = n.target
        else:
            kind = ""
        f = _flops(kind, args, kwargs, out, module) if kind else 0
        if f:
            self.flops_by_node[n.name] = f
        if n.op not in ("placeholder", "get_attr", "output") and isinstance(out, Tensor):
            self.activation_bytes_by_node[n.name] = out.numel() * out.element_size()
        return out


def count_flops(gm, *args) -> dict:
    """``{'total_flops', 'flops_by_node', 'activation_bytes', 'parameter_bytes'}`` for ``gm(*args)``."""
    fc = FlopCounter(gm)
    fc.run(*args)
    return {"total_flops": fc.total_flops, "flops_by_node": dict(fc.flops_by_node),
            "activation_bytes": fc.activation_bytes, "parameter_bytes": fc.parameter_bytes}
