"""What calls, attribute reads, operators and iteration do to trackers (mixed into the Translator).

- ember functions and Tensor methods with tensor arguments become ``call_function`` /
  ``call_method`` nodes; their fake result comes from running them on meta tensors;
- Python operators on tensors become ``operator.*`` nodes;
- user functions, methods, closures and ``nn.Module.__call__`` (forward + forward hooks) are
  inlined; builtins on known values are folded;
- a handful of builtins (``len``, ``isinstance``, ``range``, ``enumerate``, ``zip`` ...) are
  modelled; everything else raises ``Unsupported``.

Example:
    >>> from ember._dynamo.call_rules import BINARY_OPS
    >>> BINARY_OPS["+="].__name__
    'iadd'
"""
from __future__ import annotations

import builtins
import inspect
import math
import operator
import types

from .._tensor import Tensor
from .._device import device as _device
from ..nn import Module
from .exc import Unsupported
from .variables import ContainerMethodVT, items_of  # noqa: F401 (re-exported)
from .variables import (NULL, CellVT, ConstVT, CtxVT, DictVT, IteratorVT, ListVT, MethodVT,
                        NestedFunctionVT, NNModuleVT, ObjectVT, SetVT, SliceVT, SuperVT,
                        SymFloatVT, SymIntVT, TensorMethodVT, TensorVT, TupleVT, UserFunctionVT,
                        UserObjectVT)
from . import graph_ops, optim_rules, shape_rules, trace_rules
from .builtin_rules import call_builtin, call_container_method
from .trace_rules import _is_ember_fn
from .module_rules import _MISSING, ModuleRules, _container_names, _static_lookup

BINARY_OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
    ">>": operator.rshift,
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
    ">>=": operator.irshift,
}
COMPARE_OPS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
               ">": operator.gt, ">=": operator.ge}
_INPLACE_TO_PLAIN = {operator.iadd: operator.add, operator.isub: operator.sub,
                     operator.imul: operator.mul, operator.itruediv: operator.truediv,
                     operator.ifloordiv: operator.floordiv, operator.imod: operator.mod,
                     operator.ipow: operator.pow, operator.imatmul: operator.matmul}
# tensor attributes that are plain values, answered from the fake tensor (sizes are guarded)
_TENSOR_VALUE_ATTRS = {"shape", "dtype", "ndim", "requires_grad", "is_leaf", "layout", "is_cuda",
                       "is_sparse", "is_quantized", "is_complex", "is_floating_point", "itemsize"}
_TENSOR_TENSOR_ATTRS = {"T", "mT", "H", "mH", "real", "imag", "data"}
_BREAKING_METHODS = {"item", "tolist", "numpy", "backward", "__bool__", "__int__", "__float__",
                     "__index__", "nonzero", "unique", "masked_select", "data_ptr", "storage",
                     "untyped_storage", "register_hook", "retain_grad", "__array__", "any", "all"}
_FOLDABLE_MODULES = ("math", "operator", "builtins", "_operator", "itertools", "functools")
_PURE_BUILTINS = {abs, min, max, round, divmod, pow, str, repr, int, float, bool, complex, hash,
                  ord, chr, bin, hex, oct, format, sorted, any, all, sum, slice, frozenset, set}


