"""BLAS settings that only act when made before NumPy loads (layer L0): for launchers' child processes.

On a CPU whose ``/proc/cpuinfo`` lists ``avx512f``, NumPy's OpenBLAS may still pick its AVX2 (Haswell)
kernels (some AMD EPYC parts); ``OPENBLAS_CORETYPE=SkylakeX`` selects the AVX-512 ones, about 1.8x the
sgemm throughput there. Elsewhere those kernels die with SIGILL, hence the check. A value the user set
is kept.

Example:
    >>> env = blas_env({"OPENBLAS_CORETYPE": "Haswell"})
    >>> env["OPENBLAS_CORETYPE"]
    'Haswell'
"""
from __future__ import annotations

import os

__all__ = ["has_avx512f", "blas_env"]


def has_avx512f(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Whether the CPU's flags (``/proc/cpuinfo``) list ``avx512f``; False where that file is missing."""
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith("flags"):
                    return " avx512f" in line
    except OSError:
        pass
    return False


def blas_env(env=None) -> dict:
    """A copy of ``env`` (default ``os.environ``) with ``OPENBLAS_CORETYPE=SkylakeX`` added when the
    CPU has AVX-512 and the variable is unset."""
    env = dict(os.environ if env is None else env)
    if "OPENBLAS_CORETYPE" not in env and has_avx512f():
        env["OPENBLAS_CORETYPE"] = "SkylakeX"
    return env
