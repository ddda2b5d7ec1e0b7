"""Pass figures of ember against torch's OpInfo database, every sample of every in-scope OpInfo.

    python tools/opinfo_report.py                 # all in-scope OpInfos, every sample
    python tools/opinfo_report.py -j 2            # two worker processes
    python tools/opinfo_report.py --max-samples 3 # what CI runs
    python tools/opinfo_report.py add matmul -v   # chosen OpInfos, failures printed

Prints one line per failing OpInfo (its first failure) and the figures: in-scope and common ops.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

_MAX = None


def _run(name):
    from tests.opinfo.harness import run_opinfo
    t0 = time.process_time()
    try:
        failures = run_opinfo(name, max_samples=_MAX)
    except Exception as e:  # pragma: no cover - the harness itself broke
        failures = [("?", -1, f"harness crashed: {type(e).__name__}: {e}")]
    return name, failures, time.process_time() - t0


def _init(max_samples):
    global _MAX
    _MAX = max_samples
    import warnings
    warnings.simplefilter("ignore")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", help="OpInfo names (default: every in-scope OpInfo)")
    p.add_argument("-j", "--jobs", type=int, default=1)
    p.add_argument("--max-samples", type=int, default=None)
    p.add_argument("-v", "--verbose", action="store_true", help="print every failure")
    args = p.parse_args(argv)
    from tests.opinfo.common import COMMON
    from tests.opinfo.harness import IN_SCOPE
    from tests.opinfo.known_failures import KNOWN_FAILURES
    names = args.names or IN_SCOPE
    t0 = time.time()
    failed, results = [], []

    def show(result):
        name, failures, _ = result
        results.append(result)
        if failures:
            failed.append(name)
            shown = failures if args.verbose else failures[:1]
            tag = " [known]" if name in KNOWN_FAILURES else ""
            for d, i, m in shown:
                print(f"FAIL {name}{tag}: {d} sample {i}: {m}", flush=True)

    if args.jobs > 1:
        # one task per OpInfo; a worker that dies fails the run (BrokenProcessPool), never hangs it
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(args.jobs, mp_context=ctx, initializer=_init,
                                 initargs=(args.max_samples,)) as pool:
            for result in pool.map(_run, names, chunksize=2):
                show(result)
    else:
        _init(args.max_samples)
        for n in names:
            show(_run(n))
    slow = sorted(results, key=lambda r: -r[2])[:5]
    print("slowest:", ", ".join(f"{n} {t:.1f}s" for n, _, t in slow))
    n_ok = len(names) - len(failed)
    common = [n for n in names if n in COMMON]
    c_ok = sum(1 for n in common if n not in failed)
    samples = "every sample" if args.max_samples is None else f"<= {args.max_samples} samples"
    print(f"in scope: {n_ok}/{len(names)} OpInfos pass ({100 * n_ok / max(1, len(names)):.1f}%), {samples}")
    print(f"common ops: {c_ok}/{len(common)} ({100 * c_ok / max(1, len(common)):.1f}%)")
    known_common = sorted(set(KNOWN_FAILURES) & COMMON)
    print(f"known failures listed: {len(KNOWN_FAILURES)} (issue budget: 20, none common; common listed: "
          f"{', '.join(known_common) or 'none'})")
    print(f"wall time {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
