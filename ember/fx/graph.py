"""``Graph``: a doubly linked list of Nodes in execution order, with builders, rewriting and codegen.

Example:
    >>> import ember
    >>> from ember.fx import Graph
    >>> g = Graph()
    >>> x = g.placeholder("x")
    >>> r = g.call_function(ember.relu, (x,))
    >>> _ = g.output(r)
    >>> print(g)
    graph():
        %x : [num_users=1] = placeholder[target=x]
        %relu : [num_users=1] = call_function[target=ember.relu](args = (%x,), kwargs = {})
        return relu
"""
from __future__ import annotations

import copy
import inspect
import re
import warnings
from typing import Callable

from ._codegen import (CodeGen, PythonCode, _Namespace, inplace_methods, magic_methods,
                       reflectable_magic_methods)
from .node import Node, _get_qualified_name, map_aggregate, map_arg

__all__ = ["Graph", "CodeGen", "PythonCode", "magic_methods", "reflectable_magic_methods",
           "inplace_methods"]

_snake_case_sub = re.compile(r"(?<=[a-z])([A-Z])")


def _snake_case(s: str) -> str:
    return _snake_case_sub.sub(r"_\1", s).lower()


def _is_magic(x: str) -> bool:
    return x.startswith("__") and x.endswith("__")


class _node_list:
    """A live view of the graph's nodes (skips erased ones, so erasing while iterating is safe)."""

    def __init__(self, graph: "Graph", direction: str = "_next") -> None:
        self.graph = graph
        self.direction = direction

    def __len__(self) -> int:
        return self.graph._len

    def __iter__(self):
        root = self.graph._root
        cur = getattr(root, self.direction)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, self.direction)

    def __reversed__(self):
        return _node_list(self.graph, "_prev" if self.direction == "_next" else "_next")

    def __repr__(self) -> str:
        return repr(list(self))


class _InsertPoint:
    def __init__(self, graph: "Graph", new_insert: Callable) -> None:
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        return None

    def __exit__(self, *exc) -> None:
        self.graph._insert = self.orig_insert


