"""``TorchDispatchMode`` at torch's import path (layer L2): intercept every primitive call.

Example:
    >>> import ember
    >>> class Log(TorchDispatchMode):
    ...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
    ...         print(func.name)
    ...         return func(*args, **(kwargs or {}))
    >>> x = ember.ones(2)
    >>> with Log():
    ...     _ = x + 1
    add
"""
from __future__ import annotations

import contextlib

from .._dispatch import MODES, TorchDispatchMode

__all__ = ["TorchDispatchMode", "is_in_torch_dispatch_mode", "_get_current_dispatch_mode",
           "_get_current_dispatch_mode_stack", "_len_torch_dispatch_stack", "_pop_mode_temporarily",
           "_disable_current_modes"]


def _get_current_dispatch_mode():
    """The innermost active mode, or None."""
    return MODES.stack[-1] if MODES.stack else None


def _get_current_dispatch_mode_stack() -> list:
    return list(MODES.stack)


def _len_torch_dispatch_stack() -> int:
    return len(MODES.stack)


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    return bool(MODES.stack)


@contextlib.contextmanager
def _pop_mode_temporarily():
    """Run the block with the innermost mode removed (it is yielded)."""
    mode = MODES.stack.pop()
    try:
        yield mode
    finally:
        MODES.stack.append(mode)


@contextlib.contextmanager
def _disable_current_modes():
    """Run the block with no dispatch mode active (the modes are yielded, innermost last)."""
    saved = list(MODES.stack)
    MODES.stack.clear()
    try:
        yield saved
    finally:
        MODES.stack[:] = saved