class CallRules(ModuleRules):

    # ------------------------------------------------------------------ small helpers
    def const(self, vt):
        if isinstance(vt, SymFloatVT):
            return self.specialize(vt).value
        if isinstance(vt, SymIntVT):
            return shape_rules.specialize(self, vt).value
        if not vt.is_const():
            raise Unsupported(f"{vt} used where a Python constant is needed")
        return vt.as_python_constant()

    def specialize(self, vt: SymFloatVT) -> ConstVT:
        for source, value in vt.roots:
            self.output.guards.constant(source, value)
        return ConstVT(vt.value)

    def mark_mutated(self, vt):
        if getattr(vt, "real", None) is not None and not vt.mutated:
            vt.mutated = True
            self.output.side_effects.append(("container", vt, None, None))

    def as_arg(self, vt):
        """A graph argument for ``vt``: a node, a constant, or a container of those."""
        if isinstance(vt, (TensorVT, SymFloatVT, SymIntVT)):
            return vt.node
        if isinstance(vt, (ListVT, TupleVT)):
            items = [self.as_arg(i) for i in vt.items]
            return items if isinstance(vt, ListVT) else tuple(items)
        if isinstance(vt, DictVT):
            return {k: self.as_arg(v) for k, v in vt.items.items()}
        if isinstance(vt, SliceVT):
            return slice(*(self.as_arg(p) for p in vt.parts))
        if vt.is_const():
            return vt.as_python_constant()
        raise Unsupported(f"{vt} cannot be a graph argument")

    def as_meta(self, vt):
        if isinstance(vt, TensorVT):
            return vt.meta
        if isinstance(vt, (SymFloatVT, SymIntVT)):
            return vt.value
        if isinstance(vt, (ListVT, TupleVT)):
            items = [self.as_meta(i) for i in vt.items]
            return items if isinstance(vt, ListVT) else tuple(items)
        if isinstance(vt, DictVT):
            return {k: self.as_meta(v) for k, v in vt.items.items()}
        if isinstance(vt, SliceVT):
            return slice(*(self.as_meta(p) for p in vt.parts))
        return self.const(vt)

    def has_tensor(self, vts) -> bool:
        for v in vts:
            if isinstance(v, (TensorVT, SymFloatVT, SymIntVT)):
                return True
            if isinstance(v, (ListVT, TupleVT)) and self.has_tensor(v.items):
                return True
            if isinstance(v, DictVT) and self.has_tensor(v.items.values()):
                return True
            if isinstance(v, SliceVT) and self.has_tensor(v.parts):
                return True
        return False

    def wrap_result(self, node, meta):
        if isinstance(meta, Tensor):
            return TensorVT(node, meta)
        if isinstance(meta, (tuple, list)) and _contains_tensor(meta):
            g = self.output.graph
            items = [self.wrap_result(g.call_function(operator.getitem, (node, i)), m)
                     for i, m in enumerate(meta)]
            return ListVT(items) if isinstance(meta, list) else TupleVT(items, cls=type(meta))
        return self.wrap_const(meta)

    def wrap_const(self, value):
        if isinstance(value, (list, tuple)) and not isinstance(value, str):
            items = [self.wrap_const(v) for v in value]
            if type(value) is list:
                return ListVT(items)
            if type(value) is tuple:
                return TupleVT(items)
            return ConstVT(value)
        if isinstance(value, dict):
            return DictVT({k: self.wrap_const(v) for k, v in value.items()})
        if isinstance(value, Tensor):
            raise Unsupported("a tensor produced outside the graph")
        return ConstVT(value)

    # ------------------------------------------------------------------ graph ops
    def emit(self, kind, target, args, kwargs, meta_fn):
        """Run ``meta_fn`` on fake values, then record the node; non-tensor results fold."""
        m_args = [self.as_meta(a) for a in args]
        m_kwargs = {k: self.as_meta(v) for k, v in kwargs.items()}
        try:
            out = meta_fn(*m_args, **m_kwargs)
        except NotImplementedError as e:
            raise Unsupported(f"{_name(target)} has no fake/meta implementation here ({e})")
        except Unsupported:
            raise
        name = target if isinstance(target, str) else getattr(target, "__name__", "")
        mutating = name.endswith("_") and not name.endswith("__") or target is operator.setitem
        if not _contains_tensor(out) and not mutating:
            return self.wrap_const(out)
        g_args = tuple(self.as_arg(a) for a in args)
        g_kwargs = {k: self.as_arg(v) for k, v in kwargs.items()}
        if kind == "function" and not all(map(_printable, g_args + tuple(g_kwargs.values()))):
            target, g_args, g_kwargs = _bake_constants(target, g_args, g_kwargs)
        if kind == "method":
            node = self.output.graph.call_method(target, g_args, g_kwargs)
        else:
            node = self.output.graph.call_function(target, g_args, g_kwargs)
        result = self.wrap_result(node, out)
        if self.output.symbols:
            shape_rules.propagate(self, meta_fn, args, kwargs, out, result)
        return result

    def call_ember(self, fn, args, kwargs):
        name = getattr(fn, "__name__", "")
        if name in _BREAKING_METHODS:
            raise Unsupported(f"ember.{name}() needs real data (a graph break)")
        if not self.has_tensor(list(args) + list(kwargs.values())):
            vals = [self.const(a) for a in args]
            kw = {k: self.const(v) for k, v in kwargs.items()}
            out = fn(*vals, **kw)
            if not _contains_tensor(out):
                return self.wrap_const(out)
            # a factory (ember.zeros, ember.tensor ...): a node with constant arguments
            node = self.output.graph.call_function(fn, tuple(vals), kw)
            return self.wrap_result(node, _to_meta(out))
        return self.emit("function", fn, args, kwargs, fn)

    def call_tensor_method(self, tensor: TensorVT, name, args, kwargs):
        if name in _BREAKING_METHODS:
            raise Unsupported(f"Tensor.{name}() needs real data (a graph break)")
        if tensor.sym is not None and name in ("size", "numel"):
            if name == "numel":
                return shape_rules.numel_of(self, tensor)
            dim = [self.const(a) for a in args] + [self.const(v) for v in kwargs.values()]
            return shape_rules.size_of(self, tensor, dim[0]) if dim else shape_rules.shape_of(self, tensor)
        if name == "size" or name == "dim" or name == "numel" or name == "stride":
            out = getattr(tensor.meta, name)(*[self.const(a) for a in args],
                                             **{k: self.const(v) for k, v in kwargs.items()})
            return self.wrap_const(out)
        if name in ("type", "to", "cpu", "cuda") and not args and not kwargs and name != "type":
            return tensor

        def meta_fn(self_meta, *a, **k):
            return getattr(self_meta, name)(*a, **k)
        return self.emit("method", name, [tensor] + list(args), kwargs, meta_fn)

    def binary(self, op, a, b, sym):
        if isinstance(a, TensorVT) or isinstance(b, TensorVT):
            return self.emit("function", op, [a, b], {}, op)
        if isinstance(a, SymIntVT) or isinstance(b, SymIntVT):
            if op in COMPARE_OPS.values():
                return shape_rules.compare(self, op, a, b)
            r = shape_rules.arith(self, op, a, b)
            if r is not None:
                return r
            a = shape_rules.specialize(self, a) if isinstance(a, SymIntVT) else a
            b = shape_rules.specialize(self, b) if isinstance(b, SymIntVT) else b
        if isinstance(a, SymFloatVT) or isinstance(b, SymFloatVT):
            other = b if isinstance(a, SymFloatVT) else a
            if isinstance(other, (SymFloatVT, ConstVT)) and isinstance(self.as_meta(other), (int, float)) \
                    and op not in COMPARE_OPS.values():
                f = _INPLACE_TO_PLAIN.get(op, op)
                value = f(self.as_meta(a), self.as_meta(b))
                node = self.output.graph.call_function(f, (self.as_arg(a), self.as_arg(b)))
                roots = [r for v in (a, b) if isinstance(v, SymFloatVT) for r in v.roots]
                return SymFloatVT(node, value, roots)
            a = self.specialize(a) if isinstance(a, SymFloatVT) else a
            b = self.specialize(b) if isinstance(b, SymFloatVT) else b
        if isinstance(a, (ListVT, TupleVT)) and isinstance(b, (ListVT, TupleVT)) and op in (
                operator.add, operator.iadd):
            if op is operator.iadd and isinstance(a, ListVT):
                a.items.extend(b.items)
                self.mark_mutated(a)
                return a
            return type(a)(a.items + b.items) if isinstance(a, ListVT) else TupleVT(a.items + b.items)
        if isinstance(a, (ListVT, TupleVT)) and op in (operator.mul, operator.imul) and b.is_const():
            items = a.items * self.const(b)
            return ListVT(items) if isinstance(a, ListVT) else TupleVT(items)
        if op in (operator.eq, operator.ne) and not (a.is_const() and b.is_const()):
            same = self.is_same(a, b)
            return ConstVT(same if op is operator.eq else not same)
        return ConstVT(op(self.const(a), self.const(b)))

    def unary(self, op, v):
        if isinstance(v, TensorVT):
            return self.emit("function", op, [v], {}, op)
        if isinstance(v, SymFloatVT) and op is operator.neg:
            node = self.output.graph.call_function(op, (v.node,))
            return SymFloatVT(node, -v.value, v.roots)
        if isinstance(v, SymIntVT) and op is operator.neg:
            return shape_rules.neg(self, v)
        return ConstVT(op(self.const(v)))

    # ------------------------------------------------------------------ truth and identity
    def truth(self, vt) -> bool:
        if isinstance(vt, TensorVT):
            raise Unsupported("data-dependent branch on a tensor value")
        if isinstance(vt, SymFloatVT):
            return bool(self.specialize(vt).value)
        if isinstance(vt, SymIntVT):
            return shape_rules.truth(self, vt)
        if isinstance(vt, (ListVT, TupleVT, SetVT)):
            return bool(vt.items)
        if isinstance(vt, DictVT):
            return bool(vt.items)
        if vt.is_const():
            return bool(vt.as_python_constant())
        if isinstance(vt, NNModuleVT):
            return bool(vt.module)
        if isinstance(vt, UserObjectVT):
            t = type(vt.obj)
            if hasattr(t, "__bool__") or hasattr(t, "__len__"):
                raise Unsupported(f"truth value of a {t.__name__} object")
            return True
        return True

    def is_none(self, vt) -> bool:
        return vt.is_const() and vt.as_python_constant() is None

    def identity(self, vt):
        for attr in ("value", "module", "obj", "fn", "real"):
            v = getattr(vt, attr, None)
            if v is not None or (attr == "value" and isinstance(vt, ConstVT)):
                return v
        return vt

    def is_same(self, a, b) -> bool:
        if isinstance(a, TensorVT) and isinstance(b, TensorVT):
            return a.node is b.node
        if isinstance(a, TensorVT) or isinstance(b, TensorVT):
            return False
        return self.identity(a) is self.identity(b)

    def contains(self, container, item) -> bool:
        if isinstance(container, DictVT):
            return self.const(item) in container.items
        if isinstance(container, NNModuleVT):
            return self.const(item) in container.module
        items = items_of(self, container)
        if item.is_const() and all(i.is_const() for i in items):
            return self.const(item) in [i.as_python_constant() for i in items]
        return any(self.is_same(i, item) for i in items)

    # ------------------------------------------------------------------ iteration and indexing
    def get_iter(self, vt):
        if isinstance(vt, IteratorVT):
            return vt
        if isinstance(vt, NNModuleVT):
            m = vt.module
            if hasattr(m, "_modules") and type(m).__iter__ is not Module.__iter__ if hasattr(
                    Module, "__iter__") else True:
                pass
            names = _container_names(m)
            if names is None:
                raise Unsupported(f"iteration over {type(m).__name__}")
            if type(m).__name__ == "ModuleDict" or type(m).__name__ == "ParameterDict":
                return IteratorVT([ConstVT(k) for k in names])
            return IteratorVT([self.submodule(vt, k) for k in names])
        if isinstance(vt, TensorVT):
            if vt.sym is not None and vt.meta.ndim:
                self.const(shape_rules.size_of(self, vt, 0))  # unrolling fixes the length
            n = vt.meta.shape[0] if vt.meta.ndim else None
            if n is None:
                raise Unsupported("iteration over a 0-d tensor")
            return IteratorVT([self.getitem(vt, ConstVT(i)) for i in range(n)])
        return IteratorVT(items_of(self, vt))


    def getitem(self, obj, idx):
        if isinstance(obj, TensorVT):
            return self.emit("function", operator.getitem, [obj, idx], {}, operator.getitem)
        if isinstance(obj, (ListVT, TupleVT)):
            i = self.const(idx)
            if isinstance(i, slice):
                return type(obj)(obj.items[i]) if isinstance(obj, ListVT) else TupleVT(obj.items[i])
            return obj.items[i]
        if isinstance(obj, DictVT):
            return obj.items[self.const(idx)]
        if isinstance(obj, NNModuleVT):
            key = self.const(idx)
            m = obj.module
            names = _container_names(m)
            if names is None:
                raise Unsupported(f"indexing {type(m).__name__}")
            if isinstance(key, int):
                keys = list(m._modules) if m._modules else list(m._parameters)
                return self.submodule(obj, keys[key])
            if isinstance(key, str):
                return self.submodule(obj, key)
            raise Unsupported(f"indexing {type(m).__name__} with {key!r}")
        if isinstance(obj, ObjectVT) and isinstance(obj.value, type):
            return ObjectVT(obj.value[self.const(idx)])   # typing subscripts
        return ConstVT(self.const(obj)[self.const(idx)])

    def setitem(self, obj, idx, value):
        if isinstance(obj, TensorVT):
            self.emit("function", operator.setitem, [obj, idx, value], {}, operator.setitem)
        elif isinstance(obj, ListVT):
            obj.items[self.const(idx)] = value
            self.mark_mutated(obj)
        elif isinstance(obj, DictVT):
            obj.items[self.const(idx)] = value
            self.mark_mutated(obj)
        else:
            raise Unsupported(f"item assignment on {obj}")

    # ------------------------------------------------------------------ attributes
    def get_attr(self, vt, name):
        og = self.output
        if isinstance(vt, TensorVT):
            if name == "shape" and vt.sym is not None:
                return shape_rules.shape_of(self, vt)
            if name in _TENSOR_VALUE_ATTRS:
                return self.wrap_const(getattr(vt.meta, name))
            if name == "device":
                return ConstVT(_device("cpu"))
            if name in ("is_meta",):
                return ConstVT(False)
            if name in _TENSOR_TENSOR_ATTRS:
                return self.emit("function", getattr, [vt, ConstVT(name)], {}, getattr)
            if name == "grad" and getattr(vt, "real", None) is not None and vt.source is not None:
                return og.wrap(vt.real.grad, f"{vt.source}.grad")   # an input's .grad: an input too
            if name in ("grad", "grad_fn", "_version"):
                raise Unsupported(f"Tensor.{name} inside a captured region")
            return TensorMethodVT(vt, name)
        if isinstance(vt, NNModuleVT):
            return self.module_attr(vt, name)
        if isinstance(vt, UserObjectVT):
            if name in vt.pending:
                return vt.pending[name]
            return self.object_attr(vt, vt.obj, name)
        if isinstance(vt, SuperVT):
            for klass in type(vt.obj.module if isinstance(vt.obj, NNModuleVT) else vt.obj.obj).__mro__[
                    type(self.identity(vt.obj)).__mro__.index(vt.cls) + 1:]:
                if name in klass.__dict__:
                    attr = klass.__dict__[name]
                    if isinstance(attr, types.FunctionType):
                        return MethodVT(self._function_vt(attr), vt.obj)
                    return og.wrap(attr, None)
            raise Unsupported(f"super().{name}")
        if isinstance(vt, (ListVT, TupleVT, DictVT)):
            if isinstance(vt, TupleVT) and hasattr(vt.cls, "_fields") and name in vt.cls._fields:
                return vt.items[vt.cls._fields.index(name)]
            return ContainerMethodVT(vt, name)
        if isinstance(vt, SymFloatVT):
            return ObjectVT(getattr(self.specialize(vt).value, name))
        if isinstance(vt, (UserFunctionVT,)):
            return og.wrap(getattr(vt.fn, name), None)
        if isinstance(vt, (ObjectVT, ConstVT)):
            value = vt.value
            try:
                attr = getattr(value, name)
            except AttributeError:
                raise
            if isinstance(value, types.ModuleType) and not _is_ember_module(value) and \
                    vt.source is not None:
                return og.wrap(attr, f"{vt.source}.{name}")
            if isinstance(attr, types.FunctionType) and not _is_ember_fn(attr):
                return UserFunctionVT(attr) if not isinstance(value, type) else UserFunctionVT(attr)
            if isinstance(attr, types.MethodType) and not _is_ember_fn(attr.__func__) and \
                    isinstance(value, type):
                return MethodVT(UserFunctionVT(attr.__func__), ObjectVT(value))
            return og.wrap(attr, None) if not isinstance(attr, Tensor) else \
                self._unsupported_tensor_attr(name)
        raise Unsupported(f"attribute {name!r} of {vt}")

    def _unsupported_tensor_attr(self, name):
        raise Unsupported(f"a tensor reached through a global object ({name}) without a source")

    def _function_vt(self, fn):
        return ObjectVT(fn) if _is_ember_fn(fn) and not _is_module_method(fn) else UserFunctionVT(fn)


    def object_attr(self, vt, obj, name):
        og = self.output
        static = _static_lookup(type(obj), name)
        if isinstance(static, property):
            return self.call(self._function_vt(static.fget), [vt], {})
        if not isinstance(static, types.FunctionType) and hasattr(static, "_ember_compiled_fn"):
            static = static._ember_compiled_fn
        inst = getattr(obj, "__dict__", {})
        if name in inst:
            return og.wrap(inst[name], None if vt.source is None else f"{vt.source}.{name}")
        if isinstance(static, types.FunctionType):
            return MethodVT(self._function_vt(static), vt)
        if isinstance(static, staticmethod):
            return self._function_vt(static.__func__)
        if isinstance(static, classmethod):
            return MethodVT(self._function_vt(static.__func__), ObjectVT(type(obj)))
        if static is not _MISSING and not hasattr(static, "__get__"):
            return og.wrap(static, None)
        try:
            value = getattr(obj, name)
        except AttributeError:
            raise Unsupported(f"'{type(obj).__name__}' object has no attribute '{name}'")
        return og.wrap(value, None if vt.source is None else f"{vt.source}.{name}")

    def store_attr(self, obj, name, value):
        if isinstance(obj, UserObjectVT):
            obj.pending[name] = value
        elif isinstance(obj, NNModuleVT):
            if isinstance(value, (TensorVT, NNModuleVT)):
                raise Unsupported(f"assigning a tensor or module to a module attribute ({name})")
            if not hasattr(obj, "pending"):
                obj.pending = {}
            obj.pending[name] = value
        else:
            raise Unsupported(f"attribute assignment on {obj}")
        self.output.side_effects.append(("setattr", obj, name, value))

    # ------------------------------------------------------------------ calls
    def call(self, fn, args, kwargs):
        args = list(args)
        target = fn.fn if isinstance(fn, UserFunctionVT) else \
            fn.value if isinstance(fn, ObjectVT) else fn.obj if isinstance(fn, UserObjectVT) else None
        if target is not None:
            if getattr(target, "_ember_disabled", False):
                raise Unsupported(f"call to {getattr(target, '__name__', target)}, which "
                                  "ember._dynamo.disable excludes from capture")
            if target is trace_rules.graph_break:
                raise Unsupported("graph_break() called")
            if trace_rules.is_allowed(target):
                return self.emit("function", target, args, kwargs, target)
            inner = getattr(target, "_ember_compiled_fn", None)
            if inner is not None and not isinstance(target, types.FunctionType):
                return self.inline(UserFunctionVT(inner), args, kwargs)
        if isinstance(fn, MethodVT):
            if optim_rules.is_optimizer_step(fn.func, fn.obj):
                return optim_rules.capture_step(self, fn.obj, args, kwargs)
            if optim_rules.is_optimizer_zero_grad(fn.func, fn.obj):
                return optim_rules.capture_zero_grad(self, fn.obj, args, kwargs)
            return self.call(fn.func, [fn.obj] + args, kwargs)
        if isinstance(fn, TensorMethodVT):
            return self.call_tensor_method(fn.tensor, fn.name, args, kwargs)
        if isinstance(fn, ContainerMethodVT) and isinstance(fn.obj, NNModuleVT):
            return self.module_iterator(fn.obj, fn.name, args, kwargs)
        if isinstance(fn, ContainerMethodVT):
            return call_container_method(self, fn.obj, fn.name, args, kwargs)
        if isinstance(fn, NNModuleVT):
            return self.call_module(fn, args, kwargs)
        if isinstance(fn, (UserFunctionVT, NestedFunctionVT)):
            return self.inline(fn, args, kwargs)
        if isinstance(fn, CtxExitLike):
            return self.exit_ctx(fn.ctx)
        if isinstance(fn, UserObjectVT) and callable(fn.obj):
            call = _static_lookup(type(fn.obj), "__call__")
            if isinstance(call, types.FunctionType):
                return self.inline(UserFunctionVT(call), [fn] + args, kwargs)
        if isinstance(fn, (ObjectVT, ConstVT)):
            return call_builtin(self, fn.value, args, kwargs)
        raise Unsupported(f"call to {fn}")


    def inline(self, fn, args, kwargs):
        if isinstance(fn, UserFunctionVT):
            f = fn.fn
            if _is_ember_fn(f) and not _is_module_method(f):
                return self.call_ember(f, args, kwargs)
            code = f.__code__
            defaults = [self.output.wrap(d, None) for d in (f.__defaults__ or ())]
            kwdefaults = {k: self.output.wrap(v, None) for k, v in (f.__kwdefaults__ or {}).items()}
            closure = [self.output.wrap(c, None) for c in (f.__closure__ or ())]
            f_globals = f.__globals__
            gsrc = "G" if f_globals is self.root().f_globals else \
                self.output.guards._const(f_globals)
        else:
            code = fn.code
            defaults = items_of(self, fn.defaults) if fn.defaults is not None else []
            kwdefaults = dict(fn.kwdefaults.items) if isinstance(fn.kwdefaults, DictVT) else {}
            closure = list(fn.closure)
            f_globals = fn.f_globals
            gsrc = "G" if f_globals is self.root().f_globals else self.output.guards._const(f_globals)
        f_locals = bind_args(code, defaults, kwdefaults, args, kwargs)
        cells = dict(zip(code.co_freevars, closure))
        # self is the symbolic_convert.Translator (a CallRules subclass): a nested one inlines the call
        tx = type(self)(code, f_locals, cells, self.output, f_globals, gsrc, parent=self)
        ret = tx.run()
        if tx.yielded is not None:
            return IteratorVT(tx.yielded)
        return ret

    # ------------------------------------------------------------------ contexts
    def enter_ctx(self, ctx):
        g = self.output.graph
        if getattr(ctx, "applied", False):  # set_grad_enabled(...) already switched at its call
            ctx.applied = False
            return
        if ctx.kind == "grad":
            from ..autograd import grad_mode
            ctx.saved = grad_mode.STATE.enabled
            if ctx.args is not None:
                g.call_function(graph_ops.set_grad_enabled, (ctx.args,))
                grad_mode.STATE.enabled = ctx.args
            self.root().ctx_stack.append(ctx)
        elif ctx.kind == "autocast":
            node = g.call_function(graph_ops.enter_autocast, ctx.args)
            ctx.saved = (node, graph_ops.enter_autocast(*ctx.args))
            self.root().ctx_stack.append(ctx)
        else:
            raise Unsupported(f"context {ctx.kind}")

    def exit_ctx(self, ctx):
        g = self.output.graph
        stack = self.root().ctx_stack
        if stack and stack[-1] is ctx:
            stack.pop()
        if ctx.kind == "grad":
            from ..autograd import grad_mode
            if ctx.args is not None:
                g.call_function(graph_ops.set_grad_enabled, (ctx.saved,))
            grad_mode.STATE.enabled = ctx.saved
        else:
            node, real = ctx.saved
            g.call_function(graph_ops.exit_autocast, (node,))
            graph_ops.exit_autocast(real)
        return ConstVT(None)


