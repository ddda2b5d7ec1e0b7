"""Graph fusion for FX quantization: (conv, bn[, relu]), (conv, relu), (linear, relu), (bn, relu).

A chain matches when each node's output has exactly one user, the next one. Eval-mode chains fold
the batch norm into the conv (``ConvReLU2d(conv_with_bn_folded, relu)``); QAT chains keep it
(``ConvBnReLU2d``). ``F.relu`` fuses like ``nn.ReLU``; ``torch.relu`` does not (as in torch).

Example:
    >>> import ember
    >>> from ember import nn, fx
    >>> gm = fx.symbolic_trace(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    >>> type(fuse_graph(gm, is_qat=False).get_submodule("0")).__name__
    'LinearReLU'
"""
from __future__ import annotations

from .... import nn
from ..fuse_modules import get_fuser_method
from ._patterns import FUSION_PATTERNS, RELU_FUNCTIONS

__all__ = ["fuse_graph", "set_module"]


def set_module(root, target: str, mod) -> None:
    *parents, last = target.split(".")
    for p in parents:
        root = getattr(root, p)
    setattr(root, last, mod)


def _step_matches(node, want, modules) -> bool:
    if node.op == "call_module":
        return isinstance(modules.get(node.target), want)
    if want is nn.ReLU and node.op == "call_function" and node.target in RELU_FUNCTIONS:
        return not node.kwargs.get("inplace", False) or True
    return False


def _match(node, types, modules):
    if node.op != "call_module" or not isinstance(modules.get(node.target), types[0]):
        return None
    chain = [node]
    for want in types[1:]:
        users = list(chain[-1].users)
        if len(users) != 1 or not _step_matches(users[0], want, modules) or \
                users[0].args[0] is not chain[-1]:
            return None
        chain.append(users[0])
    return chain


def fuse_graph(gm, is_qat: bool):
    """Fuse known module chains of GraphModule ``gm`` in place; returns ``gm``."""
    modules = dict(gm.named_modules())
    for node in list(gm.graph.nodes):
        if node.graph is None or node.op != "call_module":
            continue
        for types, _ in FUSION_PATTERNS:
            chain = _match(node, types, modules)
            if chain is None:
                continue
            mods = [modules[n.target] if n.op == "call_module" else nn.ReLU() for n in chain]
            if not is_qat and any(isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)) for m in mods):
                for m in mods:
                    m.eval()
            fused = get_fuser_method(tuple(type(m) for m in mods))(is_qat, *mods)
            set_module(gm, node.target, fused)
            modules[node.target] = fused
            chain[-1].replace_all_uses_with(node)
            for n in reversed(chain[1:]):
                gm.graph.erase_node(n)
            break
    gm.graph.lint()
    gm.recompile()
    return gm
