"""``compile_fx``: the ``"inductor"`` backend (torch's ``torch._inductor.compile_fx``).

``compile_fx(gm, example_inputs)`` runs AOT autograd (forward and backward graphs) with
``compile_fx_inner`` as both graph compilers. ``compile_fx_inner(gm, example_inputs)`` lowers one
aten graph (``lowering``), fuses it (``scheduler``), generates the kernels and the wrapper
(``codegen``), loads them through the disk cache (``codecache``) and returns the boxed wrapper.

Example:
    >>> import ember
    >>> f = ember.compile(lambda x: (x * 2).softmax(-1), backend="inductor")
    >>> x = ember.randn(4, 8)
    >>> bool(ember.allclose(f(x), (x * 2).softmax(-1)))
    True
"""
from __future__ import annotations

from .._functorch.aot_autograd import aot_module_simplified
from . import codecache, compile_worker
from .codegen.wrapper import WrapperCodegen
from .graph import GraphLowering
from .scheduler import schedule

__all__ = ["compile_fx", "compile_fx_inner"]


def compile_fx_inner(gm, example_inputs):
    """One aten graph -> a boxed callable ``call(args)`` running its generated code."""
    codecache.quick_load_eager_kernels()
    L = GraphLowering(gm).run()
    items = schedule(L.buffers)
    gen = WrapperCodegen(L, items)
    fn, src = gen.load()
    compile_worker.submit([v for v in gen.globals.values() if isinstance(v, codecache.Kernel)])
    fn._boxed_call = True
    fn.wrapper_source = src
    fn.kernel_sources = gen.kernel_sources
    fn.kernel_count = gen.n_kernels
    fn.ufunc_count = gen.n_ufuncs
    fn.extern_count = gen.n_externs
    return fn


def compile_fx(gm, example_inputs, **kwargs):
    """The ``inductor`` backend: forward and backward graphs through ``compile_fx_inner``."""
    return aot_module_simplified(gm, example_inputs, fw_compiler=compile_fx_inner,
                                 bw_compiler=compile_fx_inner, **kwargs)
