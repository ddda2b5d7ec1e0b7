"""``SubgraphMatcher``: find every place a pattern graph occurs in a graph.

A pattern's placeholders match any value; its other nodes must agree in opcode, target and
literal arguments; nodes inside a match may not be used outside it (except the returned ones).

Example:
    >>> import ember
    >>> from ember.fx import symbolic_trace
    >>> from ember.fx.passes.utils.matcher_utils import SubgraphMatcher
    >>> pattern = symbolic_trace(lambda x: ember.relu(x) + 1).graph
    >>> gm = symbolic_trace(lambda a: ember.relu(ember.relu(a) + 1) + 1)
    >>> len(SubgraphMatcher(pattern).match(gm.graph))
    2
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...graph import Graph
from ...node import Node

__all__ = ["SubgraphMatcher", "InternalMatch"]


@dataclass
class InternalMatch:
    """One occurrence: pattern node -> graph node, plus the graph's inputs and outputs of it."""
    anchors: list
    nodes_map: dict = field(default_factory=dict)
    placeholder_nodes: list = field(default_factory=list)
    returning_nodes: list = field(default_factory=list)
    name_node_map: dict = field(default_factory=dict)

    def __copy__(self):
        return InternalMatch(anchors=self.anchors, nodes_map=self.nodes_map.copy(),
                             placeholder_nodes=self.placeholder_nodes.copy(),
                             returning_nodes=self.returning_nodes.copy())


class SubgraphMatcher:
    """Match ``pattern`` (a Graph) against graphs; see ``match``."""

    def __init__(self, pattern: Graph, match_output: bool = False, match_placeholder: bool = False,
                 remove_overlapping_matches: bool = True, ignore_literals: bool = False) -> None:
        self.pattern = pattern
        self.match_output = match_output
        self.match_placeholder = match_placeholder
        self.remove_overlapping_matches = remove_overlapping_matches
        self.ignore_literals = ignore_literals
        if len(pattern.nodes) == 0:
            raise ValueError("SubgraphMatcher cannot be initialized with an empty pattern")
        self.pattern_placeholder_nodes = [n for n in pattern.nodes if n.op == "placeholder"]
        outputs = [n for n in pattern.nodes if n.op == "output"]
        self.pattern_returning_nodes = [a for a in _flatten(outputs[0].args[0])
                                        if isinstance(a, Node)] if outputs else []
        self.pattern_anchors = self.pattern_returning_nodes

    # ------------------------------------------------------------------ node comparison
    def _nodes_are_equal(self, pn: Node, gn: Node) -> bool:
        if not self.match_placeholder and pn.op == "placeholder":
            return True
        if pn.op != gn.op:
            return False
        if pn.op in ("placeholder", "output"):
            return True
        return pn.target == gn.target

    def _match_literal(self, pa, ga) -> bool:
        if self.ignore_literals:
            return True
        return type(pa) is type(ga) and pa == ga

    def _match_args(self, pa, ga, m: dict) -> bool:
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self._match_nodes(pa, ga, m)
        if isinstance(pa, (list, tuple)):
            return isinstance(ga, (list, tuple)) and len(pa) == len(ga) and \
                all(self._match_args(a, b, m) for a, b in zip(pa, ga))
        if isinstance(pa, dict):
            return isinstance(ga, dict) and pa.keys() == ga.keys() and \
                all(self._match_args(pa[k], ga[k], m) for k in pa)
        if isinstance(ga, Node):
            return False
        return self._match_literal(pa, ga)

    def _match_nodes(self, pn: Node, gn: Node, m: dict) -> bool:
        if pn in m:
            return m[pn] is gn
        if gn in m.values():
            return False
        if not self._nodes_are_equal(pn, gn):
            return False
        m[pn] = gn
        if pn.op == "placeholder":
            return True
        if len(pn.args) != len(gn.args) or pn.kwargs.keys() != gn.kwargs.keys():
            return False
        if not all(self._match_args(a, b, m) for a, b in zip(pn.args, gn.args)):
            return False
        return all(self._match_args(pn.kwargs[k], gn.kwargs[k], m) for k in pn.kwargs)

    def _is_contained(self, m: dict) -> bool:
        """No node of the match, except those it returns, is used outside of it."""
        lookup = {gn: pn for pn, gn in m.items() if pn.op != "placeholder"}
        for gn, pn in lookup.items():
            if pn in self.pattern_returning_nodes:
                continue
            for user in gn.users:
                if user not in lookup:
                    return False
        return True

    # ------------------------------------------------------------------ search
    def match(self, graph: Graph) -> list:
        """All matches of the pattern in ``graph`` (non-overlapping unless told otherwise)."""
        matches: list = []
        nodes = [n for n in graph.nodes if n.op not in ("placeholder", "output")]

        def search(i: int, m: dict) -> None:
            if i == len(self.pattern_anchors):
                if self._is_contained(m):
                    matches.append(self._to_internal(m))
                return
            pa = self.pattern_anchors[i]
            if pa in m:
                search(i + 1, m)
                return
            for gn in nodes:
                trial = dict(m)
                if self._match_nodes(pa, gn, trial):
                    search(i + 1, trial)
        if self.pattern_anchors:
            search(0, {})
        if self.remove_overlapping_matches:
            kept, used = [], set()
            for mt in matches:
                inner = {gn for pn, gn in mt.nodes_map.items() if pn.op != "placeholder"}
                if inner & used:
                    continue
                used |= inner
                kept.append(mt)
            matches = kept
        return matches

    def _to_internal(self, m: dict) -> InternalMatch:
        return InternalMatch(anchors=[m[a] for a in self.pattern_anchors], nodes_map=m,
                             placeholder_nodes=[m[p] for p in self.pattern_placeholder_nodes if p in m],
                             returning_nodes=[m[r] for r in self.pattern_returning_nodes])


def _flatten(a) -> list:
    if isinstance(a, (list, tuple)):
        return [x for e in a for x in _flatten(e)]
    if isinstance(a, dict):
        return [x for e in a.values() for x in _flatten(e)]
    return [a]
