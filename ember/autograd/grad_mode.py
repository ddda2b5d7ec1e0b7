"""Thread-local grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

Each is a context manager and a decorator, as in torch. The state is thread-local (DataParallel runs
replicas on threads, each with its own mode).

Example:
    >>> with no_grad():
    ...     is_grad_enabled()
    False
"""
from __future__ import annotations

import functools
import inspect
import os
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


# Recording's one global check (the generated fast path reads it instead of this thread's grad
# mode): ``LEAN[0]`` is True while grad mode is on in every thread and neither anomaly mode nor
# saved-tensor hooks were ever used (``SPECIAL_RECORDING``); otherwise recording takes the general
# path, which reads the thread's own state.
LEAN = [True]
SPECIAL_RECORDING = [False]  # set for good by anomaly mode and saved-tensor hooks
_GRAD_OFF = [0]  # threads whose grad mode is off
_LOCK = threading.Lock()


def _after_fork_in_child() -> None:
    # a fork child keeps only the forking thread: a lock another thread held stays locked, and
    # the other threads' grad modes are gone
    global _LOCK
    _LOCK = threading.Lock()
    _GRAD_OFF[0] = 0 if bool(STATE.enabled) else 1
    token = STATE.__dict__.get("_off_token")
    if token is not None:
        token.pid = os.getpid()
    _update_lean()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _update_lean() -> None:
    LEAN[0] = _GRAD_OFF[0] == 0 and not SPECIAL_RECORDING[0]


def note_special_recording() -> None:
    """Anomaly mode or saved-tensor hooks are in use: recording reads thread-local state from now on."""
    with _LOCK:
        SPECIAL_RECORDING[0] = True
        _update_lean()


class _GradOffToken:
    """Held in a thread's state while its grad mode is off; a thread that ends with grad mode
    off drops its state, and with it this token, which gives the thread's count back."""

    __slots__ = ("armed", "pid")

    def __init__(self):
        self.armed = True
        self.pid = os.getpid()

    def __del__(self):
        # a fork child recounts for itself (``_after_fork_in_child``): tokens of the parent's
        # threads must not count there
        if self.armed and self.pid == os.getpid():
            with _LOCK:
                _GRAD_OFF[0] -= 1
                _update_lean()


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        self.inference = False

    def __setattr__(self, name, value):
        # reads stay plain thread-local attribute reads; a change of grad mode updates ``LEAN``
        if name == "enabled" and bool(self.__dict__.get("enabled", True)) != bool(value):
            with _LOCK:
                _GRAD_OFF[0] += -1 if value else 1
                _update_lean()
            if value:
                token = self.__dict__.pop("_off_token", None)
                if token is not None:
                    token.armed = False
            else:
                self.__dict__["_off_token"] = _GradOffToken()
        super().__setattr__(name, value)


STATE = _State()


def is_grad_enabled() -> bool:
    return STATE.enabled


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class _DecoratorContextManager:
    """Base: subclasses implement ``__enter__``/``__exit__``; instances also decorate functions."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError("cannot decorate a class with a grad-mode context manager")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as e:
                            with self.clone():
                                response = gen.throw(e)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as e:
                    return e.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable gradient recording inside the block (or the decorated function)."""

    def __init__(self, orig_func=None):
        self.prev = True
        if orig_func is not None and callable(orig_func):
            self._wrapped = self(orig_func)

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = False

    def __exit__(self, *exc):
        STATE.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable gradient recording inside the block, e.g. within ``no_grad``."""

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = True

    def __exit__(self, *exc):
        STATE.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect at once, and as a context manager restores on exit."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}")
        self.prev = STATE.enabled
        self.mode = mode
        STATE.enabled = mode

    def __enter__(self):
        STATE.enabled = self.mode

    def __exit__(self, *exc):
        STATE.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``; tensors made inside are inference tensors (recorded on the tensor)."""

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self):
        self.prev = (STATE.enabled, STATE.inference)
        if self.mode:
            STATE.enabled, STATE.inference = False, True

    def __exit__(self, *exc):
        STATE.enabled, STATE.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)
