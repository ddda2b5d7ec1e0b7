"""``ember.compile``: wrappers that stand in for CPython's frame hook, and the per-code cache.

A ``CompiledFunction`` binds each call's arguments into ``L``, tries the cache entries of its code
object (most recent first: guard, then run) and on a miss captures a new entry. A frame that
capture cannot express runs eagerly (its reason and the user's ``file:line`` go to the
``graph_breaks`` log); ``fullgraph=True`` raises ``Unsupported`` instead. Past
``config.recompile_limit`` entries for one code object (or ``accumulated_recompile_limit`` in
all) ember warns once and runs that code eagerly on further misses.

Example:
    >>> import ember
    >>> @ember.compile(backend="eager")
    ... def f(x):
    ...     return ember.sin(x) + 1
    >>> f(ember.zeros(2))
    tensor([1., 1.])
"""
from __future__ import annotations

import functools
import inspect
import logging
import types
import warnings

from .. import _logging  # noqa: F401 (applies EMBER_LOGS)
from ..nn import Module
from ..optim.optimizer import Optimizer
from . import config
from .backends.registry import lookup_backend
from .break_frame import convert_with_break
from .convert_frame import compiling, convert_frame, trace_to_graph
from . import dynamic_shapes as _dyn
from .exc import Unsupported
from .trace_rules import allow_in_graph, graph_break  # noqa: F401 (re-exported)

_log = logging.getLogger("ember._dynamo")
_log_breaks = logging.getLogger("ember._dynamo.graph_breaks")
_log_recompiles = logging.getLogger("ember._dynamo.recompiles")
_log_guards = logging.getLogger("ember._dynamo.guards")
_log_code = logging.getLogger("ember._dynamo.graph_code")
_log_dynamic = logging.getLogger("ember._dynamo.dynamic")

_VALID_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class _CodeCache:
    __slots__ = ("code", "entries", "eager", "limit_hit", "break_reason", "dynamic", "static_only")

    def __init__(self, code):
        self.code, self.entries, self.eager, self.limit_hit, self.break_reason = code, [], False, False, None
        self.dynamic = {}          # source -> dims made dynamic (marked, or after a size change)
        self.static_only = False   # a size-generic graph was impossible: no more dynamic tries


_CACHE: dict = {}        # id(code) -> _CodeCache (the cache holds the code object alive)
_state = {"total": 0, "disabled": 0}
listeners: list = []     # callables(event, payload): explain() listens to captures and breaks


def reset() -> None:
    """Forget every cache entry and recompile counter."""
    _CACHE.clear()
    _state["total"] = 0


def _notify(event, payload):
    for fn in listeners:
        fn(event, payload)


def _where(code) -> str:
    return f"{code.co_filename}:{code.co_firstlineno} in {code.co_name}"


