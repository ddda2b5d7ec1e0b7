"""``ember.ops``: torch's operator namespace (``torch.ops``).

- ``ember.ops.aten.<op>.<overload>``: torch's aten overloads for ember's primitives and for the
  composites torch registers as aten ops, e.g. ``ops.aten.add.Tensor``, ``ops.aten.mm.default``,
  ``ops.aten.convolution.default``, ``ops.aten.native_layer_norm.default``. Each is an
  ``OpOverload``: callable, with ``name()``, ``_schema`` (torch's text), ``overloadpacket``; packets
  have ``.default`` (where torch has one) and ``overloads()``. The table is ``_aten_table.TABLE``.
- ``ember.ops.<ns>.<op>``: operators defined with ``ember.library`` (``custom_op``, ``Library.define``).
- ``ember.ops.load_library(path)`` raises ``OSError``: ember loads no compiled extensions.
- From a primitive to aten (for graphs recorded at the primitive level, make_fx / AOT autograd):
  ``aten_overloads(opdef)`` lists the overloads standing for an ``OpDef``
  (``ember._primitives.REGISTRY[name]``); ``to_aten_call(opdef, args, params)`` rewrites one
  ``dispatch(opdef, *args, **params)`` call as ``(overload, args, kwargs)`` computing the same;
  ``PRIMITIVES_WITHOUT_ATEN`` names the primitives no overload stands for, with the reason. A custom
  operator's ``OpDef`` (``ember.library``) maps to its own ``ops.<ns>.<op>`` overload.

Example:
    >>> import ember
    >>> ember.ops.aten.add.Tensor(ember.ones(2), ember.ones(2), alpha=3).tolist()
    [4.0, 4.0]
    >>> ember.ops.aten.mm.default.name(), str(ember.ops.aten.add.Scalar._schema)
    ('aten::mm', 'aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor')
    >>> from ember._primitives import REGISTRY
    >>> [str(o) for o in aten_overloads(REGISTRY["mul"])]
    ['aten.mul.Tensor', 'aten.mul.Scalar']
"""
from __future__ import annotations

from ._aten import PRIMITIVES_WITHOUT_ATEN, aten, aten_overloads, to_aten_call
from ._overload import OpNamespace, OpOverload, OpOverloadPacket

__all__ = ["aten", "load_library", "aten_overloads", "to_aten_call", "PRIMITIVES_WITHOUT_ATEN",
           "OpOverload", "OpOverloadPacket", "OpNamespace"]

_NAMESPACES: dict = {"aten": aten}  # ember.library adds its namespaces here
loaded_libraries: set = set()


def load_library(path) -> None:
    """torch loads a compiled operator library here; ember has none to load, so this raises
    ``OSError`` (the error torch raises for a library it cannot load, which callers guard against)."""
    raise OSError(f"Could not load this library: {path} (ember runs no compiled C++/CUDA "
                  "extensions; define custom operators in Python with ember.library)")


def namespace(name: str, create: bool = False) -> OpNamespace:
    """The namespace ``ops.<name>`` (made when ``create``; ember.library creates them)."""
    ns = _NAMESPACES.get(name)
    if ns is None:
        if not create:
            raise AttributeError(f"module 'ember.ops' has no attribute '{name}': no operator "
                                 f"namespace '{name}' is defined")
        ns = _NAMESPACES[name] = OpNamespace(name)
    return ns


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    ns = _NAMESPACES.get(name)
    if ns is None:
        raise AttributeError(f"module 'ember.ops' has no attribute '{name}': no operator namespace "
                             f"'{name}' is defined (ember.library defines them)")
    return ns
