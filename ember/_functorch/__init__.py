"""AOT autograd (torch's ``torch._functorch``): joint forward+backward graphs traced with ember's
own autograd, partitioned and run as one autograd Function; the ``aot_eager`` backend."""
from .aot_autograd import (aot_function, aot_module, aot_module_simplified, make_boxed_compiler,
                           make_boxed_func, nop)
from .compilers import aot_eager, interpreter_compiler
from .partitioners import default_partition, min_cut_rematerialization_partition

__all__ = ["aot_function", "aot_module", "aot_module_simplified", "make_boxed_compiler",
           "make_boxed_func", "nop", "aot_eager", "interpreter_compiler", "default_partition",
           "min_cut_rematerialization_partition"]