class Graph:
    """The IR of ember.fx: Nodes with six opcodes; ``python_code`` turns it back into Python."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras: dict | None = None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names: dict = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod) -> None:
        self._owning_module = mod

    @property
    def nodes(self) -> _node_list:
        return _node_list(self)

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list:
        """Nodes with opcode ``op`` (and ``target`` when given), in graph order."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ------------------------------------------------------------------ building
    def _target_to_str(self, target) -> str:
        if callable(target):
            op = target.__name__
        else:
            op = target
            if _is_magic(op):
                op = op[2:-2]
        return _snake_case(op)

    def create_node(self, op: str, target, args: tuple | None = None, kwargs: dict | None = None,
                    name: str | None = None, type_expr=None) -> Node:
        """Insert a new node at the current insert point (the end, unless ``inserting_*``)."""
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, tuple(args or ()), dict(kwargs or {}), type_expr)
        self._graph_namespace._obj_to_name[n] = name
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name: str, type_expr=None, default_value=inspect.Signature.empty) -> Node:
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr=None) -> Node:
        mod = self.owning_module
        if mod is not None and not _has_attr(mod, qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference in the "
                          f"owning GraphModule! Call GraphModule.add_submodule to add the necessary "
                          f"submodule, GraphModule.add_parameter to add the necessary Parameter, or "
                          f"nn.Module.register_buffer to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        mod = self.owning_module
        if mod is not None and not _has_attr(mod, module_name):
            warnings.warn("Attempted to insert a call_module Node with no underlying reference in "
                          "the owning GraphModule! Call GraphModule.add_submodule to add the "
                          "necessary submodule", stacklevel=2)
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args=None, kwargs=None, type_expr=None,
                      name: str | None = None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs, name=name,
                                type_expr=type_expr)

    def output(self, result, type_expr=None) -> Node:
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """Context manager: new nodes go just before ``n`` (the start of the graph if None)."""
        if n is None:
            return self.inserting_after(self._root)
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """Context manager: new nodes go just after ``n`` (the end of the graph if None)."""
        if n is None:
            return self.inserting_before(self._root)
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node that has no users."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs(map_arg(to_erase._args, lambda n: None),
                                     map_arg(to_erase._kwargs, lambda n: None))

    def node_copy(self, node: Node, arg_transform: Callable = lambda x: x) -> Node:
        """Copy ``node`` (from any graph) here, mapping its input nodes through ``arg_transform``."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g: "Graph", val_map: dict, return_output_node: bool = False):
        """Append every node of ``g`` (but its output); returns the value ``g`` would output."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None) -> "Graph":
        memo = memo if memo is not None else {}
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        g._codegen = copy.deepcopy(self._codegen)
        if output_vals is not None:
            rv, old_out = output_vals
            new_out = g.output(rv, type_expr=getattr(old_out, "type", None))
            new_out.meta = copy.copy(old_out.meta)
        return g

    # pickling: a flat list of node records (a linked list would recurse once per node)
    def __getstate__(self):
        index = {n: i for i, n in enumerate(self.nodes)}
        records = [(n.name, n.op, n.target, map_arg(n.args, lambda a: _NodeRef(index[a])),
                    map_arg(n.kwargs, lambda a: _NodeRef(index[a])), n.type, n.meta)
                   for n in self.nodes]
        return {"records": records, "codegen": self._codegen, "tracer_cls": self._tracer_cls}

    def __setstate__(self, state) -> None:
        self.__init__(tracer_cls=state["tracer_cls"])
        self._codegen = state["codegen"]
        made: list = []
        for name, op, target, args, kwargs, typ, meta in state["records"]:
            def resolve(a):
                return made[a.index] if isinstance(a, _NodeRef) else a
            n = self.create_node(op, target, map_aggregate(args, resolve),
                                 map_aggregate(kwargs, resolve), name, typ)
            n.meta = meta
            made.append(n)

    # ------------------------------------------------------------------ analysis
    def eliminate_dead_code(self, is_impure_node: Callable | None = None) -> bool:
        """Erase nodes whose values are unused and that have no side effects; True if any."""
        self.lint()
        changed = False
        for node in list(reversed(self.nodes)):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check the graph is well formed: defined-before-use, unique names, valid targets."""
        seen_names: set = set()
        seen_values: set = set()
        for node in self.nodes:
            if node.op not in ("placeholder", "get_attr", "call_function", "call_method",
                               "call_module", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this "
                                       "Graph, but was used as an argument! If you are copying nodes "
                                       "from another graph, make sure to use ``arg_transform`` on "
                                       f"node_copy() to remap values\n{self}")
                if arg not in seen_values:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been "
                                       "defined! Please check that Nodes in the graph are "
                                       f"topologically ordered\n{self}")
            for user in node.users:
                if node not in user._input_nodes:
                    raise RuntimeError(f"Node {node} has user {user} that does not use it")
            seen_values.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
        mod = self.owning_module
        if mod is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                target_atoms = node.target.split(".")
                m_itr, seen_qualname = mod, []
                for i, atom in enumerate(target_atoms):
                    new_m_itr = getattr(m_itr, atom, None)
                    seen_qualname.append(atom)
                    if new_m_itr is None:
                        raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                           f"attribute {atom} of {'.'.join(seen_qualname[:-1])}")
                    if node.op == "call_module" and i == len(target_atoms) - 1 and \
                            not callable(new_m_itr):
                        raise RuntimeError(f"Node {node} target {node.target} {atom} of "
                                           f"{'.'.join(seen_qualname[:-1])} does not reference "
                                           "an nn.Module")
                    m_itr = new_m_itr

    # ------------------------------------------------------------------ printing / codegen
    def python_code(self, root_module: str, *, verbose: bool = False, **kwargs) -> PythonCode:
        """The source of ``forward`` (``root_module`` names the module holding attributes)."""
        namespace = _Namespace()
        for node in self.nodes:
            namespace.create_name(node.name, node)
        return self._codegen._gen_python_code(list(self.nodes), root_module, namespace,
                                              verbose=verbose)

    def print_tabular(self) -> None:
        """Print a table of opcode, name, target, args and kwargs, one row per node."""
        print(self._tabular())

    def _tabular(self) -> str:
        rows = [[n.op, n.name, _target_str(n.target), str(n.args), str(n.kwargs)] for n in self.nodes]
        return _tabulate(rows, ["opcode", "name", "target", "args", "kwargs"])

    def __str__(self) -> str:
        placeholder_names: list = []
        ret_type = [""]
        node_strs = [node.format_node(placeholder_names, ret_type) for node in self.nodes]
        s = f"graph({', '.join(placeholder_names)}){ret_type[0]}:"
        for ns in node_strs:
            if ns:
                s += "\n    " + ns
        return s

    __repr__ = __str__


class _NodeRef:
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __reduce__(self):
        return (_NodeRef, (self.index,))


def _target_str(target) -> str:
    if isinstance(target, str):
        return target
    try:
        return _get_qualified_name(target)
    except RuntimeError:
        return str(target)


def _tabulate(rows: list, headers: list) -> str:
    """tabulate's 'simple' format: left-aligned columns two spaces apart, dashed header rule."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def _has_attr(mod, qualified_name: str) -> bool:
    obj = mod
    for atom in qualified_name.split("."):
        if not hasattr(obj, atom):
            return False
        obj = getattr(obj, atom)
    return True

