"""Intra-op thread count: ``ember.set_num_threads`` / ``get_num_threads`` drive NumPy's BLAS pool.

threadpoolctl is imported on first use only, so ``import ember`` stays fast.

Example:
    >>> import ember
    >>> n = ember.get_num_threads()
    >>> ember.set_num_threads(1); ember.get_num_threads()
    1
    >>> ember.set_num_threads(n)
"""
from __future__ import annotations

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads"]

_state = {"threads": None, "interop": None, "limiter": None}


def _check(n, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def set_num_threads(int) -> None:
    """Use ``int`` threads in BLAS and other native thread pools (as ``torch.set_num_threads``)."""
    n = _check(int, "set_num_threads")
    from threadpoolctl import threadpool_limits
    # a limiter kept alive (never used as a context manager) holds the limit until the next call
    _state["limiter"] = threadpool_limits(limits=n)
    _state["threads"] = n


def get_num_threads() -> int:
    """The number of threads BLAS uses (the value last set, else what the pool reports)."""
    if _state["threads"] is not None:
        return _state["threads"]
    from threadpoolctl import threadpool_info
    counts = [i.get("num_threads", 1) for i in threadpool_info() if i.get("user_api") == "blas"]
    if counts:
        return max(counts)
    import os
    return os.cpu_count() or 1


def set_num_interop_threads(int) -> None:
    """Record the inter-op thread count (ember runs ops on the calling thread)."""
    if _state["interop"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has "
                           "started or set_num_interop_threads called")
    _state["interop"] = _check(int, "set_num_interop_threads")


def get_num_interop_threads() -> int:
    if _state["interop"] is not None:
        return _state["interop"]
    import os
    return os.cpu_count() or 1
