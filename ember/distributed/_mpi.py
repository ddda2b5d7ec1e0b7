"""Lazy access to MPI (mpi4py on MPICH) and the process-exit policy of an MPI rank.

Nothing here runs at import: ``load()`` imports ``mpi4py.MPI`` (which initialises MPI) the first
time a process group needs it. From then on:

* ``MPI_Finalize`` is called by ember at exit, unless the process is exiting on an uncaught
  exception or a process group was aborted (a timed-out collective cannot be cancelled, and
  finalising with it pending may block). Exiting without finalising makes ``mpiexec`` kill the
  rest of the job at once, which is how a failing rank takes the job down within seconds.
* ``mpiexec_path()`` is the launcher installed next to ``sys.executable`` by the ``mpich`` wheel.

Example:
    >>> import os, sys
    >>> os.path.dirname(mpiexec_path()) == os.path.dirname(sys.executable)
    True
"""
from __future__ import annotations

import atexit
import os
import shutil
import sys

__all__ = ["load", "loaded", "mpiexec_path", "mark_aborted", "mark_failed"]

_state = {"MPI": None, "failed": False, "aborted": False}


def loaded() -> bool:
    return _state["MPI"] is not None


def load():
    """Import ``mpi4py.MPI`` once (initialising MPI with thread support) and set the exit policy."""
    if _state["MPI"] is not None:
        return _state["MPI"]
    try:
        import mpi4py
    except ImportError as e:  # pragma: no cover - the distributed extra is missing
        raise RuntimeError("ember.distributed needs mpi4py and an MPI: pip install 'ember[distributed]' "
                           "(the mpi4py and mpich wheels)") from e
    mpi4py.rc.finalize = False  # ember decides at exit (see module docstring)
    from mpi4py import MPI
    _state["MPI"] = MPI
    previous_hook = sys.excepthook

    def excepthook(kind, value, tb):
        _state["failed"] = True
        previous_hook(kind, value, tb)

    sys.excepthook = excepthook
    atexit.register(_finalize)
    return MPI


def mark_failed() -> None:
    """The process is exiting on an error: do not finalise (mpiexec then ends the job)."""
    _state["failed"] = True


def mark_aborted() -> None:
    """A collective was left pending (timeout, dead peer): never finalise this process."""
    _state["aborted"] = True


def _finalize() -> None:
    MPI = _state["MPI"]
    if MPI is None or MPI.Is_finalized():
        return
    if _state["failed"] or _state["aborted"]:
        sys.stdout.flush()
        sys.stderr.flush()
        return
    MPI.Finalize()


def mpiexec_path() -> str:
    """``mpiexec`` next to the running interpreter (the mpich wheel's), else the one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec")
    if found is None:
        raise RuntimeError("mpiexec not found next to sys.executable nor on PATH: "
                           "pip install 'ember[distributed]' (the mpich wheel provides it)")
    return found
