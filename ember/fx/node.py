"""``Node``: one operation of an fx ``Graph`` (opcode, target, args, kwargs, users, meta).

The six opcodes: ``placeholder`` (a function input), ``get_attr`` (a parameter, buffer or submodule
of the root), ``call_function`` (a free function), ``call_method`` (a method on ``args[0]``),
``call_module`` (a submodule's ``forward``) and ``output`` (the return value).

Example:
    >>> from ember.fx import Graph
    >>> g = Graph()
    >>> x = g.placeholder("x")
    >>> y = g.call_method("relu", (x,))
    >>> _ = g.output(y)
    >>> list(x.users), y.all_input_nodes
    ([relu], [x])
"""
from __future__ import annotations

import builtins
import operator
import sys
import types
from typing import Any, Callable

from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "map_arg", "map_aggregate", "has_side_effect"]

_side_effectful_functions: set = {operator.setitem}


def has_side_effect(fn: Callable) -> Callable:
    """Mark ``fn`` as impure: dead-code elimination keeps its call_function nodes."""
    _side_effectful_functions.add(fn)
    return fn


# where public ember callables live, tried in order, so generated code names them as users do
_PUBLIC_PREFIXES = ("", "nn.functional.", "Tensor.", "linalg.", "special.", "fft.", "nn.init.")


def _resolve(root, dotted: str):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _get_qualified_name(func: Callable) -> str:
    """An importable dotted name for ``func`` (``ember.relu``, ``operator.add``, ``getattr``)."""
    name = getattr(func, "__name__", None)
    if name is None:
        raise RuntimeError(f"Unable to find the qualified name of {func}")
    if getattr(builtins, name, None) is func:
        return name
    mod = getattr(func, "__module__", None) or ""
    if mod == "_operator":
        return f"operator.{name}"
    if mod.split(".")[0] == "ember":
        # ember is fully imported by the time any graph exists (ember.fx lives under it)
        root = sys.modules.get("ember")
        for prefix in _PUBLIC_PREFIXES:
            found = _resolve(root, prefix + name) if root is not None else None
            # (the namespace may hold a wrapper showing TorchFunctionModes the call: overrides.mode_visible)
            if found is func or (found is not None and getattr(found, "__wrapped__", None) is func):
                return f"ember.{prefix}{name}"
    name = name.replace("<lambda>", "_lambda")
    return f"{mod}.{name}" if mod else name


def _type_repr(obj) -> str:
    if isinstance(obj, type):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        return f"{obj.__module__}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if isinstance(obj, types.FunctionType):
        return obj.__name__
    return repr(obj)


