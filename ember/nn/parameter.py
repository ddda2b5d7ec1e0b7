"""``Parameter`` (a Tensor a Module registers as trainable) and ``Buffer`` (layer L4).

Example:
    >>> import ember
    >>> p = Parameter(ember.zeros(2))
    >>> p.requires_grad, isinstance(p, ember.Tensor)
    (True, True)
    >>> print(p)
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
"""
from __future__ import annotations

from collections import OrderedDict

from .._dispatch import FAST_TYPES
from .._tensor import Tensor
from ..overrides import PLAIN_TYPES

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    # results of ops on Parameters are plain Tensors, as in torch
    from ..overrides import DisableTorchFunctionSubclass
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


class _ParameterMeta(type(Tensor)):
    # tensors flagged `_is_param` count as Parameters (torch's behaviour for custom tensor subclasses)
    def __instancecheck__(self, instance):
        if self is Parameter:
            if isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
                return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that, assigned as a Module attribute, is registered as one of its parameters.

    Args:
        data (Tensor): the values (memory is shared, not copied); an empty tensor when None.
        requires_grad (bool): whether the parameter requires gradient. Default: True.
    """

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad: bool = True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        if self.grad is not None:
            import copy
            result.grad = copy.deepcopy(self.grad, memo)
        if self.__dict__:
            import copy
            result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        state = dict(self.__dict__) or None
        return (_rebuild_parameter_with_state, (self.data, self.requires_grad, OrderedDict(), state))

    __torch_function__ = classmethod(lambda cls, func, types, args=(), kwargs=None:
                                     _disabled_torch_function_impl(func, types, args, kwargs))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = Parameter(data, requires_grad)
    if state:
        p.__dict__.update(state)
    return p


class _BufferMeta(type):
    # a Buffer is a plain Tensor flagged `_is_buffer`; isinstance(t, Buffer) checks the flag
    def __instancecheck__(self, instance):
        if self is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """Marks a Tensor to be registered as a buffer when assigned to a Module attribute.

    Args:
        data (Tensor): the buffer tensor (detached). persistent (bool): part of ``state_dict``.

    Example:
        >>> import ember
        >>> b = Buffer(ember.ones(2), persistent=False)
        >>> isinstance(b, Buffer), b.persistent
        (True, False)
    """

    def __new__(cls, data=None, *, persistent: bool = True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (lazy modules); materialised on first use."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        from .._creation import empty
        return Tensor._make_subclass(cls, empty(0, dtype=dtype), requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        from .._creation import empty
        self.data = empty(shape, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (lazy modules)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        from .._creation import empty
        t = Tensor._make_subclass(cls, empty(0, dtype=dtype), requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param) -> bool:
    """True for parameters/buffers whose shape is still unknown."""
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))


PLAIN_TYPES.add(Parameter)
FAST_TYPES.add(Parameter)  # plain for dispatch's fast path too
