"""Writing a Python scalar into a tensor (the checked conversion's cost), ember vs torch in one
process, one thread: ``x.fill_(1.0)`` on float32, ``u.fill_(3)`` on uint8, ``t[0] = 1.0``,
``t[1:] = 1.0``, ``full((100,), 1.0)`` and ``x.masked_fill_(mask, 1.0)`` on (100,) tensors. Prints
microseconds per call (the median over ``--runs`` of the best of ``--repeat``) and ember / torch.

Usage: ``python bench/scalar_fill.py [--number N] [--repeat R] [--runs K] [--thread-time]``.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import _timing  # noqa: E402  (bench/ is on sys.path when a benchmark runs)


def _cases(lib):
    x, t, u = lib.zeros(100), lib.zeros(100), lib.zeros(100, dtype=lib.uint8)
    mask = lib.arange(100) % 2 == 0

    def setitem_int():
        t[0] = 1.0

    def setitem_slice():
        t[1:] = 1.0

    return [("x.fill_(1.0)", lambda: x.fill_(1.0)), ("u.fill_(3) uint8", lambda: u.fill_(3)),
            ("t[0] = 1.0", setitem_int), ("t[1:] = 1.0", setitem_slice),
            ("full((100,), 1.0)", lambda: lib.full((100,), 1.0)),
            ("x.masked_fill_(mask, 1.0)", lambda: x.masked_fill_(mask, 1.0))]


def main() -> None:
    _timing.print_comparison(_cases, _timing.micro_parser(__doc__.splitlines()[0]).parse_args())


if __name__ == "__main__":
    main()
