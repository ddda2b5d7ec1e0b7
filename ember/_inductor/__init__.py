"""``ember._inductor`` (torch's ``torch._inductor``): generated fused kernels for captured graphs.

``compile_fx(gm, example_inputs)`` lowers an aten graph (from AOT autograd) to a small loop IR,
fuses pointwise chains and row reductions with their prologues and epilogues, and generates
shape-generic Numba kernels (NumPy code when Numba is missing or a kernel fails to compile), kept in
a disk cache (``codecache``). This package's ``__init__`` stays light: ``ember.optim`` (a lower
layer) uses ``config`` and ``codecache`` for its fused optimizer kernels.
"""
from . import config, metrics  # noqa: E402  (torch._inductor.config / .metrics under the alias)
