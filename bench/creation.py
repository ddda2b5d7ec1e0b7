"""Creation calls, ember vs torch in one process, one thread: ``tensor`` from Python numbers and
lists, ``zeros``/``ones``/``empty``/``full``, ``arange``, ``linspace``, ``randn``, ``eye``,
``from_numpy`` and ``as_tensor``. Prints microseconds per call (the median over ``--runs`` of the
best of ``--repeat``) and ember / torch.

Usage: ``python bench/creation.py [--number N] [--repeat R] [--runs K] [--thread-time]``.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import _timing  # noqa: E402  (bench/ is on sys.path when a benchmark runs)


def _cases(lib):
    floats = [float(i) for i in range(100)]
    image = np.zeros((3, 32, 32), np.float32)
    return [("tensor(3)", lambda: lib.tensor(3)), ("tensor([1.0, 2.0])", lambda: lib.tensor([1.0, 2.0])),
            ("tensor(100 floats)", lambda: lib.tensor(floats)),
            ("tensor(100 floats, float32)", lambda: lib.tensor(floats, dtype=lib.float32)),
            ("zeros(100)", lambda: lib.zeros(100)), ("ones(3, 4)", lambda: lib.ones(3, 4)),
            ("empty(100)", lambda: lib.empty(100)), ("full((100,), 1.0)", lambda: lib.full((100,), 1.0)),
            ("arange(10)", lambda: lib.arange(10)), ("linspace(0, 1, 5)", lambda: lib.linspace(0, 1, 5)),
            ("randn(10)", lambda: lib.randn(10)), ("eye(3)", lambda: lib.eye(3)),
            ("from_numpy(3x32x32)", lambda: lib.from_numpy(image)),
            ("as_tensor(3x32x32)", lambda: lib.as_tensor(image))]


def main() -> None:
    _timing.print_comparison(_cases, _timing.micro_parser(__doc__.splitlines()[0]).parse_args())


if __name__ == "__main__":
    main()