def _format_arg(arg, max_list_len: float = float("inf")) -> str:
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"[{items}{more}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) < max_list_len + 1 else f", ...[total_len={len(arg)}]"
        return f"({items}{',' if len(arg) == 1 else ''}{more})"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """One operation in a Graph; ``users`` are the nodes that take it as an argument."""

    def __init__(self, graph, name: str, op: str, target, args: tuple, kwargs: dict,
                 return_type: Any = None) -> None:
        if op not in ("placeholder", "get_attr", "call_function", "call_method", "call_module",
                      "output", "root"):
            raise ValueError(f"Unsupported opcode {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a Callable is expected")
        if op in ("placeholder", "get_attr", "call_method", "call_module") and \
                not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict = {}
        self.users: dict = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._update_args_kwargs(args, kwargs)

    # ------------------------------------------------------------------ linked list
    @property
    def next(self) -> "Node":
        return self._next

    @property
    def prev(self) -> "Node":
        return self._prev

    def _remove_from_list(self) -> None:
        p, n = self._prev, self._next
        p._next, n._prev = n, p

    def prepend(self, x: "Node") -> None:
        """Move ``x`` to just before this node."""
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        if self is x:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x: "Node") -> None:
        """Move ``x`` to just after this node."""
        self._next.prepend(x)

    def __gt__(self, other: "Node") -> bool:
        return self._order() > other._order()

    def __lt__(self, other: "Node") -> bool:
        return self._order() < other._order()

    def _order(self) -> int:
        for i, n in enumerate(self.graph.nodes):
            if n is self:
                return i
        return -1

    # ------------------------------------------------------------------ arguments
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, a) -> None:
        self._update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k) -> None:
        self._update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self) -> list:
        """The distinct nodes among args and kwargs, in order of appearance."""
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg) -> None:
        self.kwargs = {**self.kwargs, key: arg}

    def _update_args_kwargs(self, new_args, new_kwargs) -> None:
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}

        def collect(n: Node) -> Node:
            if n.graph is not self.graph and self.graph is not None and n.graph is not None:
                raise AssertionError(f"Argument '{n}' of Node '{self}' was used before it has been "
                                     "defined! Please check that Nodes in the graph are "
                                     "topologically ordered")
            self._input_nodes.setdefault(n)
            return n
        self._args = map_aggregate(tuple(new_args), lambda x: collect(x) if isinstance(x, Node) else x)
        self._kwargs = map_aggregate(dict(new_kwargs),
                                     lambda x: collect(x) if isinstance(x, Node) else x)
        for n in self._input_nodes:
            n.users.setdefault(self)

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace) -> None:
        self.meta["stack_trace"] = trace

    # ------------------------------------------------------------------ rewriting
    def replace_all_uses_with(self, replace_with: "Node", delete_user_cb: Callable = lambda user: True,
                              *, propagate_meta: bool = False) -> list:
        """Make every user of this node use ``replace_with`` instead; returns the changed users."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, "
                                     "propagate_meta=True), but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        to_process = [u for u in self.users if delete_user_cb(u)]
        for user in to_process:
            user._replace_input(self, replace_with)
        return to_process

    def replace_input_with(self, old_input: "Node", new_input: "Node") -> None:
        """Use ``new_input`` wherever this node's arguments mention ``old_input``."""
        self._replace_input(old_input, new_input)

    def _replace_input(self, old: "Node", new: "Node") -> None:
        def swap(n):
            return new if n is old else n
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self) -> bool:
        """Whether dead-code elimination must keep this node (inputs, outputs, side effects)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        if self.op == "call_method":
            return isinstance(self.target, str) and self.target.endswith("_") and \
                not self.target.endswith("__")
        if self.op == "call_module":
            root = self.graph.owning_module
            if root is None:
                return False
            mod = root.get_submodule(self.target)
            return getattr(mod, "_is_impure", False)
        return False

    # ------------------------------------------------------------------ printing
    def _pretty_print_target(self, target) -> str:
        if isinstance(target, str):
            return target
        mod = getattr(target, "__module__", None)
        name = getattr(target, "__name__", None)
        if mod == "builtins" or (name is not None and getattr(builtins, name, None) is target):
            return f"builtins.{name}"
        if mod == "_operator":
            return f"operator.{name}"
        return _get_qualified_name(target)

    def format_node(self, placeholder_names: list | None = None,
                    maybe_return_typename: list | None = None) -> str | None:
        """The node as one line of the graph's text form (``%name : [num_users=1] = ...``)."""
        typename = f"{_type_repr(self.type)} " if self.type else ""
        if self.op == "placeholder":
            arg_str = self.target
            if self.type:
                arg_str += f": {_type_repr(self.type)}"
            if placeholder_names:
                placeholder_names.append(arg_str)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self.target}]{default}")
        if self.op == "get_attr":
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self._pretty_print_target(self.target)}]")
        if self.op == "output":
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_print_target(self.target)}]"
                f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def __repr__(self) -> str:
        return self.name

    def __setattr__(self, name: str, value) -> None:
        if name == "name" and hasattr(self, "name"):
            graph = self.graph
            graph._graph_namespace._rename(self, value)
        object.__setattr__(self, name, value)


def map_arg(a, fn: Callable):
    """Apply ``fn`` to every Node inside the (nested) argument ``a``."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def map_aggregate(a, fn: Callable):
    """Apply ``fn`` to every leaf of the nested tuples/lists/dicts/slices in ``a``."""
    if isinstance(a, tuple):
        if hasattr(a, "_fields"):
            return type(a)(*[map_aggregate(x, fn) for x in a])
        return tuple(map_aggregate(x, fn) for x in a)
    if isinstance(a, list):
        return immutable_list(map_aggregate(x, fn) for x in a)
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)

