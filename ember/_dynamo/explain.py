"""``explain(fn)(*args)``: run ``fn`` once under capture and report graphs, breaks and guards.

Example:
    >>> import ember
    >>> from ember._dynamo import explain
    >>> out = explain(lambda x: x.cos() * 2)(ember.ones(2))
    >>> out.graph_count, out.graph_break_count, out.op_count
    (1, 0, 2)
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class BreakReason:
    """Why a frame was not captured, and where (``file:line in function``)."""
    reason: str
    user_stack: list = field(default_factory=list)

    def __str__(self):
        return f"{self.reason} ({', '.join(self.user_stack)})"


@dataclass
class ExplainOutput:
    graphs: list = field(default_factory=list)
    graph_count: int = 0
    graph_break_count: int = 0
    break_reasons: list = field(default_factory=list)
    op_count: int = 0
    ops_per_graph: list = field(default_factory=list)
    out_guards: list = field(default_factory=list)
    compile_times: str = ""

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, br in enumerate(self.break_reasons, 1):
            lines.append(f"  Break Reason {i}:\n    Reason: {br.reason}\n    User Stack:")
            lines += [f"      {s}" for s in br.user_stack]
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Ops {i}:")
            lines += [f"    {o}" for o in ops]
        lines.append("Out Guards:")
        lines += [f"  {g}" for g in self.out_guards]
        if self.compile_times:
            lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines)


def explain(f, *extra_args, **extra_kwargs):
    """``explain(fn)(*args, **kwargs)`` -> ExplainOutput (the call runs ``fn`` once)."""
    from . import eval_frame
    from .testing import EagerAndRecordGraphs

    def inner(*args, **kwargs):
        out = ExplainOutput()
        rec = EagerAndRecordGraphs()
        entries = []

        def listen(event, payload):
            if event == "graph":
                if payload[1].op_count:   # as torch: a graph without ops is not a graph
                    entries.append(payload[1])
            else:
                _, msg, where = payload
                out.break_reasons.append(BreakReason(msg, [where]))
        eval_frame.listeners.append(listen)
        saved = dict(eval_frame._CACHE)
        eval_frame._CACHE.clear()
        try:
            eval_frame.compile(f, backend=rec)(*args, **kwargs)
        finally:
            eval_frame.listeners.remove(listen)
            eval_frame._CACHE.clear()
            eval_frame._CACHE.update(saved)
        out.graphs = [e.gm for e in entries]
        out.graph_count = len(entries)
        out.graph_break_count = len(out.break_reasons)
        out.ops_per_graph = [[n.target for n in e.gm.graph.nodes
                              if n.op in ("call_function", "call_method", "call_module")]
                             for e in entries]
        out.op_count = sum(len(o) for o in out.ops_per_graph)
        out.out_guards = [g for e in entries for g in e.guards.lines]
        out.compile_times = ", ".join(f"{e.capture_seconds:.4f}s" for e in entries)
        return out

    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner
