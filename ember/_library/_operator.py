"""A Python-defined operator (``ember.library``): schema, kernels, fake rule and autograd formula,
run through ember's one dispatch path as an ``OpDef`` like any primitive.

The operator's ``OpDef`` takes every schema argument positionally. Its kernel wraps the NumPy arrays
dispatch hands it back into Tensors and calls the user's kernel; its meta rule calls the fake rule
(meta/fake tensors); its derivative runs ``setup_context`` then ``backward``. Dispatch modes see the
``OpDef`` (``opdef.overload`` is the ``ember.ops.<ns>.<op>.<overload>`` object); fx's Proxy sees the
overload (one node).

Example:
    >>> import ember
    >>> op = Operator("demo_doc", "twice", "default")
    >>> op.define("twice(Tensor x) -> Tensor")
    >>> op.kernels[None] = lambda x: x * 2
    >>> op.overload(ember.ones(2)).tolist()
    [2.0, 2.0]
"""
from __future__ import annotations

import inspect

import numpy as np

from .._dispatch import dispatch, wrap
from .._primitives import REGISTRY, OpDef, TensorMeta
from .._tensor_base import TensorBase
from ..ops import namespace as _ops_namespace
from ..ops._overload import OpOverload
from ..ops._schema import FunctionSchema, parse_schema

__all__ = ["Operator", "get_operator", "OPERATORS"]

OPERATORS: dict = {}  # "ns::name.overload" -> Operator


def get_operator(qualname: str, create: bool = True) -> "Operator":
    """The operator for ``ns::name`` or ``ns::name.overload`` (made on first registration)."""
    ns, sep, rest = qualname.partition("::")
    if not sep or not ns or not rest:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator name "
                         "should look something like ns::foo")
    name, _, overload = rest.partition(".")
    key = f"{ns}::{name}.{overload or 'default'}"
    op = OPERATORS.get(key)
    if op is None:
        if not create:
            raise RuntimeError(f"operator {qualname} does not exist")
        op = OPERATORS[key] = Operator(ns, name, overload or "default")
        if ns != "aten":  # ops.aten is ember's fixed table; kernels registered for it go unused
            packets = _ops_namespace(ns, create=True)._packets
            packets.setdefault(name, _Undefined(op))  # until defined, calling it says why it can't run
    return op


class _Undefined:
    """``ops.<ns>.<name>`` of an operator that has Python registrations (fake, autograd) but no
    definition: its schema and kernel live in a compiled extension ember cannot load."""

    def __init__(self, op: "Operator"):
        self._op = op
        self.__name__ = op.name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self  # ops.<ns>.<name>.default

    def __call__(self, *args, **kwargs):
        op = self._op
        if op.kernels or op.composite is not None:
            raise NotImplementedError(f"{op.qualname} has Python kernels but was never defined (no "
                                      "schema): define it first (Library.define / "
                                      "ember.library.define / custom_op)")
        op.kernel_for("cpu")  # raises: its compiled kernel is not available

    def __repr__(self) -> str:
        return f"<undefined operator {self._op.qualname} (compiled kernel not available)>"


class _Ctx:
    """``ctx`` of ``setup_context``/``backward``: save_for_backward, saved_tensors, needs_input_grad."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self.to_save = ()

    def save_for_backward(self, *tensors) -> None:
        self.to_save = tensors

    @property
    def saved_tensors(self) -> tuple:
        return tuple(self.to_save)

    def mark_non_differentiable(self, *args) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class Operator:
    """One operator overload defined from Python."""

    def __init__(self, ns: str, name: str, overload: str):
        self.ns, self.name, self.overload_name = ns, name, overload
        self.qualname = f"{ns}::{name}"
        self.schema: FunctionSchema | None = None
        self.kernels: dict = {}  # device type (None: any) -> fn(*tensors_and_values)
        self.composite = None  # CompositeImplicitAutograd / Autograd impls: called directly
        self.fake = None
        self.backward = None
        self.setup_context = None
        self.other_impls: dict = {}  # dispatch keys ember has no use for (autocast...), kept
        self.opdef: OpDef | None = None
        self.overload: OpOverload | None = None
        self.mutated: tuple = ()

    def __repr__(self) -> str:
        return f"<Operator({self.qualname}.{self.overload_name})>"

    # ------------------------------------------------------------------ definition
    def define(self, schema_text: str) -> None:
        if self.schema is not None:
            raise RuntimeError(f"Tried to register an operator ({self.qualname}) with the same "
                               "name and overload name multiple times.")
        text = schema_text if schema_text.startswith(self.name) else self.name + schema_text
        head, paren, tail = text.partition("(")
        if self.overload_name != "default" and "." not in head:
            text = f"{head}.{self.overload_name}{paren}{tail}"
        schema = parse_schema(text, self.ns)
        self.schema = schema
        self.mutated = tuple(i for i, a in enumerate(schema.arguments) if a.mutable)
        self.opdef = _make_opdef(self)
        self.overload = OpOverload(schema, self._call)
        self.opdef.overload = self.overload
        ns = _ops_namespace(self.ns, create=True)
        if isinstance(ns._packets.get(self.name), _Undefined):
            del ns._packets[self.name]
        ns._add(self.overload)

    def _call(self, *args, **kwargs):
        if self.composite is not None:
            return self.composite(*args, **kwargs)
        values = self.schema.bind(args, kwargs)
        out = dispatch(self.opdef, *values)
        for i in self.mutated:
            t = values[i]
            if isinstance(t, TensorBase):
                t._version_cell().value += 1
        rt = self.schema.returns_text
        if rt == "()":
            return None
        if rt.endswith("[]"):
            return list(out)
        return out

    def kernel_for(self, device_type: str):
        fn = self.kernels.get(device_type) or self.kernels.get(None)
        if fn is None:
            if not self.kernels:
                raise NotImplementedError(
                    f"{self.qualname}: this operator has no kernel in ember. Its compiled kernel "
                    "(from a C++ extension loaded with torch.ops.load_library) is not available: "
                    "ember runs no compiled extensions; only its Python registrations "
                    f"({', '.join(self._registered()) or 'none'}) exist.")
            raise NotImplementedError(f"{self.qualname}: no kernel registered for device type "
                                      f"'{device_type}' (registered: {sorted(map(str, self.kernels))})")
        return fn

    def _registered(self) -> list:
        return [n for n, v in (("fake", self.fake), ("autograd", self.backward)) if v is not None]


def _n_outputs(returns: str):
    if returns == "()":
        return 0
    if returns.endswith("[]"):
        return None  # a list of tensors: dispatch wraps each
    if returns.startswith("("):
        return len([r for r in returns[1:-1].split(",") if r.strip()])
    return 1


def _unwrap_out(r, qualname):
    if isinstance(r, TensorBase):
        return r._data
    if r is None:
        return None
    raise TypeError(f"{qualname}: the kernel must return Tensors, got {type(r).__name__}")


def _make_opdef(op: Operator) -> OpDef:
    schema = op.schema
    n_args = len(schema.arguments)
    names = tuple(f"arg{i}" for i in range(n_args))
    n_out = _n_outputs(schema.returns_text)

    def kernel(*arrays):
        args = [wrap(a) if type(a) is np.ndarray else
                [wrap(x) if type(x) is np.ndarray else x for x in a] if type(a) is list else a
                for a in arrays]
        res = op.kernel_for("cpu")(*args)
        if n_out == 1:
            return _unwrap_out(res, op.qualname)
        if n_out == 0:
            return ()
        return [_unwrap_out(r, op.qualname) for r in res]
    kernel.__signature__ = _positional_signature(names)
    kernel.__name__ = op.name

    node_name = f"GeneratedBackwardFor_{op.ns}_{op.name}_{op.overload_name}Backward"
    opdef = OpDef(op.qualname + ("" if op.overload_name == "default" else f".{op.overload_name}"),
                  kernel, "other", num_outputs=n_out if n_out is not None else 2,
                  node_name=node_name)
    REGISTRY.pop(opdef.name, None)  # not a primitive: the op database and kernel audits skip it

    @opdef.meta
    def _(*args):
        if op.fake is None:
            raise RuntimeError(f"There was no fake impl registered for <CustomOpDef({op.qualname})>. "
                               "This is necessary for torch.compile/export/fx tracing to work. "
                               "Please use `register_fake` to add an fake impl.")
        res = op.fake(*args)
        if n_out == 1:
            return _meta_of(res)
        return tuple(_meta_of(r) for r in res)

    if n_out != 0:
        _set_derivative(op, opdef, names)
    return opdef


def _meta_of(t):
    return TensorMeta(t.shape, t.dtype, t.stride(), t.storage_offset())


def _positional_signature(names):
    return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                              for n in names])


def _set_derivative(op: Operator, opdef: OpDef, names: tuple) -> None:
    schema = op.schema

    def derivative(grad, *saved, needs_input_grad=()):
        if op.backward is None:
            raise RuntimeError(f"Trying to backward through {op.ns}.{op.name}.{op.overload_name} but "
                               "no autograd formula was registered. Please use register_autograd "
                               "to add one.")
        inputs, outs = saved[:-1], saved[-1]
        needs, k = [], 0
        for a, v in zip(schema.arguments, inputs):
            if type(v) in (list, tuple):
                needs.append(any(needs_input_grad[k:k + len(v)]))
                k += len(v)
            else:
                needs.append(bool(needs_input_grad[k]) if k < len(needs_input_grad) else False)
                k += 1
        ctx = _Ctx(tuple(needs))
        output = outs[0] if opdef.num_outputs == 1 else tuple(outs)
        if op.setup_context is not None:
            op.setup_context(ctx=ctx, inputs=tuple(inputs), output=output)
        grads = op.backward(ctx, grad) if opdef.num_outputs == 1 else op.backward(ctx, *grad)
        if not isinstance(grads, (tuple, list)) or (len(inputs) == 1 and isinstance(grads, list)):
            grads = (grads,)
        if len(grads) != len(inputs):
            raise RuntimeError(f"{op.qualname}: backward returned {len(grads)} gradients, expected "
                               f"one per input ({len(inputs)})")
        flat = []
        for v, g in zip(inputs, grads):
            if type(v) in (list, tuple):
                flat.extend(g if g is not None else [None] * len(v))
            else:
                flat.append(g if isinstance(v, TensorBase) else None)
        return tuple(flat)

    P = inspect.Parameter
    derivative.__signature__ = inspect.Signature(
        [P("grad", P.POSITIONAL_OR_KEYWORD)] + [P(n, P.POSITIONAL_OR_KEYWORD) for n in names] +
        [P("outs", P.POSITIONAL_OR_KEYWORD), P("needs_input_grad", P.KEYWORD_ONLY, default=())])
    opdef.derivative(derivative)
