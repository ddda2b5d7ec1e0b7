"""Variable trackers: what the symbolic executor keeps on its stack and in its locals.

Each tracker stands for one Python value during capture. ``source`` (a Python expression over the
frame, e.g. ``L['self']._modules['fc']``) says where a real value came from: guards and the
reconstruction of outputs read it. Trackers for real objects are made once per object (the
builder memoises by ``id``), so aliases see each other's mutations, as in CPython.

Example:
    >>> from ember._dynamo.variables import ConstVT, TupleVT
    >>> TupleVT([ConstVT(1), ConstVT(2)]).as_python_constant()
    (1, 2)
"""
from __future__ import annotations

from .exc import Unsupported


class VT:
    """Base tracker. ``source`` is None for values created during capture."""

    source = None

    def is_const(self) -> bool:
        return False

    def as_python_constant(self):
        raise Unsupported(f"{self} is not a Python constant")

    def __repr__(self):
        return f"{type(self).__name__}({getattr(self, 'source', '')})"


class NullVT(VT):
    """The NULL that 3.11 pushes below a callable."""


NULL = NullVT()


class _ValueVT(VT):
    """A tracker holding a real Python value that the graph uses as a constant."""

    def __init__(self, value, source=None):
        self.value, self.source = value, source

    def is_const(self):
        return True

    def as_python_constant(self):
        return self.value


class ConstVT(_ValueVT):
    """An immutable Python value (None, bool, int, float, str, range, dtype, device, slice ...)."""

    def __repr__(self):
        return f"ConstVT({self.value!r})"


class TensorVT(VT):
    """A tensor: ``node`` in the fx graph, ``meta`` its fake (meta-device) value."""

    sym = None  # per-dim sizes: int, or an expression over size symbols; None: all static

    def __init__(self, node, meta, source=None, real_type=None):
        self.node, self.meta, self.source = node, meta, source
        self.real_type = real_type or type(meta)


class SymFloatVT(VT):
    """A Python float read from the inputs that stays a graph input: ``node`` carries it,
    ``value`` is the example; ``roots`` are the (source, value) pairs to guard if it must specialise."""

    def __init__(self, node, value, roots, source=None):
        self.node, self.value, self.roots, self.source = node, value, roots, source


class SymIntVT(VT):
    """A size read from a tensor with symbolic dims: ``node`` computes it in the graph, ``expr`` is
    its expression over the size symbols (symbolic_shapes.Expr/Op), ``value`` the example (hint)."""

    def __init__(self, node, expr, value, source=None):
        self.node, self.expr, self.value, self.source = node, expr, value, source


class ListVT(VT):
    """A list; ``real`` is the pre-existing list object it stands for (side effects replay into it)."""

    def __init__(self, items, source=None, real=None):
        self.items, self.source, self.real = list(items), source, real
        self.mutated = False

    def as_python_constant(self):
        return [i.as_python_constant() for i in self.items]

    def is_const(self):
        return all(i.is_const() for i in self.items)


class TupleVT(VT):
    """A tuple (or a named tuple: ``cls``)."""

    def __init__(self, items, source=None, cls=tuple):
        self.items, self.source, self.cls = list(items), source, cls

    def as_python_constant(self):
        vals = [i.as_python_constant() for i in self.items]
        return self.cls(*vals) if hasattr(self.cls, "_fields") else self.cls(vals)

    def is_const(self):
        return all(i.is_const() for i in self.items)


class DictVT(VT):
    """A dict with constant keys; ``real`` as for ListVT."""

    def __init__(self, items: dict, source=None, real=None, cls=dict):
        self.items, self.source, self.real, self.cls = dict(items), source, real, cls
        self.mutated = False

    def as_python_constant(self):
        return self.cls((k, v.as_python_constant()) for k, v in self.items.items())

    def is_const(self):
        return all(v.is_const() for v in self.items.values())


class SetVT(VT):
    def __init__(self, items):
        self.items = list(items)

    def is_const(self):
        return all(i.is_const() for i in self.items)

    def as_python_constant(self):
        return {i.as_python_constant() for i in self.items}


class SliceVT(VT):
    def __init__(self, start, stop, step):
        self.parts = (start, stop, step)


class IteratorVT(VT):
    """An iterator over already known items (loops are unrolled)."""

    def __init__(self, items):
        self.items, self.pos = list(items), 0

    def next(self):
        if self.pos >= len(self.items):
            return None
        self.pos += 1
        return self.items[self.pos - 1]


class NNModuleVT(VT):
    """An ``nn.Module`` instance, guarded by identity + training + version counter."""

    def __init__(self, module, source=None):
        self.module, self.source = module, source


class UserFunctionVT(VT):
    """A real Python function that capture inlines."""

    def __init__(self, fn, source=None):
        self.fn, self.source = fn, source


class NestedFunctionVT(VT):
    """A function made by MAKE_FUNCTION during capture (closures, lambdas, comprehensions)."""

    def __init__(self, code, f_globals, defaults, kwdefaults, closure, qualname):
        self.code, self.f_globals, self.defaults = code, f_globals, defaults
        self.kwdefaults, self.closure, self.qualname = kwdefaults, closure, qualname


class MethodVT(VT):
    """``func`` bound to ``obj`` (both trackers)."""

    def __init__(self, func, obj, source=None):
        self.func, self.obj, self.source = func, obj, source


class TensorMethodVT(VT):
    def __init__(self, tensor, name):
        self.tensor, self.name = tensor, name


class CellVT(VT):
    """A closure cell: ``contents`` (tracker or None); ``real`` the cell object if pre-existing."""

    def __init__(self, contents=None, real=None, source=None):
        self.contents, self.real, self.source = contents, real, source


class ObjectVT(_ValueVT):
    """A real object used as is (ember functions, builtins, classes, Python modules)."""

    def __repr__(self):
        return f"ObjectVT({getattr(self.value, '__name__', type(self.value).__name__)})"


class UserObjectVT(VT):
    """Any other real object: attribute reads are guarded, writes become side effects."""

    def __init__(self, obj, source=None):
        self.obj, self.source = obj, source
        self.pending = {}  # attribute writes made during capture, replayed after the graph


class CtxVT(VT):
    """A grad-mode or autocast context manager (``kind`` 'grad' or 'autocast')."""

    def __init__(self, kind, args, target=None):
        self.kind, self.args, self.target = kind, args, target
        self.saved = None


class SuperVT(VT):
    def __init__(self, cls, obj):
        self.cls, self.obj = cls, obj


class GetAttrPlan:
    """Marker: an attribute whose value has to be computed (a property to inline)."""


def items_of(tx, vt) -> list:
    """The element trackers of an iterable tracker (unrolled)."""
    if isinstance(vt, (ListVT, TupleVT, SetVT)):
        return list(vt.items)
    if isinstance(vt, DictVT):
        return [ConstVT(k) for k in vt.items]
    if isinstance(vt, IteratorVT):
        rest = vt.items[vt.pos:]
        vt.pos = len(vt.items)
        return rest
    if isinstance(vt, ConstVT) and isinstance(vt.value, (tuple, list, range, str, frozenset, set)):
        return [ConstVT(v) for v in vt.value]
    if isinstance(vt, (TensorVT, NNModuleVT)):
        return items_of(tx, tx.get_iter(vt))
    raise Unsupported(f"cannot unpack or iterate {vt}")


class ContainerMethodVT:
    """A method of a list/dict/tuple tracker (``append``, ``items`` ...)."""

    def __init__(self, obj, name):
        self.obj, self.name, self.source = obj, name, None
