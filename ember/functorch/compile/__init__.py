"""``functorch.compile``: AOT autograd (``aot_function``, ``aot_module``...) at torch's import path."""
from ..._functorch.aot_autograd import (aot_function, aot_module, aot_module_simplified,
                                         make_boxed_compiler, make_boxed_func, nop)
from ..._functorch.compilers import aot_eager, interpreter_compiler
from ..._functorch.partitioners import default_partition, min_cut_rematerialization_partition

__all__ = ["aot_function", "aot_module", "aot_module_simplified", "make_boxed_compiler",
           "make_boxed_func", "nop", "aot_eager", "interpreter_compiler", "default_partition",
           "min_cut_rematerialization_partition"]
