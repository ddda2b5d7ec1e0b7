"""What capture does with ``nn.Module`` trackers (mixed into the Translator via ``CallRules``).

- attribute reads follow ``Module``'s lookup order (instance dict, parameters, buffers, submodules,
  then the class); parameters and buffers become graph inputs with sources such as
  ``L['self']._modules['fc']._parameters['weight']``;
- ``module(...)`` inlines ``forward`` between its forward pre-hooks and forward hooks (hook tables
  are guarded; backward hooks and global hooks are a break);
- ``parameters()``/``named_modules()``/... are evaluated at once, each item wrapped with its source;
- ModuleList/Sequential/ModuleDict index and iterate as their children.

Example:
    >>> from ember._dynamo.module_rules import _module_path_source
    >>> _module_path_source("L['self']", "blocks.0.weight", "_parameters")
    "L['self']._modules['blocks']._modules['0']._parameters['weight']"
"""
from __future__ import annotations

import types

from ..nn import Module
from .exc import Unsupported
from .variables import (ConstVT, ContainerMethodVT, IteratorVT, MethodVT, ObjectVT, TupleVT,
                        UserFunctionVT, items_of)


_MODULE_ITERATORS = ("parameters", "named_parameters", "buffers", "named_buffers", "children",
                     "named_children", "modules", "named_modules")


def _module_path_source(root_source: str, path: str, table: str) -> str:
    """``L['m']._modules['a']._parameters['w']`` for ``path`` 'a.w' (``table`` holds the leaf)."""
    parts = path.split(".") if path else []
    src = root_source
    for p in parts[:-1]:
        src = f"{src}._modules[{p!r}]"
    return f"{src}.{table}[{parts[-1]!r}]" if parts else src


_MISSING = object()


def _static_lookup(cls, name):
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return _MISSING


def _container_names(m):
    name = type(m).__name__
    if any(c.__name__ in ("ModuleList", "Sequential", "ModuleDict") for c in type(m).__mro__):
        return list(m._modules)
    if any(c.__name__ in ("ParameterList", "ParameterDict") for c in type(m).__mro__):
        return list(m._parameters)
    return None if name else None


class ModuleRules:
    def module_iterator(self, vt, name, args, kwargs):
        """parameters()/named_modules()/...: evaluated now, every item wrapped with its source."""
        m, og = vt.module, self.output
        a = [self.const(x) for x in args]
        k = {key: self.const(v) for key, v in kwargs.items()}
        named = name.startswith("named_")
        base = name[6:] if named else name
        prefix = k.pop("prefix", "") if base in ("parameters", "buffers", "modules") else ""
        if base in ("parameters", "buffers"):
            pairs = list(getattr(m, "named_" + base)(*a, **k))
            table = "_parameters" if base == "parameters" else "_buffers"
        else:
            pairs = list(getattr(m, "named_" + base)(*a, **k))
            table = "_modules"
        for path, _ in m.named_modules():  # structure is pinned by every module's version guard
            og.wrap(m.get_submodule(path), _module_path_source(vt.source, path, "_modules")
                    if path else vt.source)
        items = []
        for path, value in pairs:
            src = _module_path_source(vt.source, path, table) if path else vt.source
            v = og.wrap(value, src)
            shown = f"{prefix}.{path}" if prefix and path else prefix or path
            items.append(TupleVT([ConstVT(shown), v]) if named else v)
        return IteratorVT(items)

    def submodule(self, vt, key):
        m = vt.module
        child = m._modules.get(key) if key in m._modules else m._parameters.get(key)
        if isinstance(child, Module):
            return self.output.wrap(child, f"{vt.source}._modules[{key!r}]")
        return self.output.wrap(child, f"{vt.source}._parameters[{key!r}]", guarded=False)

    def module_attr(self, vt, name):
        m, og, src = vt.module, self.output, vt.source
        if name in vt.__dict__.get("pending", {}):
            return vt.pending[name]
        d = m.__dict__
        static = _static_lookup(type(m), name)
        if isinstance(static, property):
            return self.call(self._function_vt(static.fget), [vt], {})
        if name in d:
            return og.wrap(d[name], f"{src}.{name}", guarded=False)
        for table in ("_parameters", "_buffers"):
            if name in d.get(table, ()):
                value = d[table][name]
                if value is None:
                    return ConstVT(None)
                return og.wrap(value, f"{src}.{table}[{name!r}]")
        if name in d.get("_modules", ()):
            child = d["_modules"][name]
            return ConstVT(None) if child is None else og.wrap(child, f"{src}._modules[{name!r}]")
        if static is _MISSING:
            raise Unsupported(f"'{type(m).__name__}' object has no attribute '{name}'")
        if not isinstance(static, types.FunctionType) and hasattr(static, "_ember_compiled_fn"):
            static = static._ember_compiled_fn   # a method decorated with @ember.compile
        if name in _MODULE_ITERATORS and static is getattr(Module, name):
            return ContainerMethodVT(vt, name)
        if isinstance(static, types.FunctionType):
            return MethodVT(self._function_vt(static), vt)
        if isinstance(static, staticmethod):
            return self._function_vt(static.__func__)
        if isinstance(static, classmethod):
            return MethodVT(self._function_vt(static.__func__), ObjectVT(type(m)))
        return og.wrap(static, None)

    def call_module(self, vt, args, kwargs):
        from ..nn.modules import _module_hooks as H
        from ..nn.modules._backward_hook import _global_backward_hooks, _global_backward_pre_hooks
        m, g = vt.module, self.output.guards
        if getattr(m, "_ember_opt_module", False):  # a compiled module inside: capture the original
            inner = self.output.wrap(m._modules["_orig_mod"], f"{vt.source}._modules['_orig_mod']")
            return self.call_module(inner, args, kwargs)
        g.module_hooks(vt.source, m)
        globals_ = (H._global_forward_pre_hooks, H._global_forward_hooks, _global_backward_hooks,
                    _global_backward_pre_hooks)
        g.add("not (" + " or ".join(g._const(t) for t in globals_) + ")", kind="state")
        if any(globals_) or m._backward_hooks or m._backward_pre_hooks:
            raise Unsupported("global or backward module hooks inside a captured region")
        if m._forward_pre_hooks_with_kwargs or m._forward_hooks_with_kwargs:
            raise Unsupported("forward hooks with kwargs inside a captured region")
        for hook in list(m._forward_pre_hooks.values()):
            new = self.call(self.output.wrap(hook, None), [vt, TupleVT(args)], {})
            if not self.is_none(new):
                args = items_of(self, new) if isinstance(new, TupleVT) else [new]
        if "forward" in m.__dict__:
            out = self.call(self.output.wrap(m.__dict__["forward"], None), args, kwargs)
        else:
            fwd = _static_lookup(type(m), "forward")
            fwd = getattr(fwd, "_ember_compiled_fn", fwd)  # @ember.compile on the class's forward
            out = self.inline(UserFunctionVT(fwd), [vt] + args, kwargs)
        for hook in list(m._forward_hooks.values()):
            new = self.call(self.output.wrap(hook, None), [vt, TupleVT(args), out], {})
            if not self.is_none(new):
                out = new
        return out
