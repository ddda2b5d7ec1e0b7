"""Split a joint forward+backward graph into a forward and a backward graph (layer L7).

The joint graph takes ``(*primals, *tangents)`` and returns ``(*forward_outputs, *gradients)``.
``default_partition`` gives the forward graph every node the forward outputs need; the values the
backward graph reads from it are *saved* (extra forward outputs, then the first backward inputs).
Saving primals is preferred over saving intermediates: a saved view or non-random pointwise node
whose inputs are primals or already saved is recomputed in backward instead (applied until nothing
changes, so cheap pointwise chains are recomputed); matmul, conv, reductions and random ops never are.

Example:
    >>> import ember
    >>> from ember._functorch.aot_autograd import aot_function
    >>> graphs = []
    >>> def keep(gm, example_inputs):
    ...     graphs.append(gm)
    ...     return gm
    >>> f = aot_function(lambda x: x.sin().cos(), keep)
    >>> _ = f(ember.randn(3, requires_grad=True)).sum().backward()
    >>> [n.name for n in graphs[1].graph.find_nodes(op="placeholder")]  # saved x only, then the tangent
    ['primals_1', 'tangents_1']
"""
from __future__ import annotations

import operator

from ..fx.graph import Graph
from ..fx.graph_module import GraphModule
from ..fx.node import Node

__all__ = ["default_partition", "is_recomputable"]


def is_recomputable(node: Node) -> bool:
    """Cheap to run again in backward: a view, or a pointwise op that draws no random numbers."""
    op = node.meta.get("ember_op")
    return node.op == "call_function" and op is not None and op.kind in ("pointwise", "view")


def _inputs(node: Node) -> list:
    return list(node._input_nodes)


def _ancestors(roots) -> set:
    seen, stack = set(), [r for r in roots if isinstance(r, Node)]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(_inputs(n))
    return seen


def default_partition(joint_module: GraphModule, _joint_inputs=None, *, num_fwd_outputs: int,
                      num_primals: int | None = None) -> tuple:
    """(forward GraphModule, backward GraphModule) from ``joint_module``.

    The forward graph returns ``(*forward_outputs, *saved)``; the backward graph takes
    ``(*saved, *tangents)`` and returns the gradients (None where an input gets none).
    """
    graph = joint_module.graph
    placeholders = graph.find_nodes(op="placeholder")
    if num_primals is None:
        num_primals = sum(1 for p in placeholders if not p.name.startswith("tangents"))
    primals, tangents = placeholders[:num_primals], placeholders[num_primals:]
    out_node = graph.find_nodes(op="output")[0]
    outs = list(out_node.args[0])
    fwd_outs, bwd_outs = outs[:num_fwd_outputs], outs[num_fwd_outputs:]

    forward = _ancestors(fwd_outs) | set(primals)
    # an element of a forward multi-output op is taken in forward (never save a tuple)
    for n in list(forward):
        for u in n.users:
            if u.op == "call_function" and u.target is operator.getitem and set(_inputs(u)) <= forward:
                forward.add(u)
    primal_set, tangent_set = set(primals), set(tangents)

    def backward_walk(saved: set) -> set:
        """Backward nodes reached from the gradients, stopping at saved values; grows ``saved``."""
        nodes, stack = set(), [b for b in bwd_outs if isinstance(b, Node)]
        while stack:
            n = stack.pop()
            if n in nodes or n in saved or n in tangent_set:
                continue
            if n.op == "get_attr":  # constants are fetched by the backward module itself
                nodes.add(n)
                continue
            if n in forward and not (n in recompute):
                saved.add(n)
                continue
            if n.op == "placeholder":
                saved.add(n)
                continue
            nodes.add(n)
            stack.extend(_inputs(n))
        return nodes

    recompute: set = set()
    saved: set = set()
    backward_walk(saved)
    changed = True
    while changed:
        changed = False
        for n in sorted(saved, key=_order(graph)):
            if n in primal_set or n.op != "call_function" or not is_recomputable(n):
                continue
            new = [i for i in _inputs(n) if i not in saved]
            if all(i in primal_set or i.op == "get_attr" for i in new):
                recompute.add(n)
                changed = True
        if changed:
            saved = set()
            backward_walk(saved)
    saved_list = sorted(saved, key=_order(graph))
    bwd_nodes = backward_walk(set(saved))

    fwd_graph = Graph()
    env: dict = {}
    for n in graph.nodes:
        if n in forward or n.op == "get_attr" and any(u in forward for u in n.users):
            env[n] = fwd_graph.node_copy(n, env.__getitem__)
    fwd_graph.output(tuple(env[o] if isinstance(o, Node) else o for o in fwd_outs)
                     + tuple(env[s] for s in saved_list))
    bwd_graph = Graph()
    benv: dict = {}
    for s in saved_list:
        ph = bwd_graph.placeholder(s.name)
        ph.meta.update(s.meta)
        benv[s] = ph
    for t in tangents:
        benv[t] = bwd_graph.node_copy(t)
    for n in graph.nodes:
        if n in bwd_nodes:
            benv[n] = bwd_graph.node_copy(n, benv.__getitem__)
    bwd_graph.output(tuple(benv[b] if isinstance(b, Node) else b for b in bwd_outs))
    fwd_graph.eliminate_dead_code()
    bwd_graph.eliminate_dead_code()
    consts = {n.target: getattr(joint_module, n.target) for n in graph.nodes if n.op == "get_attr"}
    fw = GraphModule({k: v for k, v in consts.items()
                      if any(n.target == k for n in fwd_graph.nodes)}, fwd_graph, "ForwardModule")
    bw = GraphModule({k: v for k, v in consts.items()
                      if any(n.target == k for n in bwd_graph.nodes)}, bwd_graph, "BackwardModule")
    return fw, bw


def _order(graph: Graph):
    index = {n: i for i, n in enumerate(graph.nodes)}
    return index.__getitem__