class CompiledFunction:
    """``fn`` compiled on first call per guard set; behaves like ``fn`` (also as a method)."""

    def __init__(self, fn, backend, *, fullgraph=False, recompile_limit=None, own_code=False,
                 dynamic=None):
        if own_code:  # a code object of its own, so its cache is not shared with other wrappers
            fn = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__,
                                    fn.__defaults__, fn.__closure__)
        functools.update_wrapper(self, fn)
        self._fn, self._code = fn, fn.__code__
        self._ember_compiled_fn = fn
        self._backend = backend
        self._fullgraph = fullgraph
        self._recompile_limit = recompile_limit
        self._dynamic = dynamic
        code = self._code
        self._fast_names = code.co_varnames[:code.co_argcount] \
            if not (code.co_flags & 0x0C) and not code.co_kwonlyargcount else None
        # f(a, b, *args, **kwargs) without defaults (the module wrapper): bound without inspect
        self._star_names = None
        if code.co_flags & 0x0C == 0x0C and not code.co_kwonlyargcount and not fn.__defaults__:
            n = code.co_argcount
            self._star_names = (code.co_varnames[:n], code.co_varnames[n], code.co_varnames[n + 1])
        self._sig = None

    def __get__(self, obj, objtype=None):
        return self if obj is None else types.MethodType(self, obj)

    def _bind(self, args, kwargs) -> dict:
        names = self._fast_names
        if names is not None and not kwargs and len(args) == len(names):
            return dict(zip(names, args))
        star = self._star_names
        if star is not None and len(args) >= len(star[0]) and not any(k in star[0] for k in kwargs):
            pos, var, kw = star
            n = len(pos)
            L = dict(zip(pos, args))
            L[var] = args[n:]
            L[kw] = kwargs
            return L
        if self._sig is None:
            self._sig = inspect.signature(self._fn)
        bound = self._sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)

    def __call__(self, *args, **kwargs):
        fn = self._fn
        if _state["disabled"] or compiling[0]:
            return fn(*args, **kwargs)
        cc = _CACHE.get(id(self._code))
        if cc is None:
            cc = _CACHE[id(self._code)] = _CodeCache(self._code)
        if cc.eager:
            return fn(*args, **kwargs)
        L = self._bind(args, kwargs)
        G, C = fn.__globals__, fn.__closure__ or ()
        backend = self._backend
        for entry in cc.entries:
            if entry.backend is backend and entry.guard(L, G, C):
                return entry.run(L, G, C)
        return self._miss(cc, L, G, C, args, kwargs)

    def _miss(self, cc, L, G, C, args, kwargs):
        fn = self._fn
        reason = None
        if cc.entries:
            bad = cc.entries[0].guards.failures(L, G, C)
            reason = bad[0] if bad else "backend changed"
            _log_recompiles.info("Recompiling function %s in %s\n    triggered by the following "
                                 "guard failure(s):\n    - %s", fn.__name__, _where(self._code), reason)
            if reason.startswith("L['___stack") and " is ___c" in reason:
                # a resume function given a fresh object each call (a dict view, an iterator):
                # recompiling would not converge, so it runs eagerly from now on
                cc.eager, cc.break_reason = True, f"resume argument changes identity: {reason}"
                return fn(*args, **kwargs)
        limit = self._recompile_limit or config.recompile_limit
        if cc.limit_hit or len(cc.entries) >= limit or \
                _state["total"] >= config.accumulated_recompile_limit:
            if not cc.limit_hit:
                cc.limit_hit = True
                which = "recompile_limit" if len(cc.entries) >= limit else "accumulated_recompile_limit"
                warnings.warn(f"ember._dynamo hit config.{which} ({limit if which == 'recompile_limit' else config.accumulated_recompile_limit}) "
                              f"for {fn.__name__} ({_where(self._code)}); last guard failure: {reason}. "
                              "Calls that miss the cache now run eagerly.", stacklevel=3)
            return fn(*args, **kwargs)
        try:
            entry = self._convert(cc, L, reason)
        except Unsupported as e:
            where = getattr(e, "msg_where", _where(self._code))
            _notify("break", (fn, e.msg, where))
            if self._fullgraph:
                raise
            entry = self._resume_entry(cc, L, e)
            if entry is None:
                _log_breaks.info("Graph break: %s (at %s); %s runs eagerly", e.msg, where, fn.__name__)
                cc.eager, cc.break_reason = True, e.msg
                return fn(*args, **kwargs)
            _log_breaks.info("Graph break: %s (at %s); %s resumes after it", e.msg, where, fn.__name__)
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ == "BackendCompilerFailed":
                raise
            # the user's own error (or a capture gap): eager shows the real behaviour
            out = fn(*args, **kwargs)
            msg = f"capture failed with {type(e).__name__}: {e}"
            _notify("break", (fn, msg, _where(self._code)))
            if self._fullgraph:
                raise Unsupported(msg) from e
            _log_breaks.info("Graph break: %s; %s runs eagerly", msg, fn.__name__)
            cc.eager, cc.break_reason = True, msg
            return out
        self._install(cc, entry)
        return entry.run(L, G, C)

    def _dynamic_dims(self, cc, L, reason) -> dict:
        """{source: dims} to leave unguarded: marked, ``dynamic=True``, or changed in size alone
        since the latest entry (automatic dynamic)."""
        fn = self._fn
        if self._dynamic is False or cc.static_only:
            return {}
        dyn = {k: set(v) for k, v in cc.dynamic.items()}
        for src, dims in _dyn.requested(L, self._dynamic is True).items():
            dyn.setdefault(src, set()).update(dims)
        if cc.entries and reason is not None:
            entry0 = cc.entries[0]
            changed = _dyn.size_only_change(getattr(entry0, "input_meta", {}),
                                            entry0.guards.failures(L, fn.__globals__,
                                                                   fn.__closure__ or ()), L)
            for src, dims in (changed or {}).items():
                dyn.setdefault(src, set()).update(dims)
                _log_dynamic.info("automatic dynamic: %s dims %s of %s", fn.__name__,
                                  sorted(dims), src)
        return {s: d for s, d in dyn.items() if _dyn.is_argument(L, s)}

    def _convert(self, cc, L, reason):
        """Capture this frame; dims marked dynamic, or whose size alone caused the recompile,
        are left unguarded when the graph is size-generic (``dynamic_shapes``)."""
        fn, backend = self._fn, self._backend
        self._pending_dynamic = dyn = self._dynamic_dims(cc, L, reason)
        while dyn:
            try:
                entry = convert_frame(fn, L, backend, fullgraph=self._fullgraph, dynamic=dyn,
                                      check=_dyn.generic_check(fn, L, dyn, trace_to_graph))
                cc.dynamic = dyn
                return entry
            except _dyn.Respecialize as e:  # capture again with those dims static
                _log_dynamic.info("%s: %s", fn.__name__, e)
                self._pending_dynamic = dyn = _dyn.without(dyn, e.dims)
            except _dyn.NotSizeGeneric as e:
                _log_dynamic.info("%s; sizes stay static", e)
                cc.static_only = True
                self._pending_dynamic = {}
                break
        return convert_frame(fn, L, backend, fullgraph=self._fullgraph)

    def _resume_entry(self, cc, L, err):
        """A cache entry that compiles the frame up to the break and resumes after it, or None."""
        if not config.resume_on_graph_break:
            return None
        dyn = getattr(self, "_pending_dynamic", None)
        try:
            while dyn:
                try:
                    entry = convert_with_break(self._fn, L, self._backend, err, wrap=_wrap_resume,
                                               dynamic=dyn)
                    cc.dynamic = dyn
                    return entry
                except _dyn.Respecialize as e:
                    dyn = _dyn.without(dyn, e.dims)
                except _dyn.NotSizeGeneric as e:
                    _log_dynamic.info("%s; sizes stay static", e)
                    cc.static_only = True
                    break
            return convert_with_break(self._fn, L, self._backend, err, wrap=_wrap_resume)
        except Unsupported as e2:
            _log_breaks.info("cannot resume after the break in %s: %s", self._fn.__name__, e2.msg)
            return None

    def _install(self, cc, entry):
        fn = self._fn
        cc.entries.insert(0, entry)
        _state["total"] += 1
        _notify("graph", (fn, entry))
        _log_guards.info("GUARDS for %s:\n%s", fn.__name__, "\n".join(entry.guards.lines))
        _log_code.info("graph for %s:\n%s", fn.__name__, entry.gm.code)


