"""``split_module``: partition a GraphModule into submodules chosen by a callback per node.

The result calls ``submod_<partition>`` modules in dependency order; each is a GraphModule taking
the values it needs from earlier partitions (or the inputs) and returning those later ones use.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.fx import symbolic_trace
    >>> from ember.fx.passes.split_module import split_module
    >>> m = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    >>> gm = symbolic_trace(m)
    >>> split = split_module(gm, m, lambda node: 0 if node.name in ("_0", "_1") else 1)
    >>> [n.target for n in split.graph.nodes if n.op == "call_module"]
    ['submod_0', 'submod_1']
"""
from __future__ import annotations

import inspect
import operator
from typing import Callable

from ..graph import Graph
from ..graph_module import GraphModule
from ..node import Node, map_arg

__all__ = ["Partition", "split_module"]


class Partition:
    def __init__(self, name: str) -> None:
        self.name = name
        self.submod_name = f"submod_{name}"
        self.node_names: list = []
        self.inputs: dict = {}
        self.outputs: dict = {}
        self.dependencies: dict = {}
        self.dependents: dict = {}
        self.graph = Graph()
        self.environment: dict = {}
        self.targets: dict = {}

    def __repr__(self) -> str:
        return (f"name: {self.name},\n nodes: {self.node_names},\n inputs: {self.inputs},\n outputs: "
                f"{self.outputs},\n partitions depended on: {self.dependencies},\n partition "
                f"dependents: {self.dependents}")


def split_module(m: GraphModule, root_m, split_callback: Callable, qualname_map: dict | None = None,
                 keep_original_order: bool = False) -> GraphModule:
    """Split ``m`` into ``submod_<split_callback(node)>`` GraphModules (``root_m`` owns weights)."""
    partitions: dict = {}
    orig_nodes: dict = {}
    node_partition: dict = {}

    for node in m.graph.nodes:
        orig_nodes[node.name] = node
        if node.op in ("placeholder", "output"):
            continue
        name = str(split_callback(node))
        part = partitions.setdefault(name, Partition(name))
        part.node_names.append(node.name)
        node_partition[node.name] = name

    def record_cross_partition_use(def_node: Node, use_node: Node | None) -> None:
        def_part = node_partition.get(def_node.name)
        use_part = node_partition.get(use_node.name) if use_node is not None else None
        if def_part != use_part:
            if def_part is not None:
                partitions[def_part].outputs.setdefault(def_node.name)
                if use_part is not None:
                    partitions[def_part].dependents.setdefault(use_part)
            if use_part is not None:
                partitions[use_part].inputs.setdefault(def_node.name)
                if def_part is not None:
                    partitions[use_part].dependencies.setdefault(def_part)

    for node in m.graph.nodes:
        if node.op == "output":
            map_arg(node.args[0], lambda n: record_cross_partition_use(n, None))
        elif node.op != "placeholder":
            map_arg(node.args, lambda n, node=node: record_cross_partition_use(n, node))
            map_arg(node.kwargs, lambda n, node=node: record_cross_partition_use(n, node))

    # partitions in dependency order (Kahn's algorithm)
    pending = {name: len(p.dependencies) for name, p in partitions.items()}
    ready = [name for name, c in pending.items() if c == 0]
    order: list = []
    while ready:
        name = ready.pop(0)
        order.append(name)
        for dep in partitions[name].dependents:
            pending[dep] -= 1
            if pending[dep] == 0:
                ready.append(dep)
    if len(order) != len(partitions):
        raise RuntimeError("cycle exists between partitions!")

    # each partition's graph: placeholders for inputs, then its nodes
    for name in order:
        part = partitions[name]
        for inp in part.inputs:
            ph = part.graph.placeholder(inp)
            ph.meta = orig_nodes[inp].meta.copy()
            part.environment[orig_nodes[inp]] = ph
    for node in m.graph.nodes:
        if node.name not in node_partition:
            continue
        part = partitions[node_partition[node.name]]
        env = part.environment
        args = map_arg(node.args, lambda n: env[n])
        kwargs = map_arg(node.kwargs, lambda n: env[n])
        target = node.target
        if node.op in ("get_attr", "call_module"):
            obj = root_m
            for atom in target.split("."):
                if not hasattr(obj, atom):
                    raise AttributeError(f"Operator target {node.target} not found!")
                obj = getattr(obj, atom)
            target = node.target.replace(".", "_")
            part.targets[target] = obj
            if qualname_map is not None:
                qualname_map[f"{part.submod_name}.{target}"] = node.target
        new = part.graph.create_node(node.op, target, args, kwargs, name=node.name, type_expr=node.type)
        new.meta = node.meta.copy()
        env[node] = new

    base = Graph()
    base_env: dict = {}
    base_attrs: dict = {}
    for node in m.graph.nodes:
        if node.op == "placeholder":
            default = node.args[0] if node.args else inspect.Signature.empty
            base_env[node] = base.placeholder(node.target, type_expr=node.type, default_value=default)
            base_env[node].meta = node.meta.copy()
    for name in order:
        part = partitions[name]
        outs = tuple(part.environment[orig_nodes[o]] for o in part.outputs)
        part.graph.output(outs[0] if len(outs) == 1 else outs)
        base_attrs[part.submod_name] = GraphModule(part.targets, part.graph)
        call = base.call_module(part.submod_name, tuple(base_env[orig_nodes[i]]
                                                        for i in part.inputs))
        if len(outs) > 1:
            for i, o in enumerate(part.outputs):
                base_env[orig_nodes[o]] = base.call_function(operator.getitem, (call, i))
        elif len(outs) == 1:
            base_env[orig_nodes[next(iter(part.outputs))]] = call
    for node in m.graph.nodes:
        if node.op == "output":
            base.output(map_arg(node.args[0], lambda n: base_env[n]))
    return GraphModule(base_attrs, base)
