"""``ember.jit``: the TorchScript names programs touch, answering truthfully for an eager framework.

``is_scripting()``/``is_tracing()`` are False; ``script``/``ignore``/``unused``/``export`` return what
they are given (so decorated helpers run eagerly, as under ``torch.jit.ignore``); ``trace`` returns the
module or function unchanged after checking it runs on the example inputs; ``save``/``load`` raise.

Example:
    >>> import ember
    >>> ember.jit.is_scripting()
    False
    >>> @ember.jit.script
    ... def f(x):
    ...     return x + 1
    >>> f(ember.ones(2))
    tensor([2., 2.])
"""
from __future__ import annotations

import builtins
from typing import Final  # noqa: F401  (torch.jit.Final)

__all__ = ["is_scripting", "is_tracing", "script", "trace", "trace_module", "ignore", "unused",
           "export", "annotate", "save", "load", "freeze", "optimize_for_inference", "Final",
           "ScriptModule", "ScriptFunction", "interface", "fork", "wait", "isinstance"]

_NO_TS = ("ember has no TorchScript: {} is not supported (TorchScript serialisation needs torch's "
          "C++ runtime). Save weights with ember.save(model.state_dict(), path) instead.")


def is_scripting() -> bool:
    """False: code always runs eagerly in ember."""
    return False


def is_tracing() -> bool:
    """False: ember never records a TorchScript trace."""
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Return ``obj`` unchanged: it runs eagerly, with the same results as the scripted version."""
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Return ``func`` unchanged after running it once on ``example_inputs`` (as tracing would)."""
    if example_inputs is not None or example_kwarg_inputs is not None:
        args = example_inputs if builtins.isinstance(example_inputs, tuple) else \
            (() if example_inputs is None else (example_inputs,))
        func(*args, **(example_kwarg_inputs or {}))
    return func


def trace_module(mod, inputs, **kwargs):
    for name, args in inputs.items():
        getattr(mod, name)(*(args if builtins.isinstance(args, tuple) else (args,)))
    return mod


def ignore(drop=False, **kwargs):
    """Decorator (with or without arguments) leaving the function as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


unused = export = ignore


def interface(obj):
    return obj


def annotate(the_type, the_value):
    return the_value


def isinstance(obj, target_type):  # noqa: A001  (torch.jit.isinstance)
    return builtins.isinstance(obj, getattr(target_type, "__origin__", target_type))


def fork(func, *args, **kwargs):
    return _Future(func(*args, **kwargs))


def wait(future):
    return future.value()


class _Future:
    def __init__(self, value):
        self._value = value

    def value(self):
        return self._value

    wait = value


def save(m, f, _extra_files=None):
    raise NotImplementedError(_NO_TS.format("ember.jit.save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    raise NotImplementedError(_NO_TS.format("ember.jit.load"))


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


class ScriptModule:
    """Never produced by ember (``script`` returns the eager module); exists for isinstance checks."""


class ScriptFunction:
    """Never produced by ember; exists for isinstance checks."""


def _script_if_tracing(fn):
    """torch scripts ``fn`` only while tracing; ember never traces TorchScript, so ``fn`` runs as is."""
    return fn


def _overload_method(fn):
    """TorchScript overload declarations of a method; in eager Python the last definition wins."""
    return fn
