"""torch's runtime assertions as functions: ``_assert`` and the ``_check*`` family.

Libraries (torchvision among them) call these instead of ``assert``; under symbolic tracing
``_assert`` stays one call in the graph. ``message`` is a zero-argument callable giving the text.

Example:
    >>> import ember
    >>> ember._check(True, lambda: "never shown")
    >>> try:
    ...     ember._check_index(False, lambda: "index 5 is out of bounds")
    ... except IndexError as e:
    ...     print(e)
    index 5 is out of bounds
"""
from __future__ import annotations

import warnings

from ._tensor import Tensor
from .overrides import PLAIN_TYPES, try_torch_function

__all__ = ["_assert", "_check", "_check_with", "_check_index", "_check_value", "_check_type",
           "_check_not_implemented", "_check_is_size"]

_DEFAULT = ("Expected cond to be True, but got False. (Could this error message be improved? If so, "
            "please report an enhancement request to PyTorch.)")


def _assert(condition, message):
    """``assert condition, message`` as a function (symbolic tracing keeps the call)."""
    if type(condition) not in PLAIN_TYPES:
        r = try_torch_function(_assert, (condition,), condition, message)
        if r is not NotImplemented:
            return r
    assert condition, message


def _check_with(error_type, cond, message=None):
    """Raise ``error_type(message())`` unless ``cond`` is true."""
    if isinstance(cond, Tensor):
        raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                        "torch._check_tensor_all() to assert that all elements are true.")
    if not isinstance(cond, bool):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is not None and not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(_DEFAULT if message is None else str(message()))


def _check(cond, message=None):
    """RuntimeError unless ``cond``."""
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    """IndexError unless ``cond``."""
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    """ValueError unless ``cond``."""
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    """TypeError unless ``cond``."""
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    """NotImplementedError unless ``cond``."""
    _check_with(NotImplementedError, cond, message)


def _check_is_size(i, message=None, *, max=None):
    """``i`` is a valid size (``0 <= i``, and ``i <= max`` when given); deprecated as torch's."""
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with "
                  "guard_size_oblivious.     Use _check(i >= 0) instead.", FutureWarning, stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)
