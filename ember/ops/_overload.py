"""``OpOverload`` (one schema, callable), ``OpOverloadPacket`` (an op's overloads by name) and
``OpNamespace`` (``ops.aten``, ``ops.<ns>``): the objects behind ``ember.ops.<ns>.<op>.<overload>``.

Example:
    >>> from ember.ops._schema import parse_schema
    >>> ns = OpNamespace("demo")
    >>> s = parse_schema("twice(Tensor self) -> Tensor", "demo")
    >>> ns._add(OpOverload(s, lambda x: x * 2))
    >>> ns.twice.default.name(), ns.twice.default(3), ns.twice(4)
    ('demo::twice', 6, 8)
"""
from __future__ import annotations

from typing import Callable

from .._tensor_base import TensorBase
from ..overrides import try_torch_function
from ._schema import FunctionSchema

__all__ = ["OpOverload", "OpOverloadPacket", "OpNamespace"]


def _relevant(args, kwargs) -> list:
    """Arguments that may override ``__torch_function__`` (lists of tensors count element-wise)."""
    out = []
    for a in (*args, *kwargs.values()):
        if type(a) is list or type(a) is tuple:
            out.extend(a)
        else:
            out.append(a)
    return out


class OpOverload:
    """One overload of an operator: ``name()``, ``_schema``, ``overloadpacket``, callable."""

    def __init__(self, schema: FunctionSchema, impl: Callable, packet: "OpOverloadPacket" = None):
        ns, _, op = schema.name.partition("::")
        self._schema = schema
        self._op = impl
        self.namespace = ns
        self._opname = op
        self._overloadname = schema.overload_name or "default"
        self.__name__ = f"{op}.{self._overloadname}"
        self.__qualname__ = self.__name__
        self.__module__ = f"ember.ops.{ns}"  # fx code generation writes ember.ops.<ns>.<op>.<overload>
        self.overloadpacket = packet

    @property
    def op(self) -> Callable:
        return self._op

    def name(self) -> str:
        return self._schema.name + (f".{self._schema.overload_name}" if self._schema.overload_name
                                    else "")

    def __call__(self, *args, **kwargs):
        r = try_torch_function(self, _relevant(args, kwargs), *args, **kwargs)
        if r is not NotImplemented:
            return r
        return self._op(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self.namespace}.{self._opname}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self.namespace}.{self._opname}.{self._overloadname}"

    def __reduce__(self):  # pickles by name, as torch's overloads do
        return (_resolve_overload, (self.namespace, self._opname, self._overloadname))


class OpOverloadPacket:
    """All overloads of one op: ``packet.<overload>``, ``packet.default``, ``packet(*args)`` (the first
    overload whose schema accepts the arguments' kinds)."""

    def __init__(self, namespace: str, name: str):
        self.namespace = namespace
        self._opname = name
        self._qualified_op_name = f"{namespace}::{name}"
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = f"ember.ops.{namespace}"
        self._overloads: dict = {}

    def _add(self, overload: OpOverload) -> None:
        overload.overloadpacket = self
        self._overloads[overload._overloadname] = overload

    def overloads(self) -> list:
        return list(self._overloads)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self.__dict__["_overloads"][name]
        except KeyError:
            raise AttributeError(f"The underlying op of '{self.namespace}.{self._opname}' has no "
                                 f"overload name '{name}'") from None

    @property
    def _schemas(self) -> dict:
        return {k: v._schema for k, v in self._overloads.items()}

    def __call__(self, *args, **kwargs):
        r = try_torch_function(self, _relevant(args, kwargs), *args, **kwargs)
        if r is not NotImplemented:
            return r
        overloads = list(self._overloads.values())
        if len(overloads) == 1:
            return overloads[0]._op(*args, **kwargs)
        for ov in overloads:
            if _accepts(ov._schema, args, kwargs):
                return ov._op(*args, **kwargs)
        raise RuntimeError(f"{self._qualified_op_name}() Expected a value of type matching one of "
                           f"the overloads {self.overloads()} for the given arguments")

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self.namespace}.{self._opname}')>"

    def __str__(self) -> str:
        return f"{self.namespace}.{self._opname}"

    def __reduce__(self):
        return (_resolve_packet, (self.namespace, self._opname))


def _accepts(schema: FunctionSchema, args: tuple, kwargs: dict) -> bool:
    """Whether the call fits the schema's argument count and Tensor/non-Tensor positions."""
    try:
        values = schema.bind(args, kwargs)
    except TypeError:
        return False
    for a, v in zip(schema.arguments, values):
        if a.is_tensor and not isinstance(v, TensorBase) and not (a.optional and v is None):
            return False
        if not a.is_tensor and not a.is_tensor_list and isinstance(v, TensorBase):
            return False
    return True


class OpNamespace:
    """``ops.<ns>``: its op packets by name; unknown names raise AttributeError naming them."""

    def __init__(self, name: str):
        self.name = name
        self.__name__ = f"ember.ops.{name}"
        self._packets: dict = {}

    def _add(self, overload: OpOverload) -> None:
        op = overload._opname
        packet = self._packets.get(op)
        if packet is None:
            packet = self._packets[op] = OpOverloadPacket(self.name, op)
        packet._add(overload)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self.__dict__["_packets"][name]
        except KeyError:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                 f"'{name}'") from None

    def __dir__(self):
        return sorted(self._packets)

    def __iter__(self):
        return iter(sorted(self._packets))

    def __repr__(self) -> str:
        return f"<module 'ember.ops.{self.name}' from 'ember.ops'>"


def _resolve_packet(namespace: str, name: str):
    import sys
    return getattr(getattr(sys.modules["ember.ops"], namespace), name)


def _resolve_overload(namespace: str, name: str, overload: str):
    return getattr(_resolve_packet(namespace, name), overload)
