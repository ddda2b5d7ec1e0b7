"""Timing shared by the benchmarks: best-of-N mean time per call, after a warm-up."""
from __future__ import annotations

import time


def time_step(step, steps: int, repeats: int, warmup: int, clock=time.perf_counter) -> float:
    """Best-of-``repeats`` mean milliseconds per call of ``step`` (``warmup`` calls first), timed
    with ``clock`` (``time.thread_time`` counts this thread's CPU time only: fairer on a shared machine)."""
    for _ in range(warmup):
        step()
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        for _ in range(steps):
            step()
        best = min(best, (clock() - t0) / steps)
    return best * 1e3


def micro_parser(description: str):
    """The options of the per-call microbenchmarks: ``--number`` calls per timing, best of
    ``--repeat``, median of ``--runs``, ``--thread-time``."""
    import argparse  # noqa: PLC0415
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--thread-time", action="store_true",
                        help="time with this thread's CPU clock (less disturbed by other processes)")
    return parser


def median_us(fn, args) -> float:
    """Microseconds per call of ``fn``: the median over ``args.runs`` of the best of ``args.repeat``
    timings of ``args.number`` calls (options of :func:`micro_parser`)."""
    import statistics  # noqa: PLC0415
    clock = time.thread_time if args.thread_time else time.perf_counter
    return statistics.median(time_step(fn, args.number, args.repeat, 0, clock)
                             for _ in range(args.runs)) * 1e3


def print_comparison(cases, args) -> None:
    """Time ``cases(lib)`` (a list of (name, call) for one library) for torch and ember alike and
    print microseconds per call and ember / torch (options of :func:`micro_parser`)."""
    import torch  # noqa: PLC0415

    import ember  # noqa: PLC0415
    torch.set_num_threads(1)
    table = {lib: cases(lib) for lib in (torch, ember)}
    print(f"{'case':28s} {'ember us':>9s} {'torch us':>9s} {'ratio':>6s}")
    for k, (name, _) in enumerate(table[ember]):
        us = {lib: median_us(table[lib][k][1], args) for lib in (torch, ember)}
        print(f"{name:28s} {us[ember]:9.3f} {us[torch]:9.3f} {us[ember] / us[torch]:6.2f}")
