"""Pytrees: nested lists/tuples/dicts/namedtuples flattened to leaves plus a ``TreeSpec``.

The same node types, leaf rule (anything not a registered node, including ``None``), reprs and error
messages as ``torch.utils._pytree``, so fx and optimizer code written for torch runs unchanged.

Example:
    >>> from ember.utils._pytree import tree_flatten, tree_unflatten, tree_map
    >>> leaves, spec = tree_flatten({"a": [1, 2], "b": (3, None)})
    >>> leaves
    [1, 2, 3, None]
    >>> tree_unflatten([10, 20, 30, 40], spec)
    {'a': [10, 20], 'b': (30, 40)}
    >>> tree_map(lambda x: x * 2, [1, (2, 3)])
    [2, (4, 6)]
"""
from __future__ import annotations

from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, Iterable, NamedTuple

__all__ = ["TreeSpec", "LeafSpec", "SUPPORTED_NODES", "register_pytree_node", "tree_flatten",
           "tree_unflatten", "tree_leaves", "tree_structure", "tree_map", "tree_map_", "tree_map_only",
           "tree_map_only_", "tree_iter", "tree_is_leaf", "tree_all", "tree_any", "tree_all_only",
           "tree_any_only", "map_only", "is_namedtuple", "is_namedtuple_class",
           "is_namedtuple_instance", "treespec_leaf"]

PyTree = Any


class NodeDef(NamedTuple):
    type: type
    flatten_fn: Callable
    unflatten_fn: Callable


SUPPORTED_NODES: dict = {}


def register_pytree_node(cls, flatten_fn: Callable, unflatten_fn: Callable, *,
                         serialized_type_name: str | None = None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None) -> None:
    """Make ``cls`` a node: ``flatten_fn(x) -> (children, context)``,
    ``unflatten_fn(children, context) -> x``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def is_namedtuple_class(cls) -> bool:
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and all(type(f) is str for f in cls._fields)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree) -> Any:
    t = type(tree)
    # every namedtuple class is a node, reported as ``namedtuple`` (as torch does)
    if t not in SUPPORTED_NODES and is_namedtuple_class(t):
        return namedtuple
    return t


register_pytree_node(tuple, lambda t: (list(t), None), lambda v, c: tuple(v))
register_pytree_node(list, lambda t: (list(t), None), lambda v, c: list(v))
register_pytree_node(dict, lambda d: (list(d.values()), list(d.keys())),
                     lambda v, c: dict(zip(c, v)))
register_pytree_node(namedtuple, lambda t: (list(t), type(t)), lambda v, c: c(*v))
register_pytree_node(OrderedDict, lambda d: (list(d.values()), list(d.keys())),
                     lambda v, c: OrderedDict(zip(c, v)))
register_pytree_node(defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
                     lambda v, c: defaultdict(c[0], zip(c[1], v)))
register_pytree_node(deque, lambda d: (list(d), d.maxlen), lambda v, c: deque(v, maxlen=c))

BUILTIN_TYPES = frozenset((tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque))
STANDARD_DICT_TYPES = frozenset((dict, OrderedDict, defaultdict))


class TreeSpec:
    """The structure of a pytree: node ``type``, ``context`` (e.g. dict keys) and child specs."""

    __slots__ = ("type", "_context", "_children", "num_nodes", "num_leaves", "num_children")

    def __init__(self, type, context, children_specs: list):
        self.type, self._context, self._children = type, context, children_specs
        if type is None:
            self.num_nodes = self.num_leaves = 1
            self.num_children = 0
        else:
            self.num_nodes = 1 + sum(c.num_nodes for c in children_specs)
            self.num_leaves = sum(c.num_leaves for c in children_specs)
            self.num_children = len(children_specs)

    @property
    def context(self):
        return self._context

    @property
    def children_specs(self) -> list:
        return self._children

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self) -> list:
        return self._children.copy()

    def child(self, index: int) -> "TreeSpec":
        return self._children[index]

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        prefix = f"TreeSpec({self.type.__name__}, {self._context}, ["
        body = ""
        if self.num_children:
            indent += 2
            body = self._children[0].__repr__(indent) + ("," if self.num_children > 1 else "")
            body += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return prefix + body + "])"

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (str(self.type) == str(other.type) and self._context == other._context
                and self._children == other._children)

    def __hash__(self) -> int:
        ctx = self._context
        if self.type is defaultdict:
            ctx = (ctx[0], tuple(ctx[1]))
        elif isinstance(ctx, list):
            ctx = tuple(ctx)
        return hash((self.type, ctx, tuple(self._children)))

    def flatten_up_to(self, tree: PyTree) -> list:
        """The subtrees of ``tree`` sitting where this spec has leaves (``tree`` may be deeper)."""
        out: list = []
        self._up_to(tree, out)
        return out

    def _up_to(self, node, out: list) -> None:
        if self.is_leaf():
            out.append(node)
            return
        ntype = _node_type(node)
        both_dicts = self.type in STANDARD_DICT_TYPES and ntype in STANDARD_DICT_TYPES
        if self.type not in BUILTIN_TYPES:
            if ntype != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {ntype!r}.")
            children, context = SUPPORTED_NODES[ntype].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(children)}.")
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            if not both_dicts and ntype != self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {ntype!r}.")
            if len(node) != self.num_children:
                raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                                 f"{len(node)}.")
            if both_dicts:
                keys = self._context if self.type is not defaultdict else self._context[1]
                got, want = set(node), set(keys)
                if got != want:
                    msg = ""
                    if want - got:
                        msg += f"; missing key(s): {want - got}"
                    if got - want:
                        msg += f"; extra key(s): {got - want}"
                    raise ValueError(f"Node keys mismatch{msg}.")
                children = [node[k] for k in keys]
            else:
                children, context = SUPPORTED_NODES[ntype].flatten_fn(node)
                if ntype is not deque and context != self._context:
                    raise ValueError(f"Node context mismatch for node type {self.type!r}; expected "
                                     f"{self._context!r}, but got {context!r}.")
        for sub, spec in zip(children, self._children):
            spec._up_to(sub, out)

    def unflatten(self, leaves: Iterable) -> PyTree:
        """Rebuild the pytree with ``leaves`` in place of the original leaves."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the "
                             f"spec refers to a pytree that holds {self.num_leaves} items ({self}).")
        if self.is_leaf():
            return leaves[0]
        start, kids = 0, []
        for c in self._children:
            kids.append(c.unflatten(leaves[start:start + c.num_leaves]))
            start += c.num_leaves
        return SUPPORTED_NODES[self.type].unflatten_fn(kids, self._context)


class LeafSpec(TreeSpec):
    """The spec of a single leaf (prints as ``*``)."""

    __slots__ = ()

    def __init__(self):
        super().__init__(None, None, [])


_LEAF = LeafSpec()


def treespec_leaf() -> LeafSpec:
    return _LEAF


def tree_is_leaf(tree: PyTree, is_leaf: Callable | None = None) -> bool:
    """True unless ``tree`` is a registered node type (``None`` is a leaf)."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


def tree_flatten(tree: PyTree, is_leaf: Callable | None = None) -> tuple:
    """``(leaves, treespec)``: the leaves in order and the structure to rebuild the tree."""
    leaves: list = []

    def helper(node) -> TreeSpec:
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return _LEAF
        ntype = _node_type(node)
        children, context = SUPPORTED_NODES[ntype].flatten_fn(node)
        return TreeSpec(ntype, context, [helper(c) for c in children])

    spec = helper(tree)
    return leaves, spec


def tree_unflatten(leaves: Iterable, treespec: TreeSpec) -> PyTree:
    """Inverse of ``tree_flatten``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of "
                        f"TreeSpec but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: Callable | None = None):
    """Yield the leaves depth-first."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for c in children:
        yield from tree_iter(c, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: Callable | None = None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable | None = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable, tree: PyTree, *rests: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """Apply ``func`` to every leaf (with the matching leaves of ``rests``) keeping the structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(func: Callable, tree: PyTree, *rests: PyTree, is_leaf: Callable | None = None) -> PyTree:
    """Call ``func`` on every leaf for its side effects; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for args in zip(*flat):
        func(*args)
    return tree


def map_only(type_or_types_or_pred) -> Callable:
    """Decorator: apply the function only to leaves of the given type(s) (or passing a predicate)."""
    if isinstance(type_or_types_or_pred, (type, tuple)):
        def pred(x):
            return isinstance(x, type_or_types_or_pred)
    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapper(func):
        def wrapped(x):
            return func(x) if pred(x) else x
        wrapped.__wrapped__ = func
        return wrapped
    return wrapper


def tree_map_only(type_or_types_or_pred, func: Callable, tree: PyTree,
                  is_leaf: Callable | None = None) -> PyTree:
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func: Callable, tree: PyTree,
                   is_leaf: Callable | None = None) -> PyTree:
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred: Callable, tree: PyTree, is_leaf: Callable | None = None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))
