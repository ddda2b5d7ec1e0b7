"""Timing shared by the benchmarks: best-of-N mean time per call, after a warm-up."""
from __future__ import annotations

import time


def time_step(step, steps: int, repeats: int, warmup: int) -> float:
    """Best-of-``repeats`` mean milliseconds per call of ``step`` (``warmup`` calls first)."""
    for _ in range(warmup):
        step()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e3
