"""``Tensor.real`` / ``Tensor.imag`` overhead, ember vs torch in one process, one thread: the views of a
(64,) complex64 tensor (plain, and requiring grad: recorded), ``x.real`` of a float32 tensor (the tensor
itself), the setter ``x.imag = 1.0`` and ``x.real.mul_(1)``. Prints microseconds per call (the median
over ``--runs`` of the best of ``--repeat``) and the ratio ember / torch.

Usage: ``python bench/complex_parts.py [--number N] [--repeat R] [--runs K] [--thread-time]``.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import _timing  # noqa: E402  (bench/ is on sys.path when a benchmark runs)

import numpy as np  # noqa: E402


def _set_imag(x):
    x.imag = 1.0


CASES = [("complex x.real", lambda c, g, r: c.real), ("complex x.imag", lambda c, g, r: c.imag),
         ("x.real (requires_grad)", lambda c, g, r: g.real),
         ("float x.real (itself)", lambda c, g, r: r.real),
         ("x.imag = 1.0", lambda c, g, r: _set_imag(c)), ("x.real.mul_(1)", lambda c, g, r: c.real.mul_(1))]


def main() -> None:
    args = _timing.micro_parser(__doc__.splitlines()[0]).parse_args()

    import torch

    import ember
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    z = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).astype(np.complex64)
    f = rng.standard_normal(64).astype(np.float32)
    inputs = {lib: (lib.tensor(z), lib.tensor(z, requires_grad=True), lib.tensor(f))
              for lib in (torch, ember)}
    print(f"{'case':<26}{'torch us':>10}{'ember us':>10}{'ratio':>8}")
    for name, fn in CASES:
        t = {}
        for lib, xs in inputs.items():
            t[lib] = _timing.median_us(lambda xs=xs: fn(*xs), args)
        print(f"{name:<26}{t[torch]:>10.2f}{t[ember]:>10.2f}{t[ember] / t[torch]:>8.2f}")


if __name__ == "__main__":
    main()
