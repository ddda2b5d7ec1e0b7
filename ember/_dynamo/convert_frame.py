"""From one call's frame to a cache entry: trace, hand the graph to the backend, generate the
guard and the run function.

The run function is generated Python source per entry::

    def ___run(L, G, C):
        ___out = ___compiled(L['x'], L['self']._modules['fc']._parameters['weight'], ...)
        ___ret = (___out[0], L['cfg'])        # the return value, rebuilt from graph outputs
        ___v0 = ___out[1]                     # side-effect values, computed first
        setattr(L['obj'], 'count', ___v0)     # ... then replayed in program order
        return ___ret

Example:
    >>> import ember
    >>> from ember._dynamo.convert_frame import convert_frame
    >>> from ember._dynamo.backends.registry import lookup_backend
    >>> f = lambda x: x.sin() + 1
    >>> entry = convert_frame(f, {'x': ember.zeros(2)}, lookup_backend("eager"))
    >>> entry.run({'x': ember.zeros(2)}, f.__globals__, ())
    tensor([1., 1.])
"""
from __future__ import annotations

import math
import time

from .. import random as _random
from ..amp import autocast_mode as _autocast
from ..autograd import grad_mode as _grad_mode
from ..fx import GraphModule
from ..nn import Module
from .exc import BackendCompilerFailed, Unsupported
from .output_graph import OutputGraph
from .symbolic_convert import trace_function
from .variables import (CellVT, ConstVT, DictVT, ListVT, NNModuleVT, ObjectVT, SetVT, SymFloatVT, SymIntVT,
                        TensorVT, TupleVT, UserFunctionVT, UserObjectVT)
from . import config
from .dynamic_shapes import input_meta as _dyn_input_meta

_LITERALS = (int, str, bool, bytes, type(None))
from .._compiling import COMPILING as compiling  # > 0 while a capture runs (is_compiling)


class CacheEntry:
    """One compiled variant of a code object: ``guard(L, G, C)`` then ``run(L, G, C)``."""

    def __init__(self, guard, run, guards, gm, backend, run_source, op_count):
        self.guard, self.run, self.guards, self.gm = guard, run, guards, gm
        self.backend, self.run_source, self.op_count = backend, run_source, op_count


class _Rebuild:
    """Turns trackers into Python expressions over the graph outputs and the frame."""

    def __init__(self, og: OutputGraph):
        self.og, self.outputs, self._index = og, [], {}

    def ref(self, obj) -> str:
        return self.og.guards._const(obj)

    def expr(self, vt) -> str:
        if isinstance(vt, (TensorVT, SymFloatVT, SymIntVT)):
            if vt.node not in self._index:
                self._index[vt.node] = len(self.outputs)
                self.outputs.append(vt.node)
            return f"___out[{self._index[vt.node]}]"
        if isinstance(vt, ConstVT):
            v = vt.value
            if type(v) in _LITERALS or (type(v) is float and math.isfinite(v)):
                return repr(v)
            return self.ref(v)
        if isinstance(vt, (ListVT, DictVT)) and vt.real is not None:
            return vt.source if vt.source is not None else self.ref(vt.real)
        if isinstance(vt, ListVT):
            return "[" + ", ".join(self.expr(i) for i in vt.items) + "]"
        if isinstance(vt, TupleVT):
            body = ", ".join(self.expr(i) for i in vt.items)
            if vt.cls is tuple:
                return f"({body}{',' if len(vt.items) == 1 else ''})"
            if hasattr(vt.cls, "_fields"):
                return f"{self.ref(vt.cls)}({body})"
            return f"{self.ref(vt.cls)}(({body}{',' if len(vt.items) == 1 else ''}))"
        if isinstance(vt, DictVT):
            return "{" + ", ".join(f"{self.ref(k)}: {self.expr(v)}" for k, v in vt.items.items()) + "}"
        if isinstance(vt, SetVT):
            return "{" + ", ".join(self.expr(i) for i in vt.items) + "}" if vt.items else "set()"
        if isinstance(vt, NNModuleVT):
            return vt.source if vt.source is not None else self.ref(vt.module)
        if isinstance(vt, UserObjectVT):
            return vt.source if vt.source is not None else self.ref(vt.obj)
        if isinstance(vt, UserFunctionVT):
            return vt.source if vt.source is not None else self.ref(vt.fn)
        if isinstance(vt, ObjectVT):
            return vt.source if vt.source is not None else self.ref(vt.value)
        raise Unsupported(f"cannot return or store {vt} out of a captured region")

    def side_effects(self) -> list:
        """Lines: every value first (graph outputs are ready), then the writes in program order."""
        values, writes = [], []
        for i, (kind, target, name, value) in enumerate(self.og.side_effects):
            if kind == "setattr":
                if not isinstance(value, (TensorVT, SymFloatVT, SymIntVT)) and value is None:
                    continue
                values.append(f"___v{i} = {self.expr(value)}")
                writes.append(f"setattr({self.expr(target)}, {name!r}, ___v{i})")
            elif kind == "container":
                values.append(f"___v{i} = {self.expr(_fresh(target))}")
                if isinstance(target, ListVT):
                    writes.append(f"{self.expr(target)}[:] = ___v{i}")
                else:
                    writes.append(f"___d = {self.expr(target)}; ___d.clear(); ___d.update(___v{i})")
            elif kind == "cell":
                cell: CellVT = target
                values.append(f"___v{i} = {self.expr(cell.contents)}")
                where = cell.source if cell.source is not None else self.ref(cell.real)
                writes.append(f"{where}.cell_contents = ___v{i}")
            elif kind == "call":  # a Python call with effects only (optimizer zero_grad, step hooks)
                writes.append(f"{self.ref(target)}()")
            elif kind == "global":
                f_globals, gsrc = target
                values.append(f"___v{i} = {self.expr(value)}")
                writes.append(f"{gsrc}[{name!r}] = ___v{i}")
        return values + writes


