"""``replace_pattern``: rewrite every occurrence of a pattern subgraph with a replacement.

Patterns and replacements are functions (or GraphModules) taking the matched inputs as arguments.

Example:
    >>> import ember
    >>> from ember.fx import symbolic_trace, replace_pattern
    >>> gm = symbolic_trace(lambda x: ember.neg(ember.neg(x)) * 2)
    >>> matches = replace_pattern(gm, lambda x: ember.neg(ember.neg(x)), lambda x: x)
    >>> len(matches), [n.op for n in gm.graph.nodes]
    (1, ['placeholder', 'call_function', 'output'])
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..nn.modules.module import Module
from .graph import Graph
from .graph_module import GraphModule
from .node import Node
from .passes.utils.matcher_utils import SubgraphMatcher

__all__ = ["Match", "ReplacedPatterns", "replace_pattern", "replace_pattern_with_filters"]


class Match(NamedTuple):
    anchor: Node
    nodes_map: dict


@dataclass
class ReplacedPatterns:
    anchor: Node
    nodes_map: dict
    replacements: list


def _to_graph(obj) -> tuple:
    """(graph, module holding its attributes) for a function, GraphModule or Graph."""
    if isinstance(obj, GraphModule):
        return obj.graph, obj
    if isinstance(obj, Graph):
        return obj, obj.owning_module
    from ._symbolic_trace import symbolic_trace
    gm = symbolic_trace(obj)
    return gm.graph, gm


def _fetch(obj, dotted: str):
    for atom in dotted.split("."):
        if not hasattr(obj, atom):
            return None
        obj = getattr(obj, atom)
    return obj


def _copy_attrs(gm: GraphModule, owner, graph: Graph) -> None:
    """Install into ``gm`` the attributes the replacement's get_attr/call_module nodes name."""
    if owner is None:
        return
    for node in graph.nodes:
        if node.op in ("get_attr", "call_module") and _fetch(gm, node.target) is None:
            val = _fetch(owner, node.target)
            if node.op == "call_module":
                gm.add_submodule(node.target, copy.deepcopy(val))
            else:
                *path, name = node.target.split(".")
                parent = gm if not path else _fetch(gm, ".".join(path))
                if parent is None:
                    gm.add_submodule(".".join(path), Module())
                    parent = _fetch(gm, ".".join(path))
                setattr(parent, name, val)


def replace_pattern(gm: GraphModule, pattern, replacement) -> list:
    """Replace each non-overlapping match of ``pattern`` with ``replacement``; returns ``Match``es."""
    found = _replace_pattern(gm, pattern, replacement)
    return [Match(anchor=m.anchor, nodes_map=m.nodes_map) for m in found]


def replace_pattern_with_filters(gm: GraphModule, pattern, replacement=None,
                                 match_filters: list | None = None, ignore_literals: bool = False,
                                 replacement_callback: Callable | None = None) -> list:
    """``replace_pattern`` keeping only matches every ``filter(match, graph, pattern_graph)`` accepts."""
    return _replace_pattern(gm, pattern, replacement, match_filters, ignore_literals,
                            replacement_callback)


def _replace_pattern(gm, pattern, replacement, match_filters=None, ignore_literals=False,
                     replacement_callback=None) -> list:
    original_graph = gm.graph
    pattern_graph, _ = _to_graph(pattern)
    matcher = SubgraphMatcher(pattern_graph, match_output=False, match_placeholder=False,
                              remove_overlapping_matches=True, ignore_literals=ignore_literals)
    matches: list = [m for m in matcher.match(original_graph)
                     if all(f(m, original_graph, pattern_graph) for f in (match_filters or []))]
    common = None if replacement is None else _to_graph(replacement)
    replaced: list = []
    match_changed_node: dict = {}
    for match in matches:
        replacement_graph, owner = common if replacement_callback is None else \
            (replacement_callback(match, original_graph, pattern_graph), None)
        rep_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
        if len(rep_placeholders) != len(match.placeholder_nodes):
            raise AssertionError("Pattern and replacement must take the same number of inputs")
        val_map: dict = {}
        for rn, gn in zip(rep_placeholders, match.placeholder_nodes):
            gn = match_changed_node.get(gn, gn)
            val_map[rn] = gn
        # insert before the first user of what the match returns (or after the match)
        user_nodes: set = set()
        for n in match.returning_nodes:
            user_nodes.update(n.users)
        insert_point = None
        for n in original_graph.nodes:
            if n in user_nodes:
                insert_point = n
                break
        if insert_point is None:
            nxt = None
            for n in reversed(original_graph.nodes):
                if n in match.returning_nodes:
                    insert_point = nxt
                    break
                nxt = n
        _copy_attrs(gm, owner, replacement_graph)
        with original_graph.inserting_before(insert_point):
            copied = original_graph.graph_copy(replacement_graph, val_map)
        if isinstance(copied, Node):
            copied = (copied,)
        copied = list(copied) if isinstance(copied, (list, tuple)) else [copied]
        if len(copied) != len(match.returning_nodes):
            raise AssertionError("The replacement must return as many values as the pattern")
        for gn, new in zip(match.returning_nodes, copied):
            gn.replace_all_uses_with(new)
            match_changed_node[gn] = new
        inner = [gn for pn, gn in match.nodes_map.items()
                 if pn.op not in ("placeholder", "output")]
        order = {n: i for i, n in enumerate(original_graph.nodes)}
        for gn in sorted(inner, key=lambda n: -order.get(n, -1)):
            if not gn._erased and len(gn.users) == 0:
                original_graph.erase_node(gn)
        replacement_nodes = [val_map[n] for n in replacement_graph.nodes
                             if n.op not in ("placeholder", "output") and n in val_map]
        replaced.append(ReplacedPatterns(anchor=match.anchors[0], nodes_map=match.nodes_map,
                                         replacements=replacement_nodes))
    gm.recompile()
    return replaced