def _wrap_resume(fn, backend):
    return CompiledFunction(fn, backend)


def _call_module(self, *args, **kwargs):
    return self(*args, **kwargs)


class OptimizedModule(Module):
    """An ``nn.Module`` whose calls go through a compiled wrapper; ``_orig_mod`` is the original
    (so ``state_dict`` keys carry the ``_orig_mod.`` prefix, as torch's do)."""

    _ember_opt_module = True

    def __init__(self, mod: Module, compiled):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled_call"] = compiled
        self.__dict__["_ember_orig"] = mod   # plain attribute: no __getattr__ on the hot path

    def forward(self, *args, **kwargs):
        return self._compiled_call(self._ember_orig, *args, **kwargs)

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._modules["_orig_mod"], name)

    def __repr__(self):
        return f"OptimizedModule(\n  (_orig_mod): {self._orig_mod!r}\n)".replace(
            "\n  (_orig_mod): ", "\n  (_orig_mod): ")


def _check_mode(mode, options):
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified "
                           "at the same time.")
    if mode is not None and mode not in _VALID_MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_VALID_MODES)}")


def _optimizer_step(self, closure=None):
    """``ember.compile(opt.step)`` compiles this frame: its ``self.step`` call is captured."""
    return self.step(closure)


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable: bool = False, recompile_limit=None,
            isolate_recompiles: bool = False, shapes_spec=None):
    """torch.compile: a function or an ``nn.Module`` (-> ``OptimizedModule``); decorator form too."""
    _check_mode(mode, options)
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, name=name, disable=disable,
                                 recompile_limit=recompile_limit)
    backend_fn = lookup_backend("inductor" if backend is None else backend)
    if disable:
        return model
    if isinstance(model, Module):
        compiled = CompiledFunction(_call_module, backend_fn, fullgraph=fullgraph,
                                    recompile_limit=recompile_limit, own_code=True, dynamic=dynamic)
        return OptimizedModule(model, compiled)
    if not callable(model):
        raise RuntimeError("compile() expects a callable or an nn.Module")
    if isinstance(model, types.MethodType):
        func, own = model.__func__, False
        if getattr(func, "hooked", False) and isinstance(model.__self__, Optimizer):
            # the step is captured at its call (optim_rules); a code object (cache) per compile
            func, own = _optimizer_step, True
        inner = CompiledFunction(func, backend_fn, fullgraph=fullgraph,
                                 recompile_limit=recompile_limit, dynamic=dynamic, own_code=own)
        return types.MethodType(inner, model.__self__)
    if not isinstance(model, types.FunctionType):
        model_call = model.__call__
        return compile(model_call, fullgraph=fullgraph, backend=backend,
                       recompile_limit=recompile_limit)
    return CompiledFunction(model, backend_fn, fullgraph=fullgraph, recompile_limit=recompile_limit,
                            dynamic=dynamic)


