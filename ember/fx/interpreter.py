"""``Interpreter`` runs a GraphModule node by node; ``Transformer`` rebuilds one while doing so.

Subclass and override one method per opcode (``call_function``, ``call_module``...) or ``run_node``
to observe or change execution: shape propagation, FLOP counting and rewrites are written this way.

Example:
    >>> import ember
    >>> from ember.fx import Interpreter, symbolic_trace
    >>> class NegSigmoid(Interpreter):
    ...     def call_function(self, target, args, kwargs):
    ...         if target is ember.sigmoid:
    ...             return -super().call_function(target, args, kwargs)
    ...         return super().call_function(target, args, kwargs)
    >>> gm = symbolic_trace(lambda x: ember.sigmoid(x))
    >>> NegSigmoid(gm).run(ember.zeros(1)).tolist()
    [-0.5]
"""
from __future__ import annotations

import inspect

from .graph import Graph
from .graph_module import GraphModule
from .node import Node, map_aggregate, map_arg
from .proxy import Proxy, TracerBase

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Execute ``module``'s graph on concrete values, one overridable method per opcode."""

    def __init__(self, module, garbage_collect_values: bool = True, graph: Graph | None = None):
        self.module = module
        self.submodules = dict(self.module.named_modules())
        self.graph = graph if graph is not None else self.module.graph
        self.env: dict = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            seen: set = set()
            self.user_to_last_uses: dict = {}
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in seen:
                        seen.add(n)
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env: dict | None = None, enable_io_processing: bool = True):
        """Run the graph on ``args``; ``initial_env`` pre-fills values of some nodes."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    msg = f"While executing {node.format_node()}"
                    msg = f"{e.args[0]}\n\n{msg}" if e.args else msg
                    msg += f"\nOriginal traceback:\n{node.stack_trace}"
                    e.args = (msg,) + e.args[1:]
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list: list):
        """Run with the inputs in a list that is cleared (so inputs can be freed early)."""
        args_iter = iter(args_list)
        env = {}
        for n in self.graph.nodes:
            if n.op == "placeholder":
                env[n] = next(args_iter)
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n: Node):
        """Fetch ``n``'s argument values from the environment and call the opcode's method."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ------------------------------------------------------------------ opcodes
    def placeholder(self, target: str, args: tuple, kwargs: dict):
        if target.startswith("**"):
            return list(self.args_iter)
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               "was not passed in!") from si

    def get_attr(self, target: str, args: tuple, kwargs: dict):
        return self.fetch_attr(target)

    def call_function(self, target, args: tuple, kwargs: dict):
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict):
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict):
        submod = self.fetch_attr(target)
        return submod(*args, **kwargs)

    def output(self, target, args: tuple, kwargs: dict):
        return args[0]

    # ------------------------------------------------------------------ helpers
    def fetch_attr(self, target: str):
        """The attribute at dotted path ``target`` of the module."""
        target_atoms = target.split(".")
        attr_itr = self.module
        for i, atom in enumerate(target_atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target "
                                   f"{'.'.join(target_atoms[:i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple:
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return tuple(args), dict(kwargs)

    def map_nodes_to_values(self, args, n: Node):
        def load_arg(n_arg: Node):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[n_arg]
        return _to_plain(map_arg(args, load_arg))


def _to_plain(a):
    """immutable_list/dict -> list/dict, so callees may mutate what they receive."""
    if isinstance(a, tuple) and not hasattr(a, "_fields"):
        return tuple(_to_plain(x) for x in a)
    if isinstance(a, list):
        return [_to_plain(x) for x in a]
    if isinstance(a, dict):
        return {k: _to_plain(v) for k, v in a.items()}
    return a


class _TransformerTracer(TracerBase):
    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph
        self.tensor_attrs: dict = {}

    def is_leaf_module(self, _, __) -> bool:
        return True


class Transformer(Interpreter):
    """Run the graph on Proxies to build a new GraphModule; override opcode methods to rewrite.

    Example:
        >>> import ember
        >>> from ember.fx import Transformer, symbolic_trace
        >>> class ReluToGelu(Transformer):
        ...     def call_function(self, target, args, kwargs):
        ...         target = ember.nn.functional.gelu if target is ember.relu else target
        ...         return super().call_function(target, args, kwargs)
        >>> gm = ReluToGelu(symbolic_trace(lambda x: ember.relu(x))).transform()
        >>> [n.op for n in gm.graph.nodes], gm.graph.find_nodes(op="call_function")[0].name
        (['placeholder', 'call_function', 'output'], 'gelu')
    """

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph._codegen = module.graph._codegen
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def call_function(self, target, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict):
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def run_node(self, n: Node):
        result = super().run_node(n)
        if isinstance(result, Proxy) and n.op != "output":
            result.node.meta = dict(n.meta)
        return result

    def transform(self) -> GraphModule:
        """Run the transformation and return the new GraphModule."""
        result = super().run(enable_io_processing=False)
        if result is not None:
            def strip_proxy(a):
                return a.node if isinstance(a, Proxy) else a
            self.new_graph.output(map_aggregate(result, strip_proxy))
        return GraphModule(self.module, self.new_graph)
