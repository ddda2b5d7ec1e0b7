"""The state one capture builds: the fx graph, its lifted inputs, the guards and the side effects.

Real values enter capture through ``OutputGraph.wrap(value, source)``: tensors (parameters and
buffers too) become graph placeholders with a meta-device fake value; floats become placeholders;
other constants are specialised; containers, modules, functions and objects get trackers. Every
read of a real value records the guard that makes the capture valid for the next call.

Example:
    >>> from ember._dynamo.output_graph import OutputGraph
    >>> og = OutputGraph(f_globals={})
    >>> og.wrap(3, "L['n']").value, og.guards.lines
    (3, ["type(L['n']) is int and L['n'] == 3"])
"""
from __future__ import annotations

import types

from ..fx import Graph
from ..nn import Module
from .._tensor import Tensor
from .._creation import empty_strided
from .exc import Unsupported
from .guards import GuardSet
from .symbolic_shapes import Expr, SymAnnotation
from .variables import (ConstVT, DictVT, ListVT, NNModuleVT, ObjectVT, SymFloatVT, SymIntVT,
                        TensorVT, TupleVT, UserFunctionVT, UserObjectVT, CellVT)

_CONST_TYPES = (int, float, bool, str, bytes, type(None), complex, type(...), range, slice)


_EMBER_VALUE_TYPES = ("dtype", "device", "Size", "layout", "memory_format", "finfo", "iinfo")


def _is_ember_object(value) -> bool:
    """ember's namespace: its modules, functions, classes and value types (dtype, device ...)."""
    if isinstance(value, types.ModuleType):
        mod = value.__name__
    elif isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type,
                            types.MethodType)) or callable(value) and hasattr(value, "__name__"):
        mod = getattr(value, "__module__", None) or ""
    elif type(value).__name__ in _EMBER_VALUE_TYPES:
        mod = type(value).__module__ or ""
    else:
        return False
    return mod == "ember" or mod.startswith("ember.")


def fake_of(t: Tensor) -> Tensor:
    """A meta tensor with ``t``'s sizes, strides, dtype and requires_grad."""
    return empty_strided(tuple(t.shape), t.stride(), dtype=t.dtype, device="meta",
                         requires_grad=t.requires_grad)


