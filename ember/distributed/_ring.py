"""Ring all-reduce on non-blocking point-to-point messages, for large buffers.

MPICH's ``MPI_Iallreduce`` (and its blocking twin) measured ~3x slower than a reduce-scatter +
all-gather ring at 64 MB on 2 ranks here (bench/distributed.py), so large all-reduces run this ring:
the buffer is cut into ``world_size`` chunks; ``world_size - 1`` steps each pass one chunk to the
right neighbour and reduce the one from the left (NumPy ufunc, in place), then ``world_size - 1``
steps pass the reduced chunks around. Every rank ends with identical values (each chunk is reduced
by one rank only). The generator yields the MPI requests of one step at a time: the ``Work`` polls
them and resumes it, so the ring is as non-blocking (and as bounded by the timeout) as any
collective.

Example:
    >>> import numpy as np
    >>> bounds = _bounds(10, 3); [int(b) for b in bounds]
    [0, 3, 6, 10]
"""
from __future__ import annotations

import os

import numpy as np

__all__ = ["RING_BYTES", "UFUNCS", "ring_allreduce"]

# buffers of at least this many bytes take the ring (EMBER_RING_ALLREDUCE_BYTES overrides, for benchmarks)
RING_BYTES = int(os.environ.get("EMBER_RING_ALLREDUCE_BYTES", 8 << 20))
UFUNCS = {"SUM": np.add, "PROD": np.multiply, "MIN": np.minimum, "MAX": np.maximum, "BAND": np.bitwise_and,
          "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}


def _bounds(size: int, parts: int) -> np.ndarray:
    return np.linspace(0, size, parts + 1).astype(np.int64)


def ring_allreduce(comm, buf: np.ndarray, ufunc, tag: int):
    """Reduce the flat contiguous ``buf`` over ``comm`` in place; yields each step's requests."""
    n, r = comm.Get_size(), comm.Get_rank()
    right, left = (r + 1) % n, (r - 1) % n
    bounds = _bounds(buf.size, n)

    def chunk(i):
        return buf[bounds[i]:bounds[i + 1]]

    scratch = np.empty(int(np.diff(bounds).max()) if n else 0, buf.dtype)
    for step in range(n - 1):  # reduce-scatter: rank r ends owning chunk r + 1, fully reduced
        incoming = chunk((r - step - 1) % n)
        staged = scratch[:incoming.size]
        yield [comm.Irecv(staged, left, tag), comm.Isend(chunk((r - step) % n), right, tag)]
        ufunc(incoming, staged, out=incoming)
    for step in range(n - 1):  # all-gather the reduced chunks
        yield [comm.Irecv(chunk((r - step) % n), left, tag), comm.Isend(chunk((r + 1 - step) % n), right, tag)]
