"""Signal handling for DataLoader workers (layer L5).

Ctrl-C reaches the whole process group; workers ignore it so the main process alone decides how to shut
them down (its iterator stops them and sweeps their shared memory). A dead worker is noticed through its
process sentinel while the main process waits for data, so no SIGCHLD handler is needed.
"""
from __future__ import annotations

import signal
import threading

__all__ = ["_set_worker_signal_handlers"]


def _set_worker_signal_handlers() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
