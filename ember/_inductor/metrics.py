"""Counters of what the kernel generator produced (torch's ``torch._inductor.metrics``).

Example:
    >>> reset()
    >>> generated_kernel_count
    0
"""
from __future__ import annotations

generated_kernel_count = 0   # fused Numba/NumPy kernels in compiled graphs
ufunc_call_count = 0         # NumPy ufunc calls for transcendentals
extern_call_count = 0        # BLAS calls and eager fallbacks


def reset() -> None:
    global generated_kernel_count, ufunc_call_count, extern_call_count
    generated_kernel_count = ufunc_call_count = extern_call_count = 0
