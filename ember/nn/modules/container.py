"""Containers (layer L4): ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``.

Example:
    >>> from ember import nn
    >>> net = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    >>> net.append(nn.Linear(3, 1))[2]
    Linear(in_features=3, out_features=1, bias=True)
    >>> len(net), len(net[:2])
    (3, 2)
"""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent, _typename

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _position(idx, size: int) -> int:
    """Normalise an integer-like index into ``[0, size)`` or raise the torch IndexError."""
    pos = operator.index(idx)
    if pos < -size or pos >= size:
        raise IndexError(f"index {pos} is out of range")
    return pos % size if size else pos


def _pairs(obj, owner: str):
    """Yield ``(key, value)`` from an iterable of 2-sequences, checking each like ``dict.update``."""
    for n, entry in enumerate(obj):
        if not isinstance(entry, Iterable):
            raise TypeError(f"{owner} update sequence element #{n} should be Iterable; "
                            f"is{type(entry).__name__}")
        if len(entry) != 2:
            raise ValueError(f"{owner} update sequence element #{n} has length {len(entry)}; "
                             "2 is required")
        yield entry[0], entry[1]


def _as_parameter(value):
    # plain tensors stored in parameter containers become Parameters; other objects stay as is
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class _IndexedModules(Module):
    """Shared machinery for module containers addressed by position."""

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules.values()))

    def __dir__(self):
        return [name for name in super().__dir__() if not name.isdigit()]

    def _key_at(self, idx) -> str:
        keys = list(self._modules)
        return keys[_position(idx, len(keys))]

    def _renumber(self) -> None:
        # after deletions children are keyed 0..n-1 again so positional access stays valid
        self._modules = OrderedDict(zip(map(str, range(len(self._modules))),
                                        self._modules.values()))

    def _shift_in(self, index: int, module) -> None:
        # slide the tail one slot right, then drop ``module`` into the freed key
        slot = len(self._modules)
        while slot > index:
            self._modules[str(slot)] = self._modules[str(slot - 1)]
            slot -= 1
        self._modules[str(index)] = module

    def __setitem__(self, idx, module) -> None:
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx) -> None:
        doomed = list(self._modules)[idx] if isinstance(idx, slice) else [self._key_at(idx)]
        for name in doomed:
            delattr(self, name)
        self._renumber()

    def pop(self, key):
        taken = self[key]
        del self[key]
        return taken

    def _push(self, modules) -> None:
        start = len(self._modules)
        for offset, module in enumerate(modules):
            self.add_module(str(start + offset), module)

    def append(self, module: Module):
        """Add ``module`` at the end; returns self."""
        self._push([module])
        return self


def _check_sequential(other) -> None:
    if not isinstance(other, Sequential):
        raise ValueError("add operator supports only objects of Sequential class, but "
                         f"{str(type(other))} is given.")


def _check_factor(seq, factor) -> None:
    if not isinstance(factor, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(seq)} and {type(factor)}")
    if factor <= 0:
        raise ValueError(f"Non-positive multiplication factor {factor} for {type(seq)}")


