"""Timing shared by the benchmarks: best-of-N mean time per call, after a warm-up."""
from __future__ import annotations

import time


def time_step(step, steps: int, repeats: int, warmup: int, clock=time.perf_counter) -> float:
    """Best-of-``repeats`` mean milliseconds per call of ``step`` (``warmup`` calls first); ``clock``:
    ``time.process_time`` on a machine shared with other jobs (one thread: CPU time is the step's)."""
    for _ in range(warmup):
        step()
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        for _ in range(steps):
            step()
        best = min(best, (clock() - t0) / steps)
    return best * 1e3
