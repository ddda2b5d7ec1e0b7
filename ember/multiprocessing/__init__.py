"""``ember.multiprocessing``: Python's multiprocessing plus torch's ``spawn``/``start_processes``.

``spawn`` starts each child under ``mpiexec -n 1`` so the children can form one MPI world in
``init_process_group`` (see ``ember.multiprocessing.spawn``).

Example:
    >>> import ember.multiprocessing as mp
    >>> issubclass(mp.ProcessRaisedException, mp.ProcessException), mp.get_start_method(allow_none=True) in (None, "fork", "spawn", "forkserver")
    (True, True)
"""
from __future__ import annotations

from multiprocessing import (Array, Barrier, BoundedSemaphore, Condition, Event, JoinableQueue, Lock,  # noqa: F401
                             Manager, Pipe, Pool, Process, Queue, RLock, Semaphore, SimpleQueue, Value,
                             active_children, cpu_count, current_process, get_all_start_methods, get_context,
                             get_start_method, parent_process, set_forkserver_preload, set_start_method)

from .spawn import (ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    spawn, start_processes)

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessException", "ProcessRaisedException",
           "ProcessExitedException", "Process", "Queue", "SimpleQueue", "JoinableQueue", "Pipe", "Pool",
           "Manager", "Lock", "RLock", "Event", "Condition", "Semaphore", "BoundedSemaphore", "Barrier", "Value",
           "Array", "get_context", "get_start_method", "set_start_method", "get_all_start_methods",
           "set_forkserver_preload", "cpu_count", "current_process", "active_children", "parent_process"]
