"""``ember._dynamo``: capture Python bytecode into ember.fx graphs, guarded and cached.

torch._dynamo's public names: ``optimize``, ``explain``, ``reset``, ``disable``,
``allow_in_graph``, ``graph_break``, ``list_backends``, ``register_backend``, ``config``, ``exc``.
Capture runs a symbolic executor over CPython 3.11 bytecode (no frame hook: ``ember.compile``
wraps the function or module); design notes in docs/design.md.

Example:
    >>> import ember
    >>> from ember import _dynamo
    >>> cnt = _dynamo.testing.CompileCounter()
    >>> f = _dynamo.optimize(cnt)(lambda x: (x * 2).relu())
    >>> f(ember.tensor([-1.0, 1.0]))
    tensor([0., 2.])
    >>> cnt.frame_count
    1
"""
from . import config, exc, testing  # noqa: F401
from .backends.registry import list_backends, lookup_backend, register_backend
from .dynamic_shapes import mark_dynamic, mark_static, maybe_mark_dynamic
from .eval_frame import OptimizedModule, disable, optimize, reset
from .explain import ExplainOutput, explain
from .trace_rules import allow_in_graph, graph_break


def is_compiling() -> bool:
    """True while ember is capturing a frame (constant True inside captured code)."""
    from .convert_frame import compiling
    return compiling[0] > 0


__all__ = ["optimize", "explain", "reset", "disable", "allow_in_graph", "graph_break",
           "list_backends", "register_backend", "lookup_backend", "config", "exc",
           "OptimizedModule", "ExplainOutput", "is_compiling", "mark_dynamic", "maybe_mark_dynamic",
           "mark_static"]
