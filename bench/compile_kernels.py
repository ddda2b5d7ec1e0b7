"""Generated kernels (``ember._inductor``): ember eager / ember compiled / torch eager /
torch.compile, one process, one thread.

Workloads: the seed MLP step (800x10 -> 64 -> 32 -> 1, MSE, Adam), a LeNet-5 step (batch 64,
cross-entropy, Adam), the GPT-style step (n_layer 4, n_head 4, n_embd 128, block 64, batch 8,
Adam), ``gelu_tanh(x*a + b)*c - d`` on 4M float32, a row softmax and a layer norm (4096x1024);
then the cold compile (fresh kernel cache, new process) and warm compile (second process with that
cache: capture and lowering run again, kernels load from disk) of the MLP, LeNet and GPT steps, as
wall and CPU seconds of the first step, medians of ``--compile-reps`` (``--workers N`` sets the
compile workers of the cold runs; ``--only compile`` runs just this table).

"compiled" = ``ember.compile(loss_fn)`` (forward + loss; backward through AOT autograd) with the
optimizer given by ``--optim`` (``fused``: ``Adam(fused=True)``, one generated kernel per dtype);
torch.compile runs the same function when it works on this machine (it needs a C compiler), and is
reported as "n/a" otherwise.

Usage: ``python bench/compile_kernels.py [--steps N] [--only NAME ...] [--no-torch-compile]
[--thread-time]``.
Targets (issue 24): compiled MLP step <= 0.7x torch eager; LeNet and GPT <= 0.9x; the pointwise
chain at least torch.compile's throughput; cold compile <= 3 s, warm <= 0.3 s.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "_functorch"))
import _timing  # noqa: E402
import _models  # noqa: E402

GPT = dict(vocab=64, n_layer=4, n_head=4, n_embd=128, block_size=64)


def _t(lib, a):
    return lib.tensor(a)


def mlp_task(lib):
    rng = np.random.default_rng(0)
    x, y = _t(lib, rng.standard_normal((800, 10), np.float32)), \
        _t(lib, rng.standard_normal((800, 1), np.float32))
    nn = lib.nn
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(),
                          nn.Linear(32, 1))

    def loss(x, y):
        return nn.functional.mse_loss(model(x), y)
    return model, loss, (x, y)


def lenet_task(lib):
    rng = np.random.default_rng(0)
    x = _t(lib, rng.standard_normal((64, 1, 28, 28), np.float32))
    y = _t(lib, rng.integers(0, 10, (64,)))
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    def loss(x, y):
        return nn.functional.cross_entropy(model(x), y)
    return model, loss, (x, y)


def gpt_task(lib):
    rng = np.random.default_rng(0)
    idx, tgt = _t(lib, rng.integers(0, 64, (8, 64))), _t(lib, rng.integers(0, 64, (8, 64)))
    model = _models.build(lib).GPT(**GPT)

    def loss(idx, tgt):
        return model(idx, tgt)
    return model, loss, (idx, tgt)


TASKS = {"mlp": mlp_task, "lenet": lenet_task, "gpt": gpt_task}


def make_step(lib, task, mode, optim):
    """mode: eager | compiled; optim: plain | fused."""
    lib.manual_seed(0)
    model, loss, inputs = TASKS[task](lib)
    kw = {"fused": True} if optim == "fused" else {}
    opt = lib.optim.Adam(model.parameters(), lr=1e-3, **kw)
    run = lib.compile(loss) if mode == "compiled" else loss

    def step():
        opt.zero_grad()
        out = run(*inputs)
        out.backward()
        opt.step()
        return out
    return step


def gelu_chain(lib, x, a, b, c, d):
    return lib.nn.functional.gelu(x * a + b, approximate="tanh") * c - d


def kernels_inputs(lib):
    rng = np.random.default_rng(0)
    n = 4 * 1024 * 1024
    chain = tuple(_t(lib, rng.standard_normal(n, np.float32)) for _ in range(5))
    rows = _t(lib, rng.standard_normal((4096, 1024), np.float32))
    w, bb = _t(lib, rng.standard_normal(1024, np.float32)), _t(lib, rng.standard_normal(1024, np.float32))
    return {"gelu_chain 4M": (lambda *t: gelu_chain(lib, *t), chain),
            "row softmax 4096x1024": (lambda x: lib.softmax(x, -1), (rows,)),
            "layer_norm 4096x1024": (lambda x, w, b: lib.nn.functional.layer_norm(x, (1024,), w, b),
                                     (rows, w, bb))}


CLOCK = {"clock": None}  # --thread-time: this thread's CPU time, median of 3 rounds


def timed(fn, steps, repeats=5, warmup=3):
    try:
        if CLOCK["clock"] is None:
            return _timing.time_step(fn, steps, repeats, warmup)
        for _ in range(warmup):
            fn()
        rounds = []
        for _ in range(3):
            t0 = CLOCK["clock"]()
            for _ in range(steps):
                fn()
            rounds.append((CLOCK["clock"]() - t0) / steps * 1e3)
        return sorted(rounds)[1]
    except Exception as e:  # torch.compile without a C compiler, ...
        return f"n/a ({type(e).__name__})"


def fmt(v, base=None):
    if isinstance(v, str):
        return f"{v[:22]:>24}"
    r = f" ({v / base:4.2f}x)" if base else ""
    return f"{v:9.3f} ms{r:>9}"


COLD = """
import json, os, resource, sys, time
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
import compile_kernels as ck
import ember
step = ck.make_step(ember, {task!r}, "compiled", {optim!r})
w0, c0 = time.perf_counter(), time.process_time()
step()
w1, c1 = time.perf_counter(), time.process_time()
from ember._inductor import codecache, compile_worker
compile_worker.shutdown()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
st = codecache.numba_cache_stats()
print(json.dumps(dict(wall=w1 - w0, cpu=c1 - c0, worker_cpu=ru.ru_utime + ru.ru_stime,
                      written=codecache.stats["modules_written"], compiled=st["misses"],
                      loaded=st["hits"], by_worker=compile_worker.stats["worker_compiled"])))