class CtxExitLike:
    """Base of the tracker BEFORE_WITH pushes (defined in symbolic_convert as ExitVT)."""


def _is_ember_module(mod) -> bool:
    return mod.__name__ == "ember" or mod.__name__.startswith("ember.")


def _is_module_method(fn) -> bool:
    """A method defined on an nn.Module subclass: inlined even when it is ember's own."""
    qual = getattr(fn, "__qualname__", "")
    if "." not in qual:
        return False
    owner = getattr(inspect.getmodule(fn), qual.split(".")[0], None)
    return isinstance(owner, type) and issubclass(owner, Module)


def _contains_tensor(x) -> bool:
    if isinstance(x, Tensor):
        return True
    if isinstance(x, (tuple, list)):
        return any(_contains_tensor(i) for i in x)
    if isinstance(x, dict):
        return any(_contains_tensor(i) for i in x.values())
    return False


def _to_meta(x):
    from .output_graph import fake_of
    if isinstance(x, Tensor):
        return fake_of(x)
    if isinstance(x, (tuple, list)):
        return type(x)(_to_meta(i) for i in x)
    return x


def _printable(a) -> bool:
    """Whether fx code generation can spell ``a`` (else it is baked into the call target)."""
    from ..fx import Node
    if isinstance(a, (Node, int, float, str, bool, type(None), type(...), slice, type)):
        return True
    if isinstance(a, (tuple, list)):
        return all(map(_printable, a))
    if isinstance(a, dict):
        return all(map(_printable, a.values()))
    mod = type(a).__module__ or ""
    if mod.startswith("ember") and type(a).__name__ in ("dtype", "device", "Size", "layout",
                                                          "memory_format"):
        return True
    return isinstance(a, (types.FunctionType, types.BuiltinFunctionType))


