"""``ember.fx.wrap`` (layer L6): mark a module-level function as a leaf for symbolic tracing.

It only records the request; ``_symbolic_trace`` patches the function while it traces. Kept apart so
generated code (``_codegen``) can call it without importing the tracer.

Example (at a module's top level, before tracing)::

    ember.fx.wrap("len")
"""
from __future__ import annotations

import inspect

__all__ = ["wrap"]


# (id(globals), name) -> globals dict: free functions registered with wrap()
_wrapped_fns_to_patch: dict = {}


def wrap(fn_or_name):
    """Record calls to a module-level function as one ``call_function`` node (not traced inside).

    Call at module scope with the function or its name: ``ember.fx.wrap('len')``.
    """
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or "
                           "string name")
    name = fn_or_name if isinstance(fn_or_name, str) else fn_or_name.__name__
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>" and "<module>" not in frame.f_code.co_name:
        raise NotImplementedError("wrap must be called at the top level of a module")
    f_globals = frame.f_globals
    _wrapped_fns_to_patch[(id(f_globals), name)] = f_globals
    return fn_or_name


wrap.__module__ = "ember.fx._symbolic_trace"  # torch's path for fx.wrap
