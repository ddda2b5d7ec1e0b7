"""What the DataLoader's worker loop and main process share (layer L5): the status-check interval and
``ExceptionWrapper``, which carries a worker's exception across the process boundary. Re-exported by
``_utils`` (torch's path); kept apart so ``worker`` does not import its own package's ``__init__``.

Example:
    >>> try:
    ...     raise KeyError("k")
    ... except KeyError:
    ...     w = ExceptionWrapper(where="in DataLoader worker process 0")
    >>> w.exc_type.__name__
    'KeyError'
"""
from __future__ import annotations

import sys
import traceback

__all__ = ["ExceptionWrapper", "KeyErrorMessage", "MP_STATUS_CHECK_INTERVAL", "IS_WINDOWS", "HAS_NUMPY"]

IS_WINDOWS = sys.platform == "win32"
HAS_NUMPY = True
# how often a waiting worker checks that its parent still lives, and how long shutdown waits
MP_STATUS_CHECK_INTERVAL = 1.0


class KeyErrorMessage(str):
    """str whose repr is itself, so a re-raised KeyError prints its traceback readably."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, to re-raise in another process or thread."""

    def __init__(self, exc_info=None, where: str = "in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the wrapped exception type with torch's "Caught X in ... Original Traceback" text."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception
