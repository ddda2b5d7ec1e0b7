"""The entry point of each rank that ``ember.distributed.run`` starts under ``mpiexec``.

``python -m ember.distributed._rank_main [-m] script args...`` runs the training script as
``__main__`` (as ``python script.py`` would) and reports to the launcher's store: its pid when it
starts, its exit status when the script ends. The launcher watches both, so a rank that raises
(even before ``init_process_group``, where MPI has no say yet) or is killed brings the job down
within seconds. A failing rank exits without ``MPI_Finalize`` (see ``_mpi``).
"""
from __future__ import annotations

import os
import runpy
import sys
import traceback
from datetime import timedelta


def _store():
    from ._store import TCPStore
    try:
        return TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), timeout=timedelta(seconds=30))
    except Exception as e:  # the launcher's store must be there; say so and run anyway
        print(f"ember.distributed.run: rank cannot reach the launcher's store: {e}", file=sys.stderr)
        return None


def _report(store, key: str, value: str) -> None:
    if store is not None:
        try:
            store.set(key, value)
        except Exception:
            pass


def main() -> None:
    args = sys.argv[1:]
    as_module = args[:1] == ["-m"]
    if as_module:
        args = args[1:]
    rank = os.environ.get("RANK", "?")
    store = _store()
    _report(store, f"ember_run/pid/{rank}", str(os.getpid()))
    sys.argv = list(args)
    code = 0
    try:
        if as_module:
            runpy.run_module(args[0], run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    _report(store, f"ember_run/status/{rank}", str(code))
    if code:
        from . import _mpi
        _mpi.mark_failed()
        sys.stdout.flush()
        sys.stderr.flush()
    sys.exit(code)


if __name__ == "__main__":
    main()
