"""Symbolic tracing: run ``forward`` on Proxies and record what it does as a Graph.

``Tracer`` is the configurable part (which modules stay leaves, how attributes and constants become
nodes); ``symbolic_trace`` traces and wraps the result in a ``GraphModule``; ``wrap`` keeps a free
function as one node instead of tracing through it.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.fx import symbolic_trace
    >>> gm = symbolic_trace(nn.Sequential(nn.Linear(3, 4), nn.ReLU()))
    >>> [(n.op, n.target) for n in gm.graph.nodes]
    [('placeholder', 'input'), ('call_module', '0'), ('call_module', '1'), ('output', 'output')]
"""
from __future__ import annotations

import builtins
import functools
import inspect
import math
import types
import warnings
from typing import Any, Callable

from .._tensor_base import TensorBase
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate
from .proxy import ParameterProxy, Proxy, TracerBase
from ._wrap import _wrapped_fns_to_patch, wrap

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH", "PHBase", "is_fx_tracing"]

HAS_VARSTUFF = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_is_fx_tracing_flag = False


def is_fx_tracing() -> bool:
    return _is_fx_tracing_flag


class PHBase:
    """Marks a ``concrete_args`` entry that stays an input (a placeholder) inside a structure."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()


def _assert(condition, message: str = "") -> None:
    """``assert condition, message`` as a function, so traced graphs can keep the check."""
    if not condition:
        raise AssertionError(message)


def _assert_is_none(value, msg: str) -> None:
    if value is not None:
        raise AssertionError(msg)


def _find_proxy(*objects):
    found = []
    map_aggregate(objects, lambda x: found.append(x) if isinstance(x, Proxy) else None)
    return found[0] if found else None


def _create_wrapped_func(orig_fn: Callable) -> Callable:
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            p = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
            p.node.meta["is_wrapped"] = True
            return p
        return orig_fn(*args, **kwargs)
    return wrapped


class _Patcher:
    """Set attributes / dict entries for the duration of a trace and restore them afterwards."""

    def __init__(self) -> None:
        self._undo: list = []
        self.visited: set = set()

    def patch(self, d: dict, name: str, new) -> None:
        if name in d:
            old = d[name]
            self._undo.append(lambda: d.__setitem__(name, old))
        else:
            self._undo.append(lambda: d.pop(name, None))
        d[name] = new

    def patch_method(self, cls, name: str, new) -> None:
        old = cls.__dict__.get(name, None)
        had = name in cls.__dict__
        setattr(cls, name, new)
        self._undo.append(lambda: setattr(cls, name, old) if had else delattr(cls, name))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        while self._undo:
            self._undo.pop()()


class Tracer(TracerBase):
    """Traces a Module or function; override ``is_leaf_module`` and friends to customise."""

    def __init__(self, autowrap_modules: tuple = (math,), autowrap_functions: tuple = (),
                 param_shapes_constant: bool = False) -> None:
        super().__init__()
        self._autowrap_function_ids = {id(v) for m in autowrap_modules for k, v in vars(m).items()
                                       if not k.startswith("_") and callable(v)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_modules = list(autowrap_modules)
        self._autowrap_functions = list(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict | None = None
        self.root: Module | None = None
        self.tensor_attrs: dict = {}

    # ------------------------------------------------------------------ hooks to override
    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """ember.nn's own layers are leaves (one call_module node); containers are traced through."""
        return (m.__module__.startswith("ember.nn") or m.__module__.startswith("ember.ao.nn")) \
            and not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        if self.submodule_paths:
            path = self.submodule_paths.get(id(mod))
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """A leaf becomes one call_module node; otherwise trace through its ``forward``."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr: str, attr_val, parameter_proxy_cache: dict):
        """A parameter read through ``self.<name>`` becomes a (cached) get_attr Proxy."""
        def maybe_proxy(collection):
            for n, p in collection:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        factory = None if not self.param_shapes_constant else \
                            (lambda node: ParameterProxy(self, node, n, attr_val))
                        parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {},
                                                                     proxy_factory_fn=factory)
                    return parameter_proxy_cache[n]
            return None
        if isinstance(attr_val, Parameter):
            p = maybe_proxy(self.root.named_parameters())
            if p is not None:
                return p
        if self.proxy_buffer_attributes and isinstance(attr_val, TensorBase):
            p = maybe_proxy(self.root.named_buffers())
            if p is not None:
                return p
        return attr_val

    def create_arg(self, a) -> Any:
        """Parameters, buffers and submodules become get_attr nodes; other tensors are stored as
        ``_tensor_constant<i>`` attributes of the root."""
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, TensorBase):
            for n, p in self.root.named_buffers():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
        elif isinstance(a, Module):
            for n, p in self.root.named_modules():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
        if isinstance(a, tuple) and hasattr(a, "_fields") and not isinstance(a, Proxy):
            args = tuple(self.create_arg(e) for e in a)
            return self.create_node("call_function", a.__class__, args, {})
        if isinstance(a, TensorBase):
            qualname = self.tensor_attrs.get(id(a))
            if qualname is None:
                qualname = self.get_fresh_qualname("_tensor_constant")
                setattr(self.root, qualname, a)
                self.tensor_attrs[id(a)] = qualname
            return self.create_node("get_attr", qualname, (), {})
        return super().create_arg(a)

    def get_fresh_qualname(self, prefix: str) -> str:
        i = 0
        while hasattr(self.root, f"{prefix}{i}"):
            i += 1
        return f"{prefix}{i}"

    # ------------------------------------------------------------------ tracing
    def create_args_for_root(self, root_fn: Callable, is_module: bool, concrete_args=None):
        """Placeholders for the signature of ``root_fn`` (concrete args are specialised)."""
        fn = inspect.unwrap(root_fn)
        co = fn.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        names_iter = iter(co.co_varnames)
        args: list = []
        skip = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            next(names_iter)
            args.append(self.root)
        sig = inspect.signature(fn)
        arg_names = [next(names_iter) for _ in range(skip, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args))
        args.extend(self._proxy_placeholder(n, concrete_args, sig, fn) for n in arg_names)
        if co.co_kwonlyargcount > 0 or co.co_flags & HAS_VARSTUFF:
            if co.co_flags & inspect.CO_VARARGS:
                args.append(self._proxy_placeholder("*" + next(names_iter), concrete_args, sig, fn))
            if co.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self._proxy_placeholder("**" + next(names_iter), concrete_args, sig, fn))
            root_fn = _patch_function(root_fn, len(args))
        return root_fn, args

    def _proxy_placeholder(self, name: str, concrete_args, sig, fn):
        if concrete_args is not None and name in concrete_args:
            cnt = 0

            def replace_ph(x):
                nonlocal cnt
                cnt += 1
                param = sig.parameters[name]
                default = () if param.default is inspect.Parameter.empty else (param.default,)
                out = self.create_proxy("placeholder", f"{name}_{cnt}", default, {})
                if isinstance(x, PHBase):
                    return out
                if type(x) in (bool, int, float, str):
                    self.create_proxy("call_function", _assert,
                                      (out == x, f"{name} has been specialized to have value {x} "
                                                 "but got another value"), {})
                elif x is None:
                    self.create_proxy("call_function", _assert_is_none,
                                      (out, f"{name} has been specialized to have value None but "
                                            "got another value"), {})
                else:
                    warnings.warn(f"Was not able to add assertion to guarantee correct input {name} "
                                  "to specialized function. It is up to the user to make sure that "
                                  "your inputs match the inputs you specialized the function with.",
                                  stacklevel=2)
                return x
            value = concrete_args[name]
            if isinstance(value, (list, tuple, dict)):
                return map_aggregate(value, replace_ph)
            return replace_ph(value)
        if name[0] == "*":
            default = ()
        else:
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
        return self.create_proxy("placeholder", name, default, {},
                                 type_expr=fn.__annotations__.get(name, None))

    def trace(self, root, concrete_args: dict | tuple | None = None) -> Graph:
        """Trace ``root`` (a Module or a function) and return its Graph."""
        global _is_fx_tracing_flag
        old_flag, _is_fx_tracing_flag = _is_fx_tracing_flag, True
        try:
            if isinstance(root, Module):
                self.root = root
                fn = getattr(type(root), self.traced_func_name)
                self.root_module_name = root._get_name()
                self.submodule_paths = {id(mod): name for name, mod in root.named_modules()}
            else:
                self.root = Module()
                fn = root
            tracer_cls = getattr(self, "__class__", None)
            self.graph = Graph(tracer_cls=tracer_cls)
            self.tensor_attrs = {}

            def collect_tensor_attrs(m: Module, prefix: list) -> None:
                for k, v in m.__dict__.items():
                    if isinstance(v, TensorBase):
                        self.tensor_attrs[id(v)] = ".".join(prefix + [k])
                for k, v in m._buffers.items():
                    if v is not None:
                        self.tensor_attrs[id(v)] = ".".join(prefix + [k])
                for k, v in m._modules.items():
                    if v is not None:
                        collect_tensor_attrs(v, prefix + [k])
            collect_tensor_attrs(self.root, [])

            fn_globals = fn.__globals__
            fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
            parameter_proxy_cache: dict = {}
            orig_getattr = Module.__getattr__
            orig_call = Module.__call__

            def module_getattr_wrapper(mod, attr):
                attr_val = orig_getattr(mod, attr)
                return self.getattr(attr, attr_val, parameter_proxy_cache)

            def module_call_wrapper(mod, *args, **kwargs):
                def forward(*args, **kwargs):
                    return orig_call(mod, *args, **kwargs)
                _autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                                self._autowrap_function_ids)
                return self.call_module(mod, forward, args, kwargs)

            with _Patcher() as patcher:
                patcher.patch_method(Module, "__getattr__", module_getattr_wrapper)
                patcher.patch_method(Module, "__call__", module_call_wrapper)
                _patch_wrapped_functions(patcher)
                _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                for module in self._autowrap_modules:
                    _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                result = fn(*args)
                self.create_node("output", "output", (self.create_arg(result),), {},
                                 type_expr=fn.__annotations__.get("return", None))
            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = old_flag
        return self.graph

    def __deepcopy__(self, memo):
        import copy
        new = Tracer.__new__(type(self))
        for k, v in self.__dict__.items():
            new.__dict__[k] = v if k == "root" else copy.deepcopy(v, memo)
        return new


def _patch_function(fn: Callable, nargs: int) -> Callable:
    """A version of ``fn`` taking its ``*args``/``**kwargs`` as plain positional parameters."""
    co = fn.__code__
    co_flags = co.co_flags & ~HAS_VARSTUFF
    new_code = co.replace(co_argcount=nargs, co_kwonlyargcount=0, co_flags=co_flags)
    return types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def _patch_wrapped_functions(patcher: _Patcher) -> None:
    for (_, name), frame_dict in _wrapped_fns_to_patch.copy().items():
        if name not in frame_dict and hasattr(builtins, name):
            orig = getattr(builtins, name)
        else:
            orig = frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig))


def _autowrap_check(patcher: _Patcher, frame_dict: dict, function_ids: set) -> None:
    """Wrap the math-style functions a module's globals refer to (``math.sqrt(proxy)``)."""
    if id(frame_dict) in patcher.visited:
        return
    patcher.visited.add(id(frame_dict))
    for name, value in list(frame_dict.items()):
        if not name.startswith("_") and callable(value) and id(value) in function_ids:
            patcher.patch(frame_dict, name, _create_wrapped_func(value))


def symbolic_trace(root, concrete_args: dict | tuple | None = None) -> GraphModule:
    """Trace a Module or function into a ``GraphModule`` whose ``forward`` is generated code.

    Args:
        root: an ``nn.Module`` or a Python function.
        concrete_args: inputs to specialise on (e.g. flags driving control flow); ``PH`` keeps one
            as an input.

    Example:
        >>> import ember
        >>> from ember.fx import symbolic_trace
        >>> def f(x, flag):
        ...     return x + 1 if flag else x - 1
        >>> gm = symbolic_trace(f, concrete_args={"flag": True})
        >>> gm(ember.ones(2), True).tolist()
        [2.0, 2.0]
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)

