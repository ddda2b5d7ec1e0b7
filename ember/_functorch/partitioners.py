"""Split a joint forward+backward graph into a forward and a backward graph (layer L7).

The joint graph takes ``(*primals, *tangents)`` and returns ``(*forward_outputs, *gradients)``.
``default_partition`` gives the forward graph every node the forward outputs need; the values the
backward graph reads from it are *saved* (extra forward outputs, then the first backward inputs).
Saving primals is preferred over saving intermediates: a saved view or non-random pointwise node
whose inputs are primals or already saved is recomputed in backward instead (applied until nothing
changes, so cheap pointwise chains are recomputed); matmul, conv, reductions and random ops never are.
``min_cut_rematerialization_partition`` chooses the saved set as a minimum cut in bytes instead.

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
from collections import deque

from ..fx.graph import Graph
from ..fx.graph_module import GraphModule
from ..fx.node import Node
from .._tensor_base import TensorBase

__all__ = ["default_partition", "min_cut_rematerialization_partition", "is_recomputable"]


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


class _Joint:
    """The parts of a joint graph a partitioner needs."""

    def __init__(self, joint_module: GraphModule, num_fwd_outputs: int, num_primals) -> None:
        self.module = joint_module
        self.graph = graph = joint_module.graph
        placeholders = graph.find_nodes(op="placeholder")
        if num_primals is None:
            num_primals = sum(1 for p in placeholders if not p.name.startswith("tangents"))
        self.primals, self.tangents = placeholders[:num_primals], placeholders[num_primals:]
        outs = list(graph.find_nodes(op="output")[0].args[0])
        self.fwd_outs, self.bwd_outs = outs[:num_fwd_outputs], outs[num_fwd_outputs:]
        forward = _ancestors(self.fwd_outs) | set(self.primals)
        # an element of a forward multi-output op is taken in forward (never save a tuple)
        for n in list(forward):
            for u in n.users:
                if u.op == "call_function" and u.target is operator.getitem \
                        and set(_inputs(u)) <= forward:
                    forward.add(u)
        self.forward = forward
        self.primal_set, self.tangent_set = set(self.primals), set(self.tangents)

    def backward_walk(self, saved: set, recompute: set) -> set:
        """Backward nodes reached from the gradients, stopping at saved values (forward nodes not
        in ``recompute`` become saved); ``saved`` grows."""
        nodes, stack = set(), [b for b in self.bwd_outs if isinstance(b, Node)]
        while stack:
            n = stack.pop()
            if n in nodes or n in saved or n in self.tangent_set:
                continue
            if n.op == "get_attr":  # constants are fetched by the backward module itself
                nodes.add(n)
                continue
            if n.op == "placeholder" or n in self.forward and n not in recompute:
                saved.add(n)
                continue
            nodes.add(n)
            stack.extend(_inputs(n))
        return nodes

    def build(self, recompute: set) -> tuple:
        saved: set = set()
        bwd_nodes = self.backward_walk(saved, recompute)
        graph = self.graph
        saved_list = sorted(saved, key=_order(graph))
        fwd_graph = Graph()
        env: dict = {}
        for n in graph.nodes:
            if n in self.forward or n.op == "get_attr" and any(u in self.forward for u in n.users):
                env[n] = fwd_graph.node_copy(n, env.__getitem__)
        fwd_graph.output(tuple(env[o] if isinstance(o, Node) else o for o in self.fwd_outs)
                         + tuple(env[s] for s in saved_list))
        bwd_graph = Graph()
        benv: dict = {}
        for s in saved_list:
            ph = bwd_graph.placeholder(s.name)
            ph.meta.update(s.meta)
            benv[s] = ph
        for t in self.tangents:
            benv[t] = bwd_graph.node_copy(t)
        for n in graph.nodes:
            if n in bwd_nodes:
                benv[n] = bwd_graph.node_copy(n, benv.__getitem__)
        bwd_graph.output(tuple(benv[b] if isinstance(b, Node) else b for b in self.bwd_outs))
        fwd_graph.eliminate_dead_code()
        bwd_graph.eliminate_dead_code()
        return _module(self.module, fwd_graph, "ForwardModule"), \
            _module(self.module, bwd_graph, "BackwardModule")


def _module(joint_module, graph: Graph, name: str) -> GraphModule:
    consts = {n.target: getattr(joint_module, n.target) for n in graph.nodes if n.op == "get_attr"}
    return GraphModule(consts, graph, name)


def default_partition(joint_module: GraphModule, _joint_inputs=None, *, num_fwd_outputs: int,
                      num_primals: int | None = None) -> tuple:
    """(forward GraphModule, backward GraphModule) from ``joint_module``.

    The forward graph returns ``(*forward_outputs, *saved)``; the backward graph takes
    ``(*saved, *tangents)`` and returns the gradients (None where an input gets none).
    """
    j = _Joint(joint_module, num_fwd_outputs, num_primals)
    recompute: set = set()
    saved: set = set()
    j.backward_walk(saved, recompute)
    changed = True
    while changed:
        changed = False
        for n in sorted(saved, key=_order(j.graph)):
            if n in j.primal_set or n.op != "call_function" or not is_recomputable(n):
                continue
            new = [i for i in _inputs(n) if i not in saved]
            if all(i in j.primal_set or i.op == "get_attr" for i in new):
                recompute.add(n)
                changed = True
        if changed:
            saved = set()
            j.backward_walk(saved, recompute)
    return j.build(recompute)


_INF = float("inf")
_SRC, _SINK = "source", "sink"


def _nbytes(node: Node) -> float:
    v = node.meta.get("val")
    if isinstance(v, TensorBase):
        return float(v.numel() * v.element_size())
    return _INF  # a tuple or a non-tensor cannot be saved


def _max_flow_source_side(cap: dict) -> set:
    """Edmonds-Karp on residual capacities ``cap[u][v]`` (updated in place); returns the vertices
    still reachable from the source, i.e. the source side of a minimum cut."""
    while True:
        parent = {_SRC: None}
        queue = deque([_SRC])
        while queue and _SINK not in parent:
            u = queue.popleft()
            for v, c in cap[u].items():
                if c > 0 and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if _SINK not in parent:
            return set(parent)
        path, v = [], _SINK
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        push = min(cap[u][v] for u, v in path)
        if push == _INF:
            raise RuntimeError("min-cut partition: every cut needs a value that cannot be saved")
        for u, v in path:
            cap[u][v] -= push
            cap[v][u] = cap[v].get(u, 0.0) + push


def min_cut_rematerialization_partition(joint_module: GraphModule, _joint_inputs=None, *,
                                        num_fwd_outputs: int, num_primals: int | None = None,
                                        compiler=None) -> tuple:
    """Like ``default_partition``, but the saved set is a minimum cut (in bytes) between what
    forward must compute and what backward reads: views, non-random pointwise ops and creation ops
    may be recomputed in backward; matmul, conv, reductions and random ops may not; saving a
    primal costs nothing (the caller holds it anyway)."""
    j = _Joint(joint_module, num_fwd_outputs, num_primals)
    cap: dict = {_SRC: {}, _SINK: {}}

    def edge(u, v, c) -> None:
        cap.setdefault(u, {})
        cap.setdefault(v, {})
        cap[u][v] = cap[u].get(v, 0.0) + c
        cap[v].setdefault(u, 0.0)

    backward_only = j.backward_walk(set(), set())
    for n in j.forward:
        if n.op == "get_attr":
            continue
        edge((n, 0), (n, 1), 0.0 if n in j.primal_set else _nbytes(n))
        movable = n.op == "call_function" and (n.target is operator.getitem or (
            n.meta.get("ember_op") is not None
            and n.meta["ember_op"].kind in ("pointwise", "view", "creation")))
        if n in j.primal_set or not movable:
            edge(_SRC, (n, 0), _INF)
        for u in n.users:
            if u in j.forward:
                edge((n, 1), (u, 0), _INF)
            elif u in backward_only or u.op == "output":
                edge((n, 1), _SINK, _INF)
    source_side = _max_flow_source_side(cap)
    recompute = {n for n in j.forward if n.op != "get_attr" and (n, 0) not in source_side}
    return j.build(recompute)


def _order(graph: Graph):
    index = {n: i for i, n in enumerate(graph.nodes)}
    return index.__getitem__
