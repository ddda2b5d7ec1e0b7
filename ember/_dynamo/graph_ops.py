"""Functions that captured graphs call for global state (grad mode, autocast regions).

They are ordinary importable functions so generated graph code names them.

Example:
    >>> import ember
    >>> from ember._dynamo.graph_ops import set_grad_enabled
    >>> set_grad_enabled(False); ember.is_grad_enabled()
    False
    >>> set_grad_enabled(True)
"""
from __future__ import annotations

from .._creation import tensor
from .._dtype import float64
from ..amp.autocast_mode import autocast
from ..autograd import grad_mode


def set_grad_enabled(mode: bool) -> None:
    """Switch grad mode (the entry and exit of a captured ``no_grad``/``enable_grad`` block)."""
    grad_mode.STATE.enabled = mode


def enter_autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
    """Enter an autocast region; returns the context for ``exit_autocast``."""
    ctx = autocast(device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
    ctx.__enter__()
    return ctx


def exit_autocast(ctx) -> None:
    ctx.__exit__(None, None, None)


def scalar_tensor(value: float):
    """A 0-d float64 tensor holding a float graph input (an optimizer's lr inside its update)."""
    return tensor(value, dtype=float64)
