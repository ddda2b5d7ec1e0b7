"""``FxGraphDrawer``: a GraphModule as a Graphviz DOT graph (text always; SVG/PNG via ``dot``).

Example:
    >>> import ember
    >>> from ember.fx import symbolic_trace
    >>> from ember.fx.passes.graph_drawer import FxGraphDrawer
    >>> gm = symbolic_trace(lambda x: ember.relu(x))
    >>> dot = FxGraphDrawer(gm, "f").get_dot_graph().to_string()
    >>> dot.splitlines()[0], '"x" -> "relu";' in dot
    ('digraph "f" {', True)
"""
from __future__ import annotations

import shutil
import subprocess

from ..graph_module import GraphModule
from ..node import Node, _format_arg
from .shape_prop import TensorMetadata

__all__ = ["FxGraphDrawer", "DotGraph"]

_COLORS = ["#CAFFE3", "#E0FFCA", "#FFE1CA", "#FFFFCA", "#CAD9FF", "#E5CAFF", "#FFCAF3",
           "#FFCACA", "#A3C4F3", "#FDE4CF", "#F1C0E8", "#CFBAF0"]
_OP_COLORS = {"placeholder": "AliceBlue", "get_attr": "LemonChiffon1", "output": "LightCyan"}


def _quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _record_escape(s: str) -> str:
    """Escape the characters that structure a record label."""
    for ch in "{}|<>":
        s = s.replace(ch, "\\" + ch)
    return s


class DotGraph:
    """DOT source plus rendering through Graphviz's ``dot`` program when it is installed."""

    def __init__(self, name: str, nodes: list, edges: list) -> None:
        self.name = name
        self.nodes = nodes
        self.edges = edges

    def to_string(self) -> str:
        lines = [f"digraph {_quote(self.name)} {{", "  rankdir=TB;",
                 '  node [shape=record, style="filled,rounded", fontname="Courier"];']
        for name, attrs in self.nodes:
            attr_s = ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items())
            lines.append(f"  {_quote(name)} [{attr_s}];")
        for a, b in self.edges:
            lines.append(f"  {_quote(a)} -> {_quote(b)};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    __str__ = to_string

    def create(self, prog: str = "dot", format: str = "svg") -> bytes:
        exe = shutil.which(prog)
        if exe is None:
            raise RuntimeError(f"Graphviz's '{prog}' program was not found on PATH: rendering to "
                               f"{format} needs it (the DOT text is available via to_string())")
        return subprocess.run([exe, f"-T{format}"], input=self.to_string().encode(),
                              capture_output=True, check=True).stdout

    def create_svg(self) -> bytes:
        return self.create(format="svg")

    def create_png(self) -> bytes:
        return self.create(format="png")

    def write_raw(self, path) -> None:
        with open(path, "w") as f:
            f.write(self.to_string())

    def write_svg(self, path) -> None:
        with open(path, "wb") as f:
            f.write(self.create_svg())

    def write_png(self, path) -> None:
        with open(path, "wb") as f:
            f.write(self.create_png())


class FxGraphDrawer:
    """Draw ``graph_module`` (and, as extra graphs, its GraphModule submodules)."""

    def __init__(self, graph_module: GraphModule, name: str, ignore_getattr: bool = False,
                 ignore_parameters_and_buffers: bool = False, skip_node_names_in_args: bool = True,
                 parse_stack_trace: bool = False, dot_graph_shape: str | None = None,
                 normalize_args: bool = False) -> None:
        self._name = name
        self._ignore_getattr = ignore_getattr
        self._skip_node_names_in_args = skip_node_names_in_args
        self._dot_graphs = {name: self._to_dot(graph_module, name)}
        for node in graph_module.graph.nodes:
            if node.op == "call_module":
                sub = graph_module.get_submodule(node.target)
                if isinstance(sub, GraphModule):
                    self._dot_graphs[f"{name}_{node.target}"] = self._to_dot(
                        sub, f"{name}_{node.target}")

    def get_dot_graph(self, submod_name: str | None = None) -> DotGraph:
        if submod_name is None:
            return self.get_main_dot_graph()
        return self.get_submod_dot_graph(submod_name)

    def get_main_dot_graph(self) -> DotGraph:
        return self._dot_graphs[self._name]

    def get_submod_dot_graph(self, submod_name: str) -> DotGraph:
        return self._dot_graphs[f"{self._name}_{submod_name}"]

    def get_all_dot_graphs(self) -> dict:
        return self._dot_graphs

    def _label(self, gm: GraphModule, node: Node) -> str:
        parts = [f"name=%{node.name}", f"op_code={node.op}"]
        if node.op == "call_module":
            leaf = gm.get_submodule(node.target)
            parts.append(f"{type(leaf).__name__}")
            extra = leaf.extra_repr()
            if extra:
                parts.append(extra)
        else:
            target = node._pretty_print_target(node.target)
            parts.append(f"target={target}")
            if node.args:
                parts.append(f"args={_format_arg(node.args, max_list_len=8)}")
            if node.kwargs:
                parts.append(f"kwargs={_format_arg(node.kwargs, max_list_len=8)}")
        tm = node.meta.get("tensor_meta")
        if isinstance(tm, TensorMetadata):
            parts.append(f"{str(tm.dtype).split('.')[-1]}{list(tm.shape)}")
        return "{" + "|".join(_record_escape(p) + "\\l" for p in parts) + "}"

    def _to_dot(self, gm: GraphModule, name: str) -> DotGraph:
        nodes, edges = [], []
        for node in gm.graph.nodes:
            if self._ignore_getattr and node.op == "get_attr":
                continue
            if node.op in _OP_COLORS:
                color = _OP_COLORS[node.op]
            else:
                key = node.target if isinstance(node.target, str) else node._pretty_print_target(
                    node.target)
                color = _COLORS[sum(map(ord, key)) % len(_COLORS)]
            nodes.append((node.name, {"label": self._label(gm, node), "fillcolor": color}))
            for inp in node.all_input_nodes:
                if self._ignore_getattr and inp.op == "get_attr":
                    continue
                edges.append((inp.name, node.name))
        return DotGraph(name, nodes, edges)