class Sequential(_IndexedModules):
    """Modules called in order, each on the previous output.

    Args: modules as positional arguments, or one OrderedDict of ``name -> module``.
    """

    def __init__(self, *args):
        super().__init__()
        named = args[0].items() if len(args) == 1 and isinstance(args[0], OrderedDict) else \
            ((str(n), m) for n, m in enumerate(args))
        for name, module in named:
            self.add_module(name, module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            chosen = list(self._modules.items())[idx]
            return type(self)(OrderedDict(chosen))
        return self._modules[self._key_at(idx)]

    def __add__(self, other) -> "Sequential":
        _check_sequential(other)
        joined = Sequential()
        joined._push(list(self) + list(other))
        return joined

    def __iadd__(self, other):
        _check_sequential(other)
        self._push(list(other))
        return self

    def __mul__(self, other: int) -> "Sequential":
        _check_factor(self, other)
        repeated = Sequential()
        repeated._push(list(self) * other)
        return repeated

    __rmul__ = __mul__

    def __imul__(self, other: int):
        _check_factor(self, other)
        self._push(list(self) * (other - 1))
        return self

    def forward(self, input):
        for layer in self._modules.values():
            input = layer(input)
        return input

    def insert(self, index: int, module: Module) -> "Sequential":
        """Insert ``module`` before position ``index``; returns self."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if index < -size or index > size:
            raise IndexError(f"Index out of range: {index}")
        self._shift_in(index + size if index < 0 else index, module)
        return self

    def extend(self, sequential) -> "Sequential":
        """Append every module of ``sequential``; returns self."""
        self._push(list(sequential))
        return self


class ModuleList(_IndexedModules):
    """A list of modules that registers them (indexing, slicing, append/extend/insert)."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key_at(idx)]

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other) -> "ModuleList":
        joined = ModuleList()
        joined._push(list(self) + list(other))
        return joined

    def __repr__(self) -> str:
        # consecutive children with equal reprs collapse to "(i-j): k x <repr>"
        groups = []  # [first, last, text]
        for n, child in enumerate(self):
            text = repr(child)
            if groups and groups[-1][2] == text:
                groups[-1][1] = n
            else:
                groups.append([n, n, text])
        if not groups:
            return self._get_name() + "()"
        body = []
        for first, last, text in groups:
            label = f"({first})" if first == last else f"({first}-{last}): {last - first + 1} x"
            sep = ": " if first == last else " "
            body.append(_addindent(label + sep + text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(body) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``."""
        self._shift_in(index, module)

    def extend(self, modules) -> "ModuleList":
        """Append every module of the iterable ``modules``; returns self."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            f"{type(modules).__name__}")
        self._push(list(modules))
        return self


class ModuleDict(Module):
    """An ordered dict of modules that registers them."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        self._modules.pop(key)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        """Add or replace entries from a mapping or an iterable of ``(key, module)`` pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, "
                            f"but got {type(modules).__name__}")
        source = modules.items() if isinstance(modules, (Mapping, ModuleDict)) else \
            _pairs(modules, "ModuleDict")
        for key, module in source:
            self[key] = module


def _describe(key, value, type_name) -> str:
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    dims = "x".join(map(str, value.shape))
    label = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"  ({key}): {label} containing: [{type_name(value)} of size {dims}]"


class ParameterList(Module):
    """A list of parameters (plain tensors are wrapped as Parameters) that registers them."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(self[n] for n in range(len(self))[idx])
        return getattr(self, str(_position(idx, len(self))))

    def __setitem__(self, idx, param) -> None:
        setattr(self, str(_position(idx, len(self))), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[n] for n in range(self._size))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [name for name in super().__dir__() if not name.isdigit()]

    def append(self, value) -> "ParameterList":
        """Add ``value`` at the end; returns self."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values) -> "ParameterList":
        """Append every value of the iterable ``values``; returns self."""
        if isinstance(values, Tensor) or not isinstance(values, Iterable):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__}")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_describe(n, v, lambda t: t.dtype) for n, v in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (plain tensors are wrapped as Parameters) that registers them."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key) -> str:
        if isinstance(key, str):
            return key
        raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                        f"string (type is '{type(key).__name__}'). Open an issue on github if you "
                        "need non-string keys.")

    def __getitem__(self, key: str):
        return getattr(self, self._attr(key))

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None  # torch records the key before validating it
        setattr(self, self._attr(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        self._keys.pop(key)
        delattr(self, self._attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def copy(self) -> "ParameterDict":
        return ParameterDict(OrderedDict(self.items()))

    def setdefault(self, key: str, default=None):
        if key not in self._keys:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def pop(self, key: str):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        last = next(reversed(self._keys))
        return last, self.pop(last)

    def get(self, key: str, default=None):
        return self[key] if key in self._keys else default

    def fromkeys(self, keys, default=None) -> "ParameterDict":
        return ParameterDict([(key, default) for key in keys])

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def update(self, parameters) -> None:
        """Add or replace entries from a mapping or an iterable of ``(key, value)`` pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value "
                            f"pairs, but got {type(parameters).__name__}")
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            source = parameters.items()
        elif isinstance(parameters, Mapping):
            source = sorted(parameters.items())  # plain dicts are sorted by key, as in torch
        else:
            source = _pairs(parameters, "ParameterDict")
        for key, value in source:
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_describe(k, v, _typename) for k, v in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other) -> "ParameterDict":
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other) -> "ParameterDict":
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self