def _fresh(vt):
    """The current contents of a mutated list/dict as a new container tracker."""
    if isinstance(vt, ListVT):
        return ListVT(vt.items)
    return DictVT(vt.items)


def _global_state():
    return (_grad_mode.STATE.enabled, dict(_autocast.STATE.enabled), dict(_autocast.STATE.dtype),
            _autocast.STATE.nesting)


def _restore_state(state):
    _grad_mode.STATE.enabled = state[0]
    _autocast.STATE.enabled.clear()
    _autocast.STATE.enabled.update(state[1])
    _autocast.STATE.dtype.clear()
    _autocast.STATE.dtype.update(state[2])
    _autocast.STATE.nesting = state[3]
    _autocast._sync_mode()


def capture(fn, f_locals: dict, dynamic=None, stop_at=None):
    """Trace ``fn`` with ``f_locals``; returns (output graph, return tracker), or with ``stop_at`` (an
    instruction index) (output graph, translator stopped there). Global state (grad mode, autocast,
    the RNG) is left as it was. ``dynamic``: {source: dims} left unguarded."""
    og = OutputGraph(fn.__globals__, fn.__closure__)
    og.guards.dynamic = dict(dynamic or {})
    og.guards.state()
    state, rng = _global_state(), _random.get_rng_state()
    compiling[0] += 1
    try:
        return trace_function(fn, f_locals, output=og, stop_at=stop_at)
    finally:
        compiling[0] -= 1
        _restore_state(state)
        _random.set_rng_state(rng)


def _prune_getitems(graph) -> None:
    """Drop unused tuple-element reads (their producer stays: it may write in place)."""
    import operator
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and node.target is operator.getitem and not node.users \
                and node.args and getattr(node.args[0], "op", None) is not None \
                and _is_multi_output(node.args[0]):
            graph.erase_node(node)


def _is_multi_output(node) -> bool:
    import operator
    return all(u.op == "call_function" and u.target is operator.getitem for u in node.users)


def trace_to_graph(fn, f_locals: dict, dynamic=None):
    """(output graph, GraphModule, return expression, side-effect lines) for this frame."""
    og, ret = capture(fn, f_locals, dynamic)
    rb = _Rebuild(og)
    ret_expr = rb.expr(ret)
    se_lines = rb.side_effects()
    graph = og.graph
    graph.output(tuple(rb.outputs))
    _prune_getitems(graph)
    return og, GraphModule(Module(), graph), ret_expr, se_lines


def convert_frame(fn, f_locals: dict, backend, *, fullgraph: bool = False, dynamic=None,
                  check=None) -> CacheEntry:
    """Capture ``fn`` for this frame and compile the graph with ``backend``; ``check(og, gm,
    ret_expr, se_lines)`` may veto the capture (raises) before the backend sees it."""
    t0 = time.perf_counter()
    og, gm, ret_expr, se_lines = trace_to_graph(fn, f_locals, dynamic)
    if check is not None:
        check(og, gm, ret_expr, se_lines)
    graph = gm.graph
    op_count = sum(1 for n in graph.nodes if n.op in ("call_function", "call_method", "call_module"))
    examples = [ex for _, ex in og.inputs]
    if op_count:
        try:
            compiled = backend(gm, examples)
        except Exception as e:
            if config.suppress_errors:
                raise Unsupported(f"backend failed and suppress_errors is set: {e!r}") from e
            raise BackendCompilerFailed(backend, e).with_traceback(e.__traceback__) from e
    else:
        compiled = gm.forward  # nothing to compile: torch also skips the backend here
    args = ", ".join(src for src, _ in og.inputs)
    body = [f"___out = ___compiled({args})", f"___ret = {ret_expr}", *se_lines, "return ___ret"]
    run_src = "def ___run(L, G, C):\n" + "".join(f"    {line}\n" for line in body)
    ns = dict(og.guards.consts, ___compiled=compiled)
    exec(compile(run_src, f"<ember compiled {fn.__code__.co_name}>", "exec"), ns)
    entry = CacheEntry(og.guards.compile(), ns["___run"], og.guards, gm, backend, run_src, op_count)
    entry.capture_seconds = time.perf_counter() - t0
    entry.input_meta = _dyn_input_meta(og)
    return entry
