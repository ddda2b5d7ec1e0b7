"""Calls to real callables during capture: builtins, ember functions and classes, context managers,
and the methods of list/tuple/dict trackers.

Builtins over known values are evaluated now (``len(x.shape)``, ``range(3)``, ``isinstance``);
ember functions become graph nodes (``CallRules.call_ember``); grad-mode and autocast contexts
become ``CtxVT``; pure functions of the stdlib (``math``, ``operator``) fold on constants.

Example:
    >>> from ember._dynamo.builtin_rules import py_type
    >>> from ember._dynamo.variables import ConstVT
    >>> py_type(ConstVT(1.0))
    <class 'float'>
"""
from __future__ import annotations

import builtins
import operator
import types

from .._tensor import Tensor
from ..amp.autocast_mode import autocast
from ..autograd import grad_mode
from ..nn import Module
from .trace_rules import _is_ember_fn
from .exc import Unsupported
from .shape_rules import size_of
from .variables import items_of
from .variables import (ConstVT, CtxVT, DictVT, IteratorVT, ListVT, MethodVT, NestedFunctionVT,
                        NNModuleVT, ObjectVT, SetVT, SuperVT, SymFloatVT, SymIntVT, TensorVT, TupleVT,
                        UserFunctionVT, UserObjectVT)

_FOLD_MODULES = ("math", "operator", "_operator", "builtins", "cmath", "typing", "collections",
                 "functools", "itertools", "numbers", "enum")


def py_type(vt):
    """The Python type of the value ``vt`` stands for."""
    if isinstance(vt, TensorVT):
        return vt.real_type
    if isinstance(vt, SymFloatVT):
        return float
    if isinstance(vt, SymIntVT):
        return int
    if isinstance(vt, (ConstVT, ObjectVT)):
        return type(vt.value)
    if isinstance(vt, ListVT):
        return list
    if isinstance(vt, TupleVT):
        return vt.cls
    if isinstance(vt, DictVT):
        return vt.cls
    if isinstance(vt, SetVT):
        return set
    if isinstance(vt, NNModuleVT):
        return type(vt.module)
    if isinstance(vt, UserObjectVT):
        return type(vt.obj)
    if isinstance(vt, (UserFunctionVT, NestedFunctionVT)):
        return types.FunctionType
    if isinstance(vt, MethodVT):
        return types.MethodType
    raise Unsupported(f"type of {vt}")


def _grad_ctx(tx, mode, immediate):
    ctx = CtxVT("grad", mode)
    if immediate:  # set_grad_enabled(mode) takes effect when called, not when entered
        tx.enter_ctx(ctx)
        ctx.applied = True
    return ctx


def call_builtin(tx, fn, args, kwargs):
    if isinstance(fn, type):
        return _call_class(tx, fn, args, kwargs)
    if fn is print:
        raise Unsupported("print() inside a captured region (a graph break)")
    handler = _BUILTINS.get(fn) if _hashable(fn) else None
    if handler is not None:
        return handler(tx, *args, **kwargs)
    if _is_ember_fn(fn):
        return tx.call_ember(fn, args, kwargs)
    mod = getattr(fn, "__module__", None) or ""
    self_obj = getattr(fn, "__self__", None)
    foldable = mod.split(".")[0] in _FOLD_MODULES or isinstance(self_obj, (str, bytes, int, float,
                                                                             tuple, frozenset))
    if foldable and all(a.is_const() for a in args) and all(v.is_const() for v in kwargs.values()):
        return tx.wrap_const(fn(*[a.as_python_constant() for a in args],
                                **{k: v.as_python_constant() for k, v in kwargs.items()}))
    raise Unsupported(f"call to {getattr(fn, '__qualname__', fn)!s} "
                      f"(from {mod or 'unknown module'}) is not supported in a captured region")


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _call_class(tx, cls, args, kwargs):
    if cls is grad_mode.no_grad:
        return _grad_ctx(tx, False, False)
    if cls is grad_mode.enable_grad:
        return _grad_ctx(tx, True, False)
    if cls is grad_mode.set_grad_enabled:
        return _grad_ctx(tx, tx.const(args[0] if args else kwargs["mode"]), True)
    if issubclass(cls, autocast):
        names = ("device_type", "dtype", "enabled", "cache_enabled")
        vals = dict(zip(names, (tx.const(a) for a in args)))
        vals.update({k: tx.const(v) for k, v in kwargs.items()})
        if cls is not autocast and "device_type" not in vals:
            vals["device_type"] = "cpu"
        return CtxVT("autocast", tuple(vals.get(n, d) for n, d in zip(
            names, (None, None, True, None))))
    if cls in _BUILTINS:
        return _BUILTINS[cls](tx, *args, **kwargs)
    if issubclass(cls, (Tensor, Module)) or cls is grad_mode.inference_mode:
        raise Unsupported(f"constructing {cls.__name__} inside a captured region")
    if all(a.is_const() for a in args) and all(v.is_const() for v in kwargs.values()):
        mod = cls.__module__.split(".")[0]
        if mod in ("ember", "builtins") + _FOLD_MODULES:
            return tx.wrap_const(cls(*[a.as_python_constant() for a in args],
                                     **{k: v.as_python_constant() for k, v in kwargs.items()}))
    raise Unsupported(f"constructing {cls.__qualname__} inside a captured region")


