"""DataLoader internals (layer L5): worker loop, collate, fetchers, shared memory transport."""
from __future__ import annotations

from ._common import HAS_NUMPY, IS_WINDOWS, MP_STATUS_CHECK_INTERVAL, ExceptionWrapper, KeyErrorMessage

__all__ = ["ExceptionWrapper", "MP_STATUS_CHECK_INTERVAL", "IS_WINDOWS", "HAS_NUMPY"]

from . import collate, fetch, shared_memory, signal_handling, worker  # noqa: F401