def compile_module_forward(module, *args, **kwargs):
    """``Module.compile()``: the module's own ``forward`` compiled, bound to it."""
    fwd = type(module).forward
    backend = kwargs.pop("backend", "inductor")
    _check_mode(kwargs.pop("mode", None), kwargs.pop("options", None))
    compiled = CompiledFunction(fwd, lookup_backend(backend), fullgraph=kwargs.pop("fullgraph", False),
                                recompile_limit=kwargs.pop("recompile_limit", None), own_code=True)
    return types.MethodType(compiled, module)


def optimize(backend="inductor", *, nopython: bool = False, guard_export_fn=None,
             guard_fail_fn=None, disable: bool = False, dynamic=None):
    """The older spelling: ``optimize(backend)(fn)``."""
    lookup_backend(backend)
    return lambda fn: compile(fn, backend=backend, fullgraph=nopython, disable=disable)


def disable(fn=None, recursive: bool = True, *, reason=None):
    """Never compile ``fn``: calls run eagerly, and compiled callers break at them."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    orig = getattr(fn, "_fn", fn)

    @functools.wraps(orig)
    def _disabled(*args, **kwargs):
        _state["disabled"] += 1
        try:
            return orig(*args, **kwargs)
        finally:
            _state["disabled"] -= 1
    _disabled._ember_disabled = True
    return _disabled
