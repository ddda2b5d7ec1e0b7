"""Parametrizations: a module tensor recomputed on every access from stored originals (layer L4).

After ``register_parametrization(m, "weight", P())`` the tensor lives in
``m.parametrizations.weight.original`` (``original0``, ``original1``... when ``P.right_inverse``
returns several tensors) and ``m.weight`` is a property evaluating ``P()(original)``. The module's
class is swapped for a generated subclass ``Parametrized<Class>`` that carries those properties, so
plain modules of the same class are unaffected. State dict keys follow torch.

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
import copy
from contextlib import contextmanager

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]


class _ValueCache:
    """Values of parametrized tensors, kept while at least one ``cached()`` block is open."""

    def __init__(self) -> None:
        self.depth = 0
        self.values: dict = {}

    def lookup(self, module, name, compute):
        if self.depth == 0:
            return compute()
        key = (id(module), name)
        if key not in self.values:
            self.values[key] = compute()
        return self.values[key]


_CACHE = _ValueCache()


@contextmanager
def cached():
    """Within this block each parametrized tensor is computed once, at its first access."""
    _CACHE.depth += 1
    try:
        yield
    finally:
        _CACHE.depth -= 1
        if _CACHE.depth == 0:
            _CACHE.values.clear()


def _attach(owner, name: str, value) -> None:
    """Register ``value`` on ``owner`` as a parameter if it is one, else as a buffer."""
    (owner.register_parameter if isinstance(value, Parameter) else owner.register_buffer)(name, value)


def _overwrite(target: Tensor, value: Tensor) -> None:
    """Put ``value`` into ``target`` without replacing the object (optimizers may hold it)."""
    if target.dtype == value.dtype and tuple(target.shape) == tuple(value.shape):
        target.copy_(value)
    else:
        target.set_(value)


def _type_name(x) -> str:
    return type(x).__name__


class ParametrizationList(ModuleList):
    """The chain of parametrizations of one tensor, plus its ``original`` (or ``original0..n``)."""

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape_before, dtype_before = tuple(original.shape), original.dtype

        # at registration, parametrizations without a usable right_inverse are simply skipped
        stored = original
        with no_grad():
            for fn in reversed(list(self)):
                inverse = getattr(fn, "right_inverse", None)
                if inverse is None:
                    continue
                try:
                    stored = inverse(stored)
                except NotImplementedError:
                    pass

        self.is_tensor = isinstance(stored, Tensor)
        if not self.is_tensor and not isinstance(stored, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {_type_name(original)}")
        self.ntensors = 1 if self.is_tensor else len(stored)
        if self.is_tensor:
            self._adopt_single(original, stored)
        else:
            self._adopt_many(original, stored)
        if not unsafe:
            self._check_consistent(shape_before, dtype_before)

    def _adopt_single(self, original, stored) -> None:
        if stored.dtype != original.dtype:
            raise ValueError("When `right_inverse` outputs one tensor, it may not change the "
                             f"dtype.\noriginal.dtype: {original.dtype}\n"
                             f"right_inverse(original).dtype: {stored.dtype}")
        # keep the very object the user registered (it may sit in an optimizer already)
        with no_grad():
            _overwrite(original, stored)
        _attach(self, "original", original)

    def _adopt_many(self, original, pieces) -> None:
        as_param = isinstance(original, Parameter)
        for idx, piece in enumerate(pieces):
            if not isinstance(piece, Tensor):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                 f"tensors (list, tuple...). Got element {idx} of the sequence "
                                 f"with type {_type_name(piece)}.")
            if as_param:
                piece = Parameter(piece.detach().clone(), original.requires_grad)
            piece.requires_grad_(original.requires_grad)
            _attach(self, f"original{idx}", piece)

    def _check_consistent(self, shape_before, dtype_before) -> None:
        out = self()
        if not isinstance(out, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {_type_name(out)}.")
        if out.dtype != dtype_before:
            raise ValueError("Registering a parametrization may not change the dtype of the "
                             f"tensor, unless `unsafe` flag is enabled.\nunparametrized dtype: "
                             f"{dtype_before}\nparametrized dtype: {out.dtype}")
        if tuple(out.shape) != shape_before:
            raise ValueError("Registering a parametrization may not change the shape of the "
                             f"tensor, unless `unsafe` flag is enabled.\nunparametrized shape: "
                             f"{shape_before}\nparametrized shape: {tuple(out.shape)}")

    def _originals(self) -> list:
        if self.is_tensor:
            return [self.original]
        return [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value) -> None:
        """Store ``value`` as the parametrized tensor: invert each parametrization, last first."""
        with no_grad():
            for fn in reversed(list(self)):
                if not hasattr(fn, "right_inverse"):
                    raise RuntimeError(f"parametrization {_type_name(fn)} does not "
                                       "implement right_inverse.")
                value = fn.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {_type_name(value)}")
                values = [value]
            else:
                if not isinstance(value, collections.abc.Sequence) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length "
                                     f"{self.ntensors}. Got {_type_name(value)}")
                values = list(value)
            for slot, new in zip(self._originals(), values):
                _overwrite(slot, new)

    def forward(self):
        fns = list(self)
        out = fns[0](*self._originals())
        for fn in fns[1:]:
            out = fn(out)
        return out


def _refuse_pickle(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through "
                       "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_"
                       "models.html#saving-loading-a-general-checkpoint-for-inference-and-or-"
                       "resuming-training")


def _plain_deepcopy(self, memo):
    # pickling is refused above, so deepcopy cannot go through __reduce_ex__: copy the dict directly
    if id(self) in memo:
        return memo[id(self)]
    twin = self.__new__(type(self))
    memo[id(self)] = twin
    twin.__dict__ = copy.deepcopy(self.__dict__, memo)
    return twin


def _swap_in_subclass(module) -> None:
    base = type(module)
    namespace = {"__getstate__": _refuse_pickle}
    if not hasattr(base, "__deepcopy__"):
        namespace["__deepcopy__"] = _plain_deepcopy
    module.__class__ = type("Parametrized" + base.__name__, (base,), namespace)


def _make_property(name: str) -> property:
    def fget(self):
        chain = self.parametrizations[name]
        return _CACHE.lookup(self, name, chain)

    def fset(self, value) -> None:
        self.parametrizations[name].right_inverse(value)

    return property(fget, fset)


def register_parametrization(module, tensor_name: str, parametrization, *, unsafe: bool = False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` on the stored original."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        chain = module.parametrizations[tensor_name]
        if not unsafe:
            current = getattr(module, tensor_name)
            out = parametrization(current)
            if not isinstance(out, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {_type_name(out)}.")
            if out.dtype != current.dtype or tuple(out.shape) != tuple(current.shape):
                raise ValueError("Registering a parametrization may not change the shape or dtype "
                                 "of the tensor, unless the `unsafe` flag is enabled.")
        chain.append(parametrization)
        chain.unsafe = chain.unsafe or unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    chain = ParametrizationList([parametrization], getattr(module, tensor_name), unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _swap_in_subclass(module)
        module.parametrizations = ModuleDict()
    setattr(type(module), tensor_name, _make_property(tensor_name))
    module.parametrizations[tensor_name] = chain
    return module


def is_parametrized(module, tensor_name=None) -> bool:
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    table = getattr(module, "parametrizations", None)
    if not isinstance(table, ModuleDict):
        return False
    return len(table) > 0 if tensor_name is None else tensor_name in table


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Undo ``register_parametrization``: keep the current value (or the original) as a plain
    parameter/buffer."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        keep = chain.original
        if leave_parametrized:
            with no_grad():
                _overwrite(keep, getattr(module, tensor_name))
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            value = getattr(module, tensor_name)
        keep = value.detach()
        if isinstance(chain.original0, Parameter):
            keep = Parameter(keep, value.requires_grad)
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _attach(module, tensor_name, keep)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module) -> type:
    """The module's class before parametrizations were registered."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (and their originals) of ``from_module`` onto ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for fn in source:
            register_parametrization(to_module, name, fn)
        with no_grad():
            for dst, src in zip(to_module.parametrizations[name]._originals(), source._originals()):
                _overwrite(dst, src)
    return to_module
