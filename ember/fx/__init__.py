"""``ember.fx``: capture a program as a graph, transform it in Python, generate code back.

torch.fx's API: ``symbolic_trace`` / ``Tracer`` build a ``Graph`` of ``Node`` objects (six opcodes)
by running ``forward`` on ``Proxy`` values; ``GraphModule`` turns the graph back into a Module
with generated ``forward`` code; ``Interpreter``/``Transformer`` and ``passes`` work over the IR.

Example:
    >>> import ember
    >>> from ember import nn
    >>> class M(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.lin = nn.Linear(3, 3)
    ...     def forward(self, x):
    ...         return ember.relu(self.lin(x)) + 1
    >>> gm = ember.fx.symbolic_trace(M())
    >>> print(gm.code.strip())
    def forward(self, x):
        lin = self.lin(x);  x = None
        relu = ember.relu(lin);  lin = None
        add = relu + 1;  relu = None
        return add
"""
from .graph import CodeGen, Graph, PythonCode
from .graph_module import GraphModule
from .interpreter import Interpreter, Transformer
from .node import Node, has_side_effect, map_aggregate, map_arg
from .proxy import Proxy, TraceError
from ._symbolic_trace import PH, Tracer, is_fx_tracing, symbolic_trace, wrap
from .subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "PH", "Graph", "GraphModule", "Interpreter",
           "Transformer", "Node", "Proxy", "TraceError", "replace_pattern", "map_arg",
           "map_aggregate", "has_side_effect", "CodeGen", "PythonCode", "is_fx_tracing"]
