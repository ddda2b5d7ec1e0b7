"""Per-op overhead on tiny tensors: ember vs torch in one process, both at one thread.

Times (best of several ``timeit`` repeats, microseconds per call) for (8,) add, mul, relu, sum and a
64x64 matmul, each with inputs that do and do not require grad (forward only), and a 20-op chain
forward + backward on small tensors. Prints ember us, torch us and the ratio.

Then a per-stage breakdown of ember's own time per op (microseconds), each stage timed on its own or
as the difference of two nested calls, next to torch's totals:

  method    the public call (``a + b``) minus ``dispatch(op, ...)`` (argument handling, override check)
  dispatch  ``dispatch(op, ...)`` minus plan, kernel and wrap (mode check, unpacking, bookkeeping)
  plan      the dtype promotion plan of a pointwise op (a dict lookup when warm)
  kernel    the NumPy kernel on the raw arrays
  wrap      making the output Tensor around the kernel's array
  record    the same call with inputs that require grad minus without (Node, edges, saved values)
  node      the op's backward Node as backward runs it (``raw``: the derivative on arrays)
  engine    ``out.backward(g)`` minus the Node's apply (graph walk, buffers, AccumulateGrad)

The primitive call behind each public call is captured with a ``TorchDispatchMode``. Each cell is
the median over ``--runs`` runs of the best-of-``--repeat`` time.

Usage: ``python bench/op_overhead.py [--number N] [--repeat R] [--runs K] [--totals-only] [--profile] [--cpu-time]``
(``--profile`` adds a cProfile summary of ember's own time for the add and the chain).
"""
from __future__ import annotations

import argparse
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import statistics  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402


def cases(lib):
    """name -> zero-argument callable, built with library ``lib`` (ember or torch)."""
    rng = np.random.default_rng(0)
    out = {}
    for grad in (False, True):
        tag = " (grad)" if grad else ""
        a = lib.tensor(rng.standard_normal(8).astype(np.float32), requires_grad=grad)
        b = lib.tensor(rng.standard_normal(8).astype(np.float32), requires_grad=grad)
        m1 = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32), requires_grad=grad)
        m2 = lib.tensor(rng.standard_normal((64, 64)).astype(np.float32), requires_grad=grad)
        out["add (8,)" + tag] = lambda a=a, b=b: a + b
        out["mul (8,)" + tag] = lambda a=a, b=b: a * b
        out["relu (8,)" + tag] = lambda a=a: lib.relu(a)
        out["sum (8,)" + tag] = lambda a=a: a.sum()
        out["matmul 64x64" + tag] = lambda m1=m1, m2=m2: m1 @ m2
    out["chain 20 ops fwd+bwd"] = chain(lib, rng)
    out["chain 20 ops fwd (grad)"] = chain(lib, np.random.default_rng(0), backward=False)
    # backward alone: 20 nodes + 3 AccumulateGrad, the graph kept (retain_graph) and run again
    loss = chain(lib, np.random.default_rng(0), backward=False)()
    out["chain 20 ops bwd (23 nodes)"] = lambda: loss.backward(retain_graph=True)
    return out


def chain(lib, rng, backward=True):
    """20 small ops (pointwise, broadcast, reduction, matmul) and a backward through them."""
    x = lib.tensor(rng.standard_normal((4, 8)).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((8, 8)).astype(np.float32), requires_grad=True)
    bias = lib.tensor(rng.standard_normal(8).astype(np.float32), requires_grad=True)

    def run():
        h = x @ w                    # 1
        h = h + bias                 # 2
        h = h.relu()                 # 3
        h = h * 0.5                  # 4
        h = h - x                    # 5
        h = h.tanh()                 # 6
        h = h * h                    # 7
        h = h + 1.0                  # 8
        h = h.sqrt()                 # 9
        h = h.exp()                  # 10
        h = h / 3.0                  # 11
        h = h.sigmoid()              # 12
        h = h @ w                    # 13
        h = h.neg()                  # 14
        h = h.abs()                  # 15
        h = h + bias                 # 16
        h = h.log()                  # 17
        h = h.mean(1)                # 18
        h = h * 2.0                  # 19
        loss = h.sum()               # 20
        if not backward:
            return loss
        loss.backward()
        x.grad = w.grad = bias.grad = None
    return run


TIMER = [timeit.default_timer]  # ``--cpu-time``: process CPU time (a machine shared with other jobs)


def best_us(fn, number: int, repeat: int) -> float:
    fn()  # warm caches (dtype plans, node classes)
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=TIMER[0])) / number * 1e6


def profile(fn, n: int, title: str, top: int = 14) -> None:
    import cProfile
    import pstats
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    print(f"\n--- cProfile: ember {title}, {n} calls (tottime = own time per function) ---")
    pstats.Stats(prof).strip_dirs().sort_stats("tottime").print_stats(top)


STAGES = ("method", "dispatch", "plan", "kernel", "wrap", "record", "node", "engine")


def stage_cases(lib):
    """name -> (public call on plain inputs, the same on inputs requiring grad)."""
    rng = np.random.default_rng(1)
    out = {}
    for name, shape, fn in (("add (8,)", (8,), lambda a, b: a + b),
                            ("mul (8,)", (8,), lambda a, b: a * b),
                            ("relu (8,)", (8,), lambda a, b: lib.relu(a)),
                            ("sum (8,)", (8,), lambda a, b: a.sum()),
                            ("matmul 64x64", (64, 64), lambda a, b: a @ b)):
        pair = []
        for grad in (False, True):
            a = lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=grad)
            b = lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=grad)
            pair.append((fn, a, b))
        out[name] = pair
    return out