# ---------------------------------------------------------------------- builtin models
def _len(tx, x):
    if isinstance(x, (ListVT, TupleVT, DictVT, SetVT)):
        return ConstVT(len(x.items))
    if isinstance(x, TensorVT):
        if x.sym is not None and x.meta.ndim:
            return size_of(tx, x, 0)
        return ConstVT(len(x.meta))
    if isinstance(x, NNModuleVT):
        return ConstVT(len(x.module))
    return ConstVT(len(tx.const(x)))


def _isinstance(tx, obj, cls):
    return ConstVT(issubclass(py_type(obj), tx.const(cls)))


def _issubclass(tx, a, b):
    return ConstVT(issubclass(tx.const(a), tx.const(b)))


def _getattr(tx, obj, name, *default):
    try:
        return tx.get_attr(obj, tx.const(name))
    except (AttributeError, Unsupported) as e:
        if default and ("has no attribute" in str(e) or isinstance(e, AttributeError)):
            return default[0]
        raise


def _hasattr(tx, obj, name):
    try:
        tx.get_attr(obj, tx.const(name))
        return ConstVT(True)
    except AttributeError:
        return ConstVT(False)
    except Unsupported as e:
        if "has no attribute" in str(e):
            return ConstVT(False)
        raise


def _setattr(tx, obj, name, value):
    tx.store_attr(obj, tx.const(name), value)
    return ConstVT(None)


def _range(tx, *args):
    return ConstVT(range(*[tx.const(a) for a in args]))


def _enumerate(tx, it, start=ConstVT(0)):
    s = tx.const(start)
    return IteratorVT([TupleVT([ConstVT(i + s), v]) for i, v in enumerate(items_of(tx, it))])


def _zip(tx, *its, strict=ConstVT(False)):
    cols = [items_of(tx, i) for i in its]
    if tx.const(strict) and len({len(c) for c in cols}) > 1:
        raise Unsupported("zip(strict=True) over sequences of different lengths")
    return IteratorVT([TupleVT(list(row)) for row in zip(*cols)])


def _map(tx, fn, *its):
    cols = [items_of(tx, i) for i in its]
    return IteratorVT([tx.call(fn, list(row), {}) for row in zip(*cols)])


def _list(tx, it=None):
    return ListVT([] if it is None else items_of(tx, it))


def _tuple(tx, it=None):
    return TupleVT([] if it is None else items_of(tx, it))


def _set(tx, it=None):
    return SetVT([] if it is None else items_of(tx, it))


def _dict(tx, it=None, **kwargs):
    items = {}
    if isinstance(it, DictVT):
        items.update(it.items)
    elif it is not None:
        for pair in items_of(tx, it):
            k, v = items_of(tx, pair)
            items[tx.const(k)] = v
    items.update(kwargs)
    return DictVT(items)


def _iter(tx, x):
    return tx.get_iter(x)


def _next(tx, it, *default):
    v = it.next() if isinstance(it, IteratorVT) else None
    if v is None:
        if default:
            return default[0]
        raise Unsupported("next() on an exhausted iterator")
    return v


def _reversed(tx, x):
    return IteratorVT(list(reversed(items_of(tx, x))))


def _sum(tx, it, start=ConstVT(0)):
    acc = start
    for v in items_of(tx, it):
        acc = tx.binary(operator.add, acc, v, "+")
    return acc


def _minmax(pick):
    def model(tx, *args, **kwargs):
        items = items_of(tx, args[0]) if len(args) == 1 else list(args)
        if any(isinstance(i, (TensorVT,)) for i in items):
            raise Unsupported(f"{pick.__name__}() over tensors")
        return ConstVT(pick([tx.const(i) for i in items], **{k: tx.const(v) for k, v in kwargs.items()}))
    return model


