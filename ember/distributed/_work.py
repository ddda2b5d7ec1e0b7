"""Work handles of asynchronous collectives, and the Future they complete.

MPI makes progress only inside MPI calls and a non-blocking collective cannot be cancelled, so a
``Work`` is a set of MPI requests polled against a deadline: ``wait()`` polls until they complete
(then runs the work's finishing step, e.g. copying a staged result into the output tensor) or
raises ``DistBackendError`` when the timeout passes. Every new collective and every
``is_completed()`` on a process group also tests its pending works, in issue order, so the
completion callbacks of a ``get_future().then(...)`` chain run without an explicit wait (this is
what DistributedDataParallel's gradient buckets rely on).

Example:
    >>> f = Future()
    >>> g = f.then(lambda fut: fut.value() * 2)
    >>> f.set_result(21); g.done(), g.wait()
    (True, 42)
"""
from __future__ import annotations

import os
import time
from datetime import timedelta

from ._errors import DistBackendError

__all__ = ["Future", "Work", "poll_until"]

# spin this long before yielding the CPU between tests: a yielding rank waits a whole time slice on a
# loaded machine, while MPICH needs both peers inside MPI calls to move data
SPIN_SECONDS = float(os.environ.get("EMBER_DIST_SPIN_SECONDS", 0.001))


class Future:
    """torch.futures.Future's interface: ``wait``, ``value``, ``done``, ``then``, ``add_done_callback``."""

    def __init__(self, waiter=None):
        self._done, self._value, self._exception = False, None, None
        self._callbacks = []
        self._waiter = waiter  # drives progress until done (a Work's wait)

    def done(self) -> bool:
        return self._done

    def set_result(self, result) -> None:
        self._finish(result, None)

    def set_exception(self, exception) -> None:
        self._finish(None, exception)

    def _finish(self, value, exception) -> None:
        if self._done:
            raise RuntimeError("Future can only be marked completed once")
        self._value, self._exception, self._done = value, exception, True
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def wait(self):
        if not self._done and self._waiter is not None:
            self._waiter()
        if not self._done:
            raise RuntimeError("Future.wait() on a future nobody completes")
        return self.value()

    def value(self):
        if self._exception is not None:
            raise self._exception
        return self._value

    def add_done_callback(self, callback) -> None:
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def then(self, callback) -> "Future":
        """A future completed with ``callback(self)`` once this one completes."""
        child = Future(waiter=self.wait)

        def run(parent):
            try:
                child.set_result(callback(parent))
            except Exception as e:  # the child carries the callback's error, as in torch
                child.set_exception(e)

        self.add_done_callback(run)
        return child


def poll_until(test, deadline: float, on_timeout, spin: float = SPIN_SECONDS) -> None:
    """Call ``test()`` until it is true; ``on_timeout()`` (which raises) once ``deadline`` passes.

    MPICH progresses only inside MPI calls, so the loop keeps calling: it spins for ``spin`` seconds
    (a small message completes in tens of microseconds when both peers run), then yields the CPU
    between tests (ranks may outnumber cores), and backs off to short sleeps after a second.
    """
    start = time.monotonic()
    while not test():
        now = time.monotonic()
        if now > deadline:
            on_timeout()
        waited = now - start
        if waited < spin:
            continue
        if waited < 1.0:
            os.sched_yield()
        else:
            time.sleep(0.0005)


class Work:
    """One asynchronous operation: ``wait(timeout)``, ``is_completed()``, ``get_future()``.

    ``requests`` are MPI requests (``stages``, if given, yields the next step's requests each time the
    current ones complete); ``finish()`` runs once all complete (in the waiting thread);
    the future's value is ``result`` (the output tensors, as torch's ``Work.result()``).
    """

    def __init__(self, pg, name: str, requests: list, finish=None, result=None, stages=None):
        self._pg, self._name, self._requests, self._stages = pg, name, requests, stages
        self._finish, self._result = finish, result if result is not None else []
        self._completed, self._exception = False, None
        self._future = None
        self._source = None
        self._issued = time.monotonic()

    def _test(self) -> bool:
        """Test the requests once; on completion run the finishing step and the future's callbacks."""
        if self._completed:
            return True
        MPI = self._pg._MPI
        try:
            while True:
                if self._requests:
                    if len(self._requests) == 1:
                        status = MPI.Status()
                        if not self._requests[0].Test(status):
                            return False
                        self._source = status.Get_source()
                    elif not MPI.Request.Testall(self._requests):
                        return False
                if self._stages is None:
                    break
                self._requests = next(self._stages, None)  # a multi-step op (the ring) issues its next step
                if self._requests is None:
                    self._stages = None
                    break
        except MPI.Exception as e:
            self._fail(DistBackendError(f"{self._name} failed on rank {self._pg._global_rank}: {e}"))
            raise self._exception from None
        self._completed = True
        if self._finish is not None:
            self._finish()
        if self._future is not None and not self._future.done():
            self._future.set_result(self._result)
        return True

    def _fail(self, error: Exception) -> None:
        self._completed, self._exception = True, error
        self._pg._abort(error)
        if self._future is not None and not self._future.done():
            self._future.set_exception(error)

    def is_completed(self) -> bool:
        if not self._completed:
            self._pg._progress()
        return self._completed

    def is_success(self) -> bool:
        return self.is_completed() and self._exception is None

    def exception(self):
        return self._exception

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until done; ``DistBackendError`` once ``timeout`` (default: the group's) passes."""
        if self._exception is not None:
            raise self._exception
        seconds = self._pg._timeout if timeout is None else timeout.total_seconds()
        deadline = self._issued + seconds if timeout is None else time.monotonic() + seconds
        pg = self._pg

        def on_timeout():
            self._fail(DistBackendError(
                f"{self._name} timed out after {int(seconds * 1000)} ms on rank {pg._global_rank} "
                f"(process group of {pg.size()} ranks, timeout={timedelta(seconds=seconds)}): a peer did "
                f"not take part in time (it failed, exited or is stuck); the process group is aborted"))
            raise self._exception

        poll_until(lambda: pg._progress(until=self), deadline, on_timeout, pg._spin)
        if self._exception is not None:
            raise self._exception
        return True

    def get_future(self) -> Future:
        if self._future is None:
            self._future = Future(waiter=self.wait)
            if self._completed and self._exception is None:
                self._future.set_result(self._result)
        return self._future

    def result(self) -> list:
        return self._result

    def source_rank(self) -> int:
        """The sender of a completed ``recv`` (global rank)."""
        return self._pg._ranks[self._source] if self._source is not None else -1

    def synchronize(self) -> None:
        return None

    def __repr__(self) -> str:
        return f"Work({self._name}, completed={self._completed})"
