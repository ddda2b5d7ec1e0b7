"""Parametrizations: a module's tensor computed on access from stored originals (layer L4).

``register_parametrization(m, "weight", P())`` moves ``m.weight`` to
``m.parametrizations.weight.original`` and makes ``m.weight`` a property returning
``P()(original)``. The state dict keys and the class name ``Parametrized<Class>`` are torch's.

Example:
    >>> import ember
    >>> from ember import nn
    >>> class Symmetric(nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).transpose(-1, -2)
    >>> m = register_parametrization(nn.Linear(3, 3), "weight", Symmetric())
    >>> bool((m.weight == m.weight.T).all()), type(m).__name__
    (True, 'ParametrizedLinear')
"""
from __future__ import annotations

import collections.abc
from contextlib import contextmanager

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Within this block each parametrized tensor is computed once, at its first access."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module, name, X) -> None:
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest, src) -> None:
    """Write ``src`` into ``dest`` keeping ``dest``'s identity (optimizers hold it)."""
    if tuple(dest.shape) == tuple(src.shape) and dest.dtype == src.dtype:
        dest.copy_(src)
    else:
        dest.set_(src)


class ParametrizationList(ModuleList):
    """The chain of parametrizations of one tensor plus its ``original`` (or ``original0..n``)."""

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = tuple(original.shape), original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(original).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                                 f"dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the sequence "
                                     f"with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali.detach().clone(), original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the "
                                 f"tensor, unless `unsafe` flag is enabled.\nunparametrized dtype: "
                                 f"{original_dtype}\nparametrized dtype: {Z.dtype}")
            if tuple(Z.shape) != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the "
                                 f"tensor, unless `unsafe` flag is enabled.\nunparametrized shape: "
                                 f"{original_shape}\nparametrized shape: {tuple(Z.shape)}")

    def right_inverse(self, value) -> None:
        """Store ``value`` as the parametrized tensor: invert each parametrization in turn."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length "
                                     f"{self.ntensors}. Got {type(value).__name__}")
                for i, tensor in enumerate(value):
                    _maybe_set(getattr(self, f"original{i}"), tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _getstate(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_"
                       "models.html#saving-loading-a-general-checkpoint-for-inference-and-or-"
                       "resuming-training")


def _inject_new_class(module) -> None:
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        import copy
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    attrs = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        attrs["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), attrs)


def _inject_property(module, tensor_name: str) -> None:
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name: str, parametrization, *, unsafe: bool = False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` on the stored original."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype or tuple(X.shape) != tuple(Y.shape):
                raise ValueError("Registering a parametrization may not change the shape or dtype "
                                 "of the tensor, unless the `unsafe` flag is enabled.")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None) -> bool:
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Undo ``register_parametrization``: keep the current value (or the original) as a plain
    parameter/buffer."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        original = (Parameter(t.detach(), t.requires_grad)
                    if isinstance(parametrizations.original0, Parameter) else t.detach())
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module) -> type:
    """The module's class before parametrizations were registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (and their originals) of ``from_module`` onto ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func)
        plist_from = from_module.parametrizations[name]
        plist_to = to_module.parametrizations[name]
        with no_grad():
            if plist_from.is_tensor:
                _maybe_set(plist_to.original, plist_from.original)
            else:
                for i in range(plist_from.ntensors):
                    _maybe_set(getattr(plist_to, f"original{i}"),
                               getattr(plist_from, f"original{i}"))
    return to_module

