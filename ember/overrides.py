"""``__torch_function__``: the public-level interception point (layer L2), with torch's names.

Every public function and Tensor method checks its tensor-like arguments; when one has a
``__torch_function__`` other than the plain Tensor's, the call goes to it as
``cls.__torch_function__(func, types, args, kwargs)``. fx's Proxy and Tensor subclasses hook in here.

Example:
    >>> class Logged:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return func.__name__
    >>> import ember
    >>> ember.add(Logged(), 1)
    'add'
"""
from __future__ import annotations

import functools
import threading

from ._tensor_base import TensorBase

__all__ = ["has_torch_function", "handle_torch_function", "try_torch_function", "is_tensor_like", "public",
           "TorchFunctionMode",
           "PLAIN_TYPES", "DisableTorchFunction", "DisableTorchFunctionSubclass"]

# types that never override the protocol (the fast path skips it for them): Python scalars and None
# here, Tensor and Parameter added where they are defined
PLAIN_TYPES: set = {int, float, bool, complex, type(None)}


class _State(threading.local):
    def __init__(self):
        self.disabled = 0
        self.subclass_disabled = 0


STATE = _State()


def is_tensor_like(x) -> bool:
    return isinstance(x, TensorBase) or hasattr(type(x), "__torch_function__")


def _overriding(args) -> list:
    seen, out = set(), []
    for a in args:
        t = type(a)
        if t in PLAIN_TYPES or t in seen:
            continue
        if t is list or t is tuple:
            for x in _overriding(a):
                if type(x) not in seen:
                    seen.add(type(x))
                    out.append(x)
            continue
        if hasattr(t, "__torch_function__"):
            seen.add(t)
            out.append(a)
    return out


def has_torch_function(args) -> bool:
    """True when some argument overrides the protocol (and it is not disabled)."""
    if STATE.disabled:
        return False
    for a in args:
        t = type(a)
        if t in PLAIN_TYPES:
            continue
        if t is list or t is tuple:
            if has_torch_function(a):
                return True
        elif hasattr(t, "__torch_function__"):
            if STATE.subclass_disabled and isinstance(a, TensorBase):
                continue
            return True
    return False


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the overriding ``__torch_function__`` of ``relevant_args`` (subclasses first)."""
    overloaded = _overriding(relevant_args)
    # subclasses before their parents, as torch orders them
    overloaded.sort(key=lambda x: -len(type(x).__mro__))
    types = tuple(type(x) for x in overloaded)
    for a in overloaded:
        fn = type(a).__torch_function__
        result = fn(public_api, types, args, kwargs) if not hasattr(fn, "__func__") \
            else fn.__func__(type(a), public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{getattr(public_api, '__qualname__', public_api)}' on "
                    f"types that implement __torch_function__: {[type(a) for a in overloaded]}")


class _ModeStack(threading.local):
    def __init__(self):
        self.stack = []


_FUNCTION_MODES = _ModeStack()
_any_function_mode = [False]


class TorchFunctionMode:
    """Intercepts calls of public functions (those built with ``public``, e.g. nn.functional) in its
    ``with`` block: override ``__torch_function__(self, func, types, args=(), kwargs=None)``; calling
    ``func`` inside runs it under the modes below this one. ember's own use: autocast's float32 list
    for composite losses."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _FUNCTION_MODES.stack.append(self)
        _any_function_mode[0] = True
        return self

    def __exit__(self, *exc):
        _FUNCTION_MODES.stack.remove(self)


def _via_function_mode(func, args, kwargs):
    stack = _FUNCTION_MODES.stack
    mode = stack.pop()
    try:
        return mode.__torch_function__(func, tuple({type(a) for a in args}), args, kwargs)
    finally:
        stack.append(mode)


def try_torch_function(public_api, relevant_args, *args, **kwargs):
    """``public_api``'s result from an overriding ``__torch_function__`` among ``relevant_args``, or
    ``NotImplemented`` when nothing overrides (for callers that handle several arguments themselves)."""
    if has_torch_function(relevant_args):
        return handle_torch_function(public_api, relevant_args, *args, **kwargs)
    return NotImplemented


def public(fn, name: str | None = None, module: str | None = None):
    """Decorate a public function so tensor-like arguments may override it (the long-tail path);
    ``name``/``module`` publish it under another name (``ember.lu_solve`` from a helper)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _any_function_mode[0] and _FUNCTION_MODES.stack:
            return _via_function_mode(wrapper, args, kwargs)
        for a in args:  # plain Tensors and scalars (the common case) cannot override: no further check
            if type(a) not in PLAIN_TYPES:
                if has_torch_function(args):
                    return handle_torch_function(wrapper, args + tuple(kwargs.values()), *args, **kwargs)
                break
        if kwargs and has_torch_function(tuple(kwargs.values())):
            return handle_torch_function(wrapper, args + tuple(kwargs.values()), *args, **kwargs)
        return fn(*args, **kwargs)
    wrapper.__wrapped__ = fn
    if name is not None:
        wrapper.__name__ = wrapper.__qualname__ = name
    if module is not None:
        wrapper.__module__ = module
    return wrapper


class DisableTorchFunction:
    """Inside, ``__torch_function__`` overrides are ignored entirely."""

    def __enter__(self):
        STATE.disabled += 1

    def __exit__(self, *exc):
        STATE.disabled -= 1


class DisableTorchFunctionSubclass:
    """Inside, Tensor subclasses' overrides are ignored (what the default ``__torch_function__`` uses)."""

    def __enter__(self):
        STATE.subclass_disabled += 1

    def __exit__(self, *exc):
        STATE.subclass_disabled -= 1