"""


def compile_times(task, optim, reps=3, workers=None):
    """[(cold, warm)] * reps for ``task``'s first compiled step: each rep a fresh kernel cache, a
    new process (cold), then a second new process with that cache (warm). Each entry is the
    child's dict: wall / CPU seconds of the first step (capture, AOT, lowering, codegen, kernel
    compile or load, the step itself), worker_cpu (compile workers), kernel counts."""
    out = []
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, EMBER_CACHE=cache)
            if workers is not None:
                env["EMBER_COMPILE_WORKERS"] = str(workers)
            code = COLD.format(root=os.path.join(HERE, ".."), bench=HERE, optim=optim, task=task)
            pair = []
            for _ in range(2):
                r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                   text=True, timeout=900)
                if r.returncode:
                    raise RuntimeError(r.stderr)
                pair.append(json.loads(r.stdout.strip().splitlines()[-1]))
            out.append(tuple(pair))
    return out


def print_compile_table(optim, reps, workers) -> None:
    print(f"\nfirst compiled step (capture + AOT + lowering + codegen + kernel compile/load + "
          f"the step), median of {reps}; load average {os.getloadavg()[0]:.1f}; compile workers: "
          f"{'auto (on outside pytest)' if workers is None else workers}")
    print(f"{'workload':<12}{'cold wall':>11}{'cold cpu':>10}{'+worker cpu':>12}"
          f"{'warm wall':>11}{'warm cpu':>10}   kernels (cold: compiled here / by worker; "
          "warm: loaded, compiled)")
    med = statistics.median
    for task in ("mlp", "lenet", "gpt"):
        runs = compile_times(task, optim, reps, workers)
        cold, warm = [r[0] for r in runs], [r[1] for r in runs]
        print(f"{task + ' step':<12}{med(c['wall'] for c in cold):>10.2f}s"
              f"{med(c['cpu'] for c in cold):>9.2f}s{med(c['worker_cpu'] for c in cold):>11.2f}s"
              f"{med(w['wall'] for w in warm):>10.2f}s{med(w['cpu'] for w in warm):>9.2f}s   "
              f"{cold[-1]['compiled']} / {cold[-1]['by_worker']}; "
              f"{warm[-1]['loaded']}, {warm[-1]['compiled']}")
    print("targets (MLP step): cold <= 3 s, warm <= 0.3 s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--only", nargs="*")
    p.add_argument("--optim", default="fused", choices=("fused", "plain"))
    p.add_argument("--no-torch-compile", action="store_true")
    p.add_argument("--compile-reps", type=int, default=3)
    p.add_argument("--workers", type=int, default=None,
                   help="compile workers for the cold runs (default: ember's automatic choice)")
    p.add_argument("--thread-time", action="store_true",
                   help="time with this thread's CPU time, median of 3 rounds (a loaded machine)")
    args = p.parse_args()
    if args.thread_time:
        CLOCK["clock"] = time.thread_time
    import torch

    import ember
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    want = set(args.only or ["mlp", "lenet", "gpt", "kernels", "compile"])
    how = "thread time, median of 3" if args.thread_time else "best of 5"
    print(f"ember._inductor benchmark: 1 thread, {how} x {args.steps} calls; optimizer "
          f"Adam({'fused=True' if args.optim == 'fused' else 'default'}) for ember compiled, "
          "default Adam for the others")
    head = f"{'workload':<24}{'ember eager':>24}{'ember compiled':>24}{'torch eager':>24}" \
           f"{'torch.compile':>24}"
    print(head)
    for task in ("mlp", "lenet", "gpt"):
        if task not in want:
            continue
        steps = args.steps if task != "gpt" else max(3, args.steps // 4)
        te = timed(make_step(torch, task, "eager", "plain"), steps)
        ee = timed(make_step(ember, task, "eager", "plain"), steps)
        ec = timed(make_step(ember, task, "compiled", args.optim), steps)
        tc = "skipped" if args.no_torch_compile else timed(
            make_step(torch, task, "compiled", "plain"), steps)
        print(f"{task + ' step':<24}{fmt(ee, te)}{fmt(ec, te)}{fmt(te)}{fmt(tc, te) if not isinstance(tc, str) else fmt(tc)}")
    if "kernels" in want:
        ek, tk = kernels_inputs(ember), kernels_inputs(torch)
        for name in ek:
            fe, ins_e = ek[name]
            ft, ins_t = tk[name]
            with torch.no_grad(), ember.no_grad():
                te = timed(lambda: ft(*ins_t), args.steps)
                ee = timed(lambda: fe(*ins_e), args.steps)
                ce = ember.compile(fe)
                ec = timed(lambda: ce(*ins_e), args.steps)
                tc = "skipped"
                if not args.no_torch_compile:
                    ct = torch.compile(ft)
                    tc = timed(lambda: ct(*ins_t), args.steps)
            print(f"{name:<24}{fmt(ee, te)}{fmt(ec, te)}{fmt(te)}{fmt(tc, te) if not isinstance(tc, str) else fmt(tc)}")
    if "compile" in want:
        print_compile_table(args.optim, args.compile_reps, args.workers)

if __name__ == "__main__":
    main()
