"""A child of ``ember.multiprocessing.spawn``: ``python -m ember.multiprocessing._spawn_child payload``.

It re-creates the parent's main module (as multiprocessing's spawn does), runs ``fn(index, *args)``
and records how it ended in ``status<index>`` (("exit", code) or ("raised", traceback)); it ends
itself if the parent process disappears.
"""
from __future__ import annotations

import multiprocessing.spawn as mp_spawn
import os
import pickle
import sys
import threading
import time
import traceback


def _write(path: str, value) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(value, f)
    os.replace(tmp, path)


def _watch_parent(parent: int) -> None:
    while True:
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            os._exit(1)
        time.sleep(0.5)


def main(path: str) -> None:
    with open(path, "rb") as f:
        mp_spawn.prepare(pickle.load(f))  # the parent's sys.path, cwd and main module (as __mp_main__)
        head = pickle.load(f)             # fn may live in that main module: unpickle it only now
    workdir, index = head["workdir"], head["index"]
    _write(os.path.join(workdir, f"pid{index}"), os.getpid())
    threading.Thread(target=_watch_parent, args=(head["parent"],), daemon=True).start()
    status = os.path.join(workdir, f"status{index}")
    code = 0
    try:
        head["fn"](index, *head["args"])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        _write(status, ("raised", traceback.format_exc()))
        _fail_fast()
        sys.exit(1)
    _write(status, ("exit", code))
    if code:
        _fail_fast()
    sys.exit(code)


def _fail_fast() -> None:
    """Exit without MPI_Finalize (see ember.distributed._mpi): peers must not wait for this rank."""
    from ..distributed import _mpi
    _mpi.mark_failed()


if __name__ == "__main__":
    main(sys.argv[1])
