"""Marks that change how capture treats a callable (shared by the executor and the API).

- ``graph_break()``: calling it ends capture (in this part: the frame runs eagerly);
- ``allowed``: functions put in the graph as one node (``allow_in_graph``);
- a ``_ember_disabled`` attribute: functions wrapped by ``disable`` (a break when called);
- a ``_ember_compiled_fn`` attribute: an ``ember.compile`` wrapper, inlined as its function.

Example:
    >>> from ember._dynamo import trace_rules
    >>> trace_rules.is_allowed(len)
    False
"""
from __future__ import annotations

allowed: dict = {}


def graph_break():
    """Force a graph break here (in this part the whole frame then runs eagerly)."""


def allow_in_graph(fn):
    """Put calls to ``fn`` in the graph as one ``call_function`` node instead of inlining it."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(f) for f in fn]
    allowed[id(fn)] = fn
    return fn


def is_allowed(fn) -> bool:
    return allowed.get(id(fn)) is fn


def _is_ember_fn(fn) -> bool:
    """A function or class defined in ember (recorded as one graph node, never inlined)."""
    mod = getattr(fn, "__module__", None) or ""
    return mod == "ember" or mod.startswith("ember.")