def _bake_constants(fn, args, kwargs):
    """A call target with the unprintable constant arguments of this call built in."""
    fixed = {i: a for i, a in enumerate(args) if not _printable(a)}
    fixed_kw = {k: v for k, v in kwargs.items() if not _printable(v)}
    n = len(args)

    def bound(*rest, **kw):
        it = iter(rest)
        full = [fixed[i] if i in fixed else next(it) for i in range(n)]
        return fn(*full, **kw, **fixed_kw)
    bound.__name__ = bound.__qualname__ = getattr(fn, "__name__", "call")
    bound.__module__ = "ember_baked"
    return (bound, tuple(a for i, a in enumerate(args) if i not in fixed),
            {k: v for k, v in kwargs.items() if k not in fixed_kw})


def _name(target):
    return target if isinstance(target, str) else getattr(target, "__name__", repr(target))


def bind_args(code, defaults, kwdefaults, args, kwargs) -> dict:
    """CPython's argument binding over trackers: name -> tracker for ``code``'s parameters."""
    nargs, nkw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames
    varargs, varkw = bool(code.co_flags & 0x04), bool(code.co_flags & 0x08)
    out = {}
    pos = names[:nargs]
    for i, a in enumerate(args[:nargs]):
        out[pos[i]] = a
    extra = args[nargs:]
    if extra and not varargs:
        raise Unsupported(f"{code.co_name}() takes {nargs} positional arguments but {len(args)} were given")
    kwonly = names[nargs:nargs + nkw]
    rest = {}
    for k, v in kwargs.items():
        if k in out:
            raise Unsupported(f"{code.co_name}() got multiple values for argument '{k}'")
        if (k in pos[code.co_posonlyargcount:]) or k in kwonly:
            out[k] = v
        elif varkw:
            rest[k] = v
        else:
            raise Unsupported(f"{code.co_name}() got an unexpected keyword argument '{k}'")
    first_default = nargs - len(defaults)
    for i, name in enumerate(pos):
        if name not in out:
            if i >= first_default:
                out[name] = defaults[i - first_default]
            else:
                raise Unsupported(f"{code.co_name}() missing required argument '{name}'")
    for name in kwonly:
        if name not in out:
            if name in kwdefaults:
                out[name] = kwdefaults[name]
            else:
                raise Unsupported(f"{code.co_name}() missing keyword-only argument '{name}'")
    idx = nargs + nkw
    if varargs:
        out[names[idx]] = TupleVT(extra)
        idx += 1
    if varkw:
        out[names[idx]] = DictVT(rest)
    return out


__all__ = ["CallRules", "bind_args", "items_of", "BINARY_OPS", "COMPARE_OPS"]
_unused = (builtins, math, CellVT, CtxVT, NULL, _PURE_BUILTINS, _FOLDABLE_MODULES)