def _captured_call(ember, fn, a, b):
    """The one primitive call (op, args, params) behind ``fn(a, b)``."""
    from ember.utils._python_dispatch import TorchDispatchMode

    calls = []

    class Capture(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append((func, args, kwargs or {}))
            return func(*args, **(kwargs or {}))

    with Capture():
        fn(a, b)
    assert len(calls) == 1, f"expected one primitive call, got {[c[0] for c in calls]}"
    return calls[0]


def _direct(dispatch, op, args, params):
    """A zero-argument call of ``dispatch(op, *args, **params)`` costing no more than a method's own
    call of it (no star-unpacking for the common arities)."""
    if params:
        return lambda: dispatch(op, *args, **params)
    if len(args) == 1:
        x, = args
        return lambda: dispatch(op, x)
    x, y = args
    return lambda: dispatch(op, x, y)


def ember_stages(ember, pair, number: int, repeat: int) -> dict:
    """Microseconds per stage for one op (see the module docstring)."""
    from ember import _dispatch as disp
    (fn, a, b), (gfn, ga, gb) = pair
    op, args, params = _captured_call(ember, fn, a, b)
    _, gargs, _ = _captured_call(ember, gfn, ga, gb)
    arrays = [x._data if isinstance(x, ember.Tensor) else x for x in args]
    res = op.kernel(*arrays, **params)
    t = {}
    public = best_us(lambda: fn(a, b), number, repeat)
    call = best_us(_direct(disp.dispatch, op, args, params), number, repeat)
    t["kernel"] = best_us(lambda: op.kernel(*arrays, **params), number, repeat)
    t["plan"] = (best_us(lambda: disp._plan(op, args), number, repeat)
                 if op.promotion != "none" else 0.0)
    dt = disp.dispatch(op, *args, **params).dtype
    t["wrap"] = best_us(lambda: disp.wrap(res, dt), number, repeat)
    t["method"] = public - call
    t["dispatch"] = call - t["kernel"] - t["plan"] - t["wrap"]
    t["record"] = best_us(_direct(disp.dispatch, op, gargs, params), number, repeat) - call
    out = gfn(ga, gb)
    g = ember.ones_like(out)
    node = out.grad_fn
    # what backward runs: the node's array form (``raw``) when no graph of the backward is needed
    t["node"] = best_us(lambda: node.raw([g._data]), number, repeat)
    bwd = best_us(lambda: out.backward(g, retain_graph=True), number, repeat)
    t["engine"] = bwd - t["node"]
    t["ember fwd"] = public
    t["ember fwd+bwd"] = best_us(lambda: gfn(ga, gb).backward(g), number, repeat)
    return t


def torch_totals(torch, pair, number: int, repeat: int) -> dict:
    (fn, a, b), (gfn, ga, gb) = pair
    g = torch.ones_like(gfn(ga, gb))
    return {"torch fwd": best_us(lambda: fn(a, b), number, repeat),
            "torch fwd+bwd": best_us(lambda: gfn(ga, gb).backward(g), number, repeat)}


def print_stages(ember, torch, number: int, repeat: int, runs: int) -> None:
    e_cases, t_cases = stage_cases(ember), stage_cases(torch)
    cols = STAGES + ("ember fwd", "torch fwd", "ember fwd+bwd", "torch fwd+bwd")
    print(f"\nper-stage us (median of {runs} runs, best of {repeat} x {number} calls each)")
    print(f"{'op':<14}" + "".join(f"{c:>9}" if len(c) < 9 else f" {c:>8}"[-9:] for c in STAGES)
          + f"{'e fwd':>8}{'t fwd':>8}{'e f+b':>8}{'t f+b':>8}")
    for name in e_cases:
        samples = []
        for _ in range(runs):
            s = ember_stages(ember, e_cases[name], number, repeat)
            s.update(torch_totals(torch, t_cases[name], number, repeat))
            samples.append(s)
        med = {c: statistics.median(s[c] for s in samples) for c in cols}
        print(f"{name:<14}" + "".join(f"{med[c]:>9.2f}" for c in STAGES)
              + "".join(f"{med[c]:>8.2f}" for c in cols[len(STAGES):]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3, help="runs of each table row (median)")
    parser.add_argument("--stages-only", action="store_true", help="print only the stage table")
    parser.add_argument("--totals-only", action="store_true", help="print only the totals table")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the process's CPU clock (less disturbed by other processes)")
    args = parser.parse_args()
    if args.cpu_time:
        import time
        TIMER[0] = time.process_time

    import torch
    from threadpoolctl import threadpool_limits

    import ember
    torch.set_num_threads(1)
    with threadpool_limits(1):
        if not args.stages_only:
            print_totals(ember, torch, args.number, args.repeat, args.runs)
        if not args.totals_only:
            print_stages(ember, torch, args.number, args.repeat, args.runs)
        if args.profile:
            e_cases = cases(ember)
            profile(e_cases["add (8,)"], 20000, "add (8,)")
            profile(e_cases["add (8,) (grad)"], 20000, "add (8,) (grad)")
            profile(e_cases["chain 20 ops fwd+bwd"], 500, "chain 20 ops fwd+bwd")


def print_totals(ember, torch, number: int, repeat: int, runs: int = 1) -> None:
    """Each row: ember and torch timed alternately ``runs`` times; the median ratio's run is printed."""
    e_cases, t_cases = cases(ember), cases(torch)
    print(f"{'op':<28}{'ember us':>10}{'torch us':>10}{'ratio':>8}"
          + (f"   (median of {runs} runs)" if runs > 1 else ""))
    for name in e_cases:
        n = max(50, number // 20) if name.startswith("chain") else number
        if "bwd (" in name:
            e_cases[name](), t_cases[name]()  # the first backward makes .grad
        samples = []
        for _ in range(runs):
            e = best_us(e_cases[name], n, repeat)
            t = best_us(t_cases[name], n, repeat)
            samples.append((e / t, e, t))
        ratio, e, t = sorted(samples)[len(samples) // 2]
        print(f"{name:<28}{e:>10.2f}{t:>10.2f}{ratio:>8.2f}")

if __name__ == "__main__":
    main()
