"""``fuse``: fold each BatchNorm that follows a Conv (or Linear) into that layer's weights.

For inference only: the folded layer computes ``bn(conv(x))`` with the running statistics.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.fx.experimental.optimization import fuse
    >>> m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()).eval()
    >>> fused = fuse(m)   # a Conv2d followed by BatchNorm2d would become one Conv2d
    >>> [n.op for n in fused.graph.nodes]
    ['placeholder', 'call_module', 'call_module', 'output']
"""
from __future__ import annotations

import copy

from ...autograd.grad_mode import no_grad
from ...nn import modules as _nn
from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from ..graph_module import GraphModule
from ..node import Node

__all__ = ["fuse", "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "matches_module_pattern", "replace_node_module"]


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """Weights and bias of a convolution equal to ``conv`` followed by the BatchNorm statistics."""
    with no_grad():
        w_dtype = conv_w.dtype
        b_dtype = conv_b.dtype if conv_b is not None else w_dtype
        if conv_b is None:
            conv_b = bn_rm.new_zeros(bn_rm.shape) if hasattr(bn_rm, "new_zeros") else bn_rm * 0
        if bn_w is None:
            bn_w = bn_rm * 0 + 1
        if bn_b is None:
            bn_b = bn_rm * 0
        var_rsqrt = (bn_rv + bn_eps).rsqrt()
        shape = [1, -1] + [1] * (conv_w.ndim - 2) if transpose else [-1, 1] + [1] * (conv_w.ndim - 2)
        fused_w = (conv_w * (bn_w * var_rsqrt).reshape(shape)).to(dtype=w_dtype)
        fused_b = ((conv_b - bn_rm) * var_rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_w.requires_grad)


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` with ``bn`` (in eval mode) folded in."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                    bn.running_var, bn.eps, bn.weight, bn.bias,
                                                    transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    with no_grad():
        if linear_b is None:
            linear_b = bn_rm * 0
        scale = bn_w * (bn_rv + bn_eps).rsqrt()
        fused_w = linear_w * scale.unsqueeze(-1).to(dtype=linear_w.dtype)
        fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=linear_b.dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_w.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` with ``bn`` (in eval mode, over its output features) folded in."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             "bn.num_features == 1")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                      bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def _parent_name(target: str) -> tuple:
    *parent, name = target.rsplit(".", 1)
    return (parent[0] if parent else ""), name


def matches_module_pattern(pattern, node: Node, modules: dict) -> bool:
    """Whether ``node`` and its first argument are call_module nodes of the types in ``pattern``."""
    if len(node.args) == 0:
        return False
    for expected_type, current in zip(pattern, (node.args[0], node)):
        if not isinstance(current, Node) or current.op != "call_module":
            return False
        if not isinstance(current.target, str) or current.target not in modules:
            return False
        if type(modules[current.target]) is not expected_type:
            return False
    return True


def replace_node_module(node: Node, modules: dict, new_module: Module) -> None:
    parent_name, name = _parent_name(node.target)
    modules[node.target] = new_module
    setattr(modules[parent_name], name, new_module)


def _patterns() -> list:
    pairs = [("Conv1d", "BatchNorm1d"), ("Conv2d", "BatchNorm2d"), ("Conv3d", "BatchNorm3d"),
             ("Linear", "BatchNorm1d")]
    return [(getattr(_nn, a), getattr(_nn, b)) for a, b in pairs
            if hasattr(_nn, a) and hasattr(_nn, b)]


def fuse(model: Module, inplace: bool = False, no_trace: bool = False) -> GraphModule:
    """Trace ``model`` (eval mode) and fold Conv+BN / Linear+BN pairs; returns a GraphModule."""
    from .._symbolic_trace import symbolic_trace
    if not inplace:
        model = copy.deepcopy(model)
    fx_model = model if (no_trace and isinstance(model, GraphModule)) else symbolic_trace(model)
    modules = dict(fx_model.named_modules())
    new_graph = copy.deepcopy(fx_model.graph)
    for pattern in _patterns():
        for node in new_graph.nodes:
            if not matches_module_pattern(pattern, node, modules):
                continue
            if len(node.args[0].users) > 1:
                continue  # the conv's output is used elsewhere: it must stay unnormalised
            first, bn = modules[node.args[0].target], modules[node.target]
            if not bn.track_running_stats:
                continue
            if pattern[0].__name__.startswith("Conv"):
                fused = fuse_conv_bn_eval(first, bn)
            else:
                fused = fuse_linear_bn_eval(first, bn)
            replace_node_module(node.args[0], modules, fused)
            node.replace_all_uses_with(node.args[0])
            new_graph.erase_node(node)
    return GraphModule(fx_model, new_graph)
