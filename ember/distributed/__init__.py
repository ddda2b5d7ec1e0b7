"""``ember.distributed``: torch.distributed's process groups and collectives, on MPI.

Every backend name ember accepts ("gloo", "mpi", none) runs on one MPI communicator through mpi4py
on MPICH (the ``distributed`` extra). Importing this package and ``is_available()`` never initialise
MPI; ``init_process_group`` does. Launch a job with ``python -m ember.distributed.run
--nproc-per-node N train.py`` (torchrun), ``ember.multiprocessing.spawn`` or ``mpiexec -n N``.

Example:
    >>> import ember.distributed as dist
    >>> dist.is_available(), dist.is_initialized(), dist.ReduceOp.SUM
    (True, False, <RedOpType.SUM: 0>)
"""
from __future__ import annotations

from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError
from ._store import FileStore, HashStore, PrefixStore, Store, TCPStore
from ._work import Future, Work
from .distributed_c10d import *  # noqa: F401,F403
from .distributed_c10d import __all__ as _c10d_names

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError", "Store", "HashStore",
           "FileStore", "TCPStore", "PrefixStore", "Work", "Future", *_c10d_names]
from .nn import functional as _nn_functional  # noqa: E402,F401 - gives nn.SyncBatchNorm its group statistics
