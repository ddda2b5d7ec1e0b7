"""torch.distributed's exception classes: every one is a RuntimeError, as in torch.

Example:
    >>> issubclass(DistBackendError, RuntimeError), issubclass(DistStoreError, DistError)
    (True, True)
"""
from __future__ import annotations

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """Base class of ember.distributed's errors."""


class DistBackendError(DistError):
    """A collective failed: timeout, dead peer or a broken communicator."""


class DistNetworkError(DistError):
    """A store or rendezvous could not reach its peer."""


class DistStoreError(DistError):
    """A store operation failed or timed out."""