class OutputGraph:
    """One capture's graph, graph inputs (source, example) and guards."""

    def __init__(self, f_globals: dict, closure=None):
        self.graph = Graph()
        self.f_globals = f_globals
        self.closure = closure
        self.inputs = []              # (source, example value) per placeholder, in order
        self.guards = GuardSet()
        self.side_effects = []        # ordered records, see side_effects.py
        self._by_id = {}              # id(real object) -> tracker (one tracker per object)
        self._keep = []               # keep wrapped objects alive while their ids are in use
        self._placeholder_names = set()
        self.float_inputs = 0
        self.pending_globals = {}    # (id(globals), name) -> tracker written by STORE_GLOBAL
        self.symbols = {}            # size symbol name -> (source expression, hint, placeholder)
        self.symbol_dims = {}        # size symbol name -> (tensor source, dim)
        self.specialized = set()     # symbols the capture needed as fixed values

    # ------------------------------------------------------------------ placeholders
    def _placeholder(self, source: str, example):
        base = "".join(c if c.isalnum() else "_" for c in source).strip("_") or "arg"
        base = base.replace("___", "_").replace("__", "_").lower()
        if base[0].isdigit():
            base = "_" + base
        node = self.graph.placeholder(base)
        self.inputs.append((source, example))
        return node

    def _size_symbol(self, tensor_source: str, dim: int, hint: int) -> Expr:
        """A new size symbol ``s<k>`` read from ``source`` at call time (a placeholder printed as
        ``s0: "Sym(s0)"``; placed before its tensor's placeholder, as torch does)."""
        name = f"s{len(self.symbols)}"
        source = f"{tensor_source}.size({dim})"
        self.symbol_dims[name] = (tensor_source, dim)
        node = self.graph.placeholder(name, type_expr=SymAnnotation(name))
        self.inputs.append((source, hint))
        self._placeholder_names.add(name)
        self.symbols[name] = (source, hint, node)
        return Expr.symbol(name)

    def hints(self) -> dict:
        return {k: v[1] for k, v in self.symbols.items()}

    def sources(self) -> dict:
        return {k: v[0] for k, v in self.symbols.items()}

    def sym_int(self, expr, make_node):
        """A tracker for the size ``expr``: a constant, a symbol's placeholder, or ``make_node()``."""
        if isinstance(expr, int):
            return ConstVT(expr)
        if expr.is_const():
            return ConstVT(expr.const_value())
        name = expr.symbol_name() if isinstance(expr, Expr) else None
        node = self.symbols[name][2] if name is not None else make_node()
        return SymIntVT(node, expr, expr.eval(self.hints()))

    # ------------------------------------------------------------------ wrapping real values
    def wrap(self, value, source: str | None, *, guarded: bool = True):
        """Tracker for a real ``value`` read from ``source``; ``guarded=False`` when an enclosing
        guard (a module version) already pins it."""
        key = id(value)
        if key in self._by_id and not isinstance(value, _CONST_TYPES):
            vt = self._by_id[key]
            first = getattr(vt, "source", None)
            if guarded and source is not None and first is not None and source != first:
                # the same object reached two ways (an argument passed twice, tied weights)
                self.guards.add(f"{source} is {first}", kind="id")
            return vt
        vt = self._wrap(value, source, guarded)
        if not isinstance(value, _CONST_TYPES):
            self._by_id[key] = vt
            self._keep.append(value)
        return vt

    def _wrap(self, value, source, guarded):
        g = self.guards
        if isinstance(value, Tensor):
            if source is None:
                raise Unsupported("a tensor created outside the graph without a source")
            if value.device.type == "meta":
                raise Unsupported("meta tensors as compiled inputs")
            g.tensor(source, value)
            dims = sorted(g.dynamic.get(source, ()))
            syms = {i: self._size_symbol(source, i, int(value.shape[i])) for i in dims}
            node = self._placeholder(source, value)
            vt = TensorVT(node, fake_of(value), source, type(value))
            if syms:
                vt.sym = tuple(syms.get(i, n) for i, n in enumerate(value.shape))
            vt.real = value
            return vt
        if type(value) is float and source is not None and guarded:
            g.add(f"type({source}) is float")
            node = self._placeholder(source, value)
            self.float_inputs += 1
            return SymFloatVT(node, value, [(source, value)], source)
        if isinstance(value, _CONST_TYPES):
            if source is not None and guarded:
                g.constant(source, value)
            return ConstVT(value, source)
        if isinstance(value, Module):
            if source is None:
                raise Unsupported("an nn.Module without a source")
            g.module(source, value)
            return NNModuleVT(value, source)
        if isinstance(value, (list, tuple)) and type(value) in (list, tuple) or \
                isinstance(value, tuple) and hasattr(type(value), "_fields"):
            if source is not None and guarded:
                g.add(f"type({source}) is ___type({id(type(value))}) and len({source}) == {len(value)}",
                      type(value), kind="const")
            items = [self.wrap(v, None if source is None else f"{source}[{i}]", guarded=guarded)
                     for i, v in enumerate(value)]
            if type(value) is list:
                return ListVT(items, source, real=value)
            return TupleVT(items, source, cls=type(value))
        if type(value) is dict:
            if not all(isinstance(k, (str, int)) for k in value):
                raise Unsupported("dict with non-constant keys")
            if source is not None and guarded:
                g.add(f"type({source}) is dict and list({source}) == {list(value)!r}", kind="const")
            items = {k: self.wrap(v, None if source is None else f"{source}[{k!r}]", guarded=guarded)
                     for k, v in value.items()}
            return DictVT(items, source, real=value)
        if isinstance(value, types.CellType):
            if source is None:  # a cell of a function pinned elsewhere: refer to the cell itself
                source = self.guards._const(value)
            inner = self.wrap(value.cell_contents, f"{source}.cell_contents", guarded=guarded) \
                if _cell_full(value) else None
            return CellVT(inner, real=value, source=source)
        internal = source is None and (type(value).__module__ or "").startswith("ember.")
        if internal or _is_ember_object(value) or isinstance(value, (types.BuiltinFunctionType, type,
                                                         types.ModuleType)):
            # ember's namespace, builtins, classes and modules: pinned by identity where read
            if source is not None and guarded and not _is_ember_object(value):
                owner = getattr(value, "__self__", None)
                if isinstance(value, types.BuiltinMethodType) and owner is not None and \
                        not isinstance(owner, types.ModuleType):
                    # a bound builtin method (d.values) is a new object per read: pin its owner
                    g.identity(f"{source}.__self__", owner)
                else:
                    g.identity(source, value)
            return ObjectVT(value, source)
        if isinstance(value, types.FunctionType):
            if source is not None and guarded:
                g.identity(source, value)
            return UserFunctionVT(value, source)
        if isinstance(value, types.MethodType):
            from .variables import MethodVT
            return MethodVT(self.wrap(value.__func__, None), self.wrap(value.__self__, None))
        if source is not None and guarded:
            g.identity(source, value)
        return UserObjectVT(value, source)

    def new_tensor(self, node, meta) -> TensorVT:
        return TensorVT(node, meta)


def _cell_full(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False