def _abs(tx, x):
    return tx.unary(operator.abs, x)


def _type(tx, x):
    return ObjectVT(py_type(x))


def _callable(tx, x):
    if isinstance(x, (UserFunctionVT, NestedFunctionVT, MethodVT, NNModuleVT)):
        return ConstVT(True)
    return ConstVT(callable(tx.const(x)))


def _super(tx, *args):
    if args:
        return SuperVT(tx.const(args[0]), args[1])
    cell = tx.cells.get("__class__")
    if cell is None or cell.contents is None or not tx.code.co_varnames:
        raise Unsupported("super() without __class__ cell")
    return SuperVT(tx.const(cell.contents), tx.locals[tx.code.co_varnames[0]])


def _float(tx, x=ConstVT(0.0)):
    if isinstance(x, SymFloatVT):
        return x
    if isinstance(x, TensorVT):
        raise Unsupported("float(tensor) needs real data (a graph break)")
    return ConstVT(float(tx.const(x)))


def _int(tx, x=ConstVT(0), *base):
    if isinstance(x, TensorVT):
        raise Unsupported("int(tensor) needs real data (a graph break)")
    return ConstVT(int(tx.const(x), *[tx.const(b) for b in base]))


def _bool(tx, x=ConstVT(False)):
    return ConstVT(tx.truth(x))


def _any_all(pick):
    def model(tx, it):
        return ConstVT(pick(tx.truth(v) for v in items_of(tx, it)))
    return model


_BUILTINS = {
    len: _len, isinstance: _isinstance, issubclass: _issubclass, getattr: _getattr,
    hasattr: _hasattr, setattr: _setattr, range: _range, enumerate: _enumerate, zip: _zip,
    map: _map, list: _list, tuple: _tuple, set: _set, dict: _dict, iter: _iter, next: _next,
    reversed: _reversed, sum: _sum, min: _minmax(min), max: _minmax(max), abs: _abs,
    type: _type, callable: _callable, super: _super, float: _float, int: _int, bool: _bool,
    any: _any_all(any), all: _any_all(all),
}


# ---------------------------------------------------------------------- list/tuple/dict methods
def call_container_method(tx, obj, name, args, kwargs):
    if isinstance(obj, ListVT):
        return _list_method(tx, obj, name, args)
    if isinstance(obj, DictVT):
        return _dict_method(tx, obj, name, args)
    if isinstance(obj, TupleVT) and name in ("index", "count"):
        return ConstVT(getattr(tuple(tx.const(i) for i in obj.items), name)(*[tx.const(a) for a in args]))
    raise Unsupported(f"{type(obj).__name__}.{name}")


def _list_method(tx, lst, name, args):
    items = lst.items
    if name == "append":
        items.append(args[0])
    elif name == "extend":
        items.extend(items_of(tx, args[0]))
    elif name == "insert":
        items.insert(tx.const(args[0]), args[1])
    elif name == "pop":
        v = items.pop(tx.const(args[0]) if args else -1)
        tx.mark_mutated(lst)
        return v
    elif name == "clear":
        items.clear()
    elif name == "reverse":
        items.reverse()
    elif name == "copy":
        return ListVT(items)
    elif name in ("index", "count"):
        return ConstVT(getattr([tx.const(i) for i in items], name)(*[tx.const(a) for a in args]))
    else:
        raise Unsupported(f"list.{name}")
    tx.mark_mutated(lst)
    return ConstVT(None)


def _dict_method(tx, d, name, args):
    items = d.items
    if name == "items":
        return ListVT([TupleVT([ConstVT(k), v]) for k, v in items.items()])
    if name == "keys":
        return ListVT([ConstVT(k) for k in items])
    if name == "values":
        return ListVT(list(items.values()))
    if name == "get":
        return items.get(tx.const(args[0]), args[1] if len(args) > 1 else ConstVT(None))
    if name == "copy":
        return DictVT(items)
    if name == "__contains__":
        return ConstVT(tx.const(args[0]) in items)
    if name == "update":
        items.update(args[0].items if isinstance(args[0], DictVT) else {})
    elif name == "pop":
        v = items.pop(tx.const(args[0]), *args[1:])
        tx.mark_mutated(d)
        return v
    elif name == "setdefault":
        v = items.setdefault(tx.const(args[0]), args[1] if len(args) > 1 else ConstVT(None))
        tx.mark_mutated(d)
        return v
    elif name == "clear":
        items.clear()
    else:
        raise Unsupported(f"dict.{name}")
    tx.mark_mutated(d)
    return ConstVT(None)


_unused = builtins
