"""``torch._C``'s few Python-visible pieces that libraries touch on import (ember has no C core).

- ``_log_api_usage_once(event)``: torch's usage logging; a no-op.
- ``DispatchKey``/``DispatchKeySet``/``_ExcludeDispatchKeyGuard``: names libraries use to register
  per-key kernels (e.g. autocast wrappers); ember dispatches without keys, so the guard does nothing.
- ``_get_tracing_state()``: None (ember has no TorchScript tracer).
- ``DisableTorchFunction``/``DisableTorchFunctionSubclass``: ``ember.overrides``' context managers
  (torchvision's tv_tensors call ops on their subclass with the protocol disabled).

Example:
    >>> _log_api_usage_once("python.import")
    >>> s = DispatchKeySet(DispatchKey.AutocastCPU) | DispatchKeySet(DispatchKey.AutocastCUDA)
    >>> s.has(DispatchKey.AutocastCPU), s.has(DispatchKey.CPU)
    (True, False)
    >>> with _ExcludeDispatchKeyGuard(s):
    ...     pass
"""
from __future__ import annotations

import enum

from .overrides import DisableTorchFunction, DisableTorchFunctionSubclass

__all__ = ["DispatchKey", "DispatchKeySet", "_ExcludeDispatchKeyGuard", "_log_api_usage_once",
           "_get_tracing_state", "DisableTorchFunction", "DisableTorchFunctionSubclass"]


def _log_api_usage_once(event: str) -> None:
    """torch records API usage for telemetry; ember records nothing."""


def _get_tracing_state():
    """The active TorchScript tracer: there is none in ember."""
    return None


DispatchKey = enum.Enum("DispatchKey", [
    "Undefined", "CPU", "CUDA", "Meta", "XPU", "MPS", "BackendSelect", "Python", "Functionalize",
    "ADInplaceOrView", "AutogradOther", "AutogradCPU", "AutogradCUDA", "AutogradXPU",
    "AutogradMeta", "Autograd", "AutocastCPU", "AutocastCUDA", "AutocastXPU", "AutocastMPS",
    "CompositeImplicitAutograd", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional",
    "FuncTorchBatched", "PreDispatch", "PythonDispatcher", "PythonTLSSnapshot"])


class DispatchKeySet:
    """A set of ``DispatchKey``s (``|``, ``-``, ``has``)."""

    def __init__(self, *keys):
        self._keys = frozenset(k for k in keys if isinstance(k, DispatchKey))

    def __or__(self, other: "DispatchKeySet") -> "DispatchKeySet":
        return DispatchKeySet(*(self._keys | other._keys))

    def __sub__(self, other: "DispatchKeySet") -> "DispatchKeySet":
        return DispatchKeySet(*(self._keys - other._keys))

    def has(self, key: DispatchKey) -> bool:
        return key in self._keys

    def __eq__(self, other) -> bool:
        return isinstance(other, DispatchKeySet) and self._keys == other._keys

    def __hash__(self) -> int:
        return hash(self._keys)

    def __repr__(self) -> str:
        return f"DispatchKeySet({', '.join(sorted(k.name for k in self._keys))})"


class _ExcludeDispatchKeyGuard:
    """Context manager excluding keys from dispatch; ember dispatches without keys (a no-op)."""

    def __init__(self, keyset: DispatchKeySet):
        self.keyset = keyset

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None
