"""Test helpers (torch._dynamo.testing's names): backends that count and record graphs.

Example:
    >>> import ember
    >>> from ember._dynamo.testing import CompileCounter
    >>> cnt = CompileCounter()
    >>> f = ember.compile(lambda x: x.relu() + 1, backend=cnt)
    >>> _ = f(ember.ones(3)); _ = f(ember.ones(3))
    >>> cnt.frame_count, cnt.op_count
    (1, 2)
"""
from __future__ import annotations

from .backends.registry import lookup_backend


def _ops(gm) -> int:
    return sum(1 for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))


class CompileCounter:
    """Backend counting compiled graphs (``frame_count``) and their ops (``op_count``)."""

    def __init__(self):
        self.clear()

    def clear(self):
        self.frame_count = 0
        self.op_count = 0

    def __call__(self, gm, example_inputs):
        self.frame_count += 1
        self.op_count += _ops(gm)
        return gm.forward


class CompileCounterWithBackend(CompileCounter):
    """Counts like CompileCounter, then compiles with ``backend``."""

    def __init__(self, backend):
        super().__init__()
        self.backend = lookup_backend(backend)
        self.graphs = []

    def __call__(self, gm, example_inputs):
        super().__call__(gm, example_inputs)
        self.graphs.append(gm)
        return self.backend(gm, example_inputs)


class EagerAndRecordGraphs:
    """Backend keeping every GraphModule it is given in ``graphs``."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward
