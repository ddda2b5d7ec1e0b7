"""Graph compilers for AOT autograd and the ``aot_eager`` backend (layer L7).

``aot_eager(gm, example_inputs)`` follows the backend contract ``backend(gm, example_inputs) ->
callable``: AOT autograd traces forward and backward, and both graphs run node by node through
``ember.fx.Interpreter``.

Example:
    >>> import ember
    >>> gm = ember.fx.symbolic_trace(ember.nn.Linear(3, 2))
    >>> run = aot_eager(gm, [ember.randn(4, 3)])
    >>> run(ember.randn(4, 3)).shape
    torch.Size([4, 2])
"""
from __future__ import annotations

from ..fx.interpreter import Interpreter
from .aot_autograd import aot_module_simplified

__all__ = ["aot_eager", "interpreter_compiler"]


def interpreter_compiler(gm, example_inputs):
    """Run ``gm`` node by node (boxed: the argument list is freed as the graph runs)."""
    def run(args):
        return Interpreter(gm).boxed_run(args)
    run._boxed_call = True
    return run


def aot_eager(gm, example_inputs, **kwargs):
    """The ``aot_eager`` backend: AOT autograd with both graphs interpreted."""
    return aot_module_simplified(gm, example_inputs, fw_compiler=interpreter_compiler,
                                 bw_compiler=interpreter_compiler, **kwargs)
