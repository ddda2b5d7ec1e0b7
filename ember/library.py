"""``ember.library``: define operators in Python (torch.library's API).

A custom operator dispatches through ember's one path like a primitive: dispatch modes see it,
meta tensors run its fake rule, autograd runs its registered formula (torch's RuntimeError when none
is registered and a gradient is needed), fx records it as one node, and it is reachable as
``ember.ops.<ns>.<name>``. Registrations for an operator nobody defined (libraries whose compiled
kernels ember cannot load, e.g. ``torchvision::nms``) are accepted; calling it raises
NotImplementedError saying its compiled kernel is not available.

Example:
    >>> import ember
    >>> @custom_op("doclib::scale", mutates_args=())
    ... def scale(x: ember.Tensor, factor: float) -> ember.Tensor:
    ...     return x * factor
    >>> @scale.register_fake
    ... def _(x, factor):
    ...     return ember.empty_like(x)
    >>> scale(ember.ones(2), 3.0).tolist(), ember.ops.doclib.scale.default(ember.ones(1), 2.0).tolist()
    ([3.0, 3.0], [2.0])
    >>> scale(ember.empty(4, device="meta"), 2.0).shape
    torch.Size([4])
"""
from __future__ import annotations

import inspect
import typing
from typing import Callable, Iterable

from ._device import device as _device_type
from ._dtype import dtype as _dtype_type
from ._library._operator import Operator, get_operator
from ._tensor import Tensor
from ._tensor_base import TensorBase
from .autograd.gradcheck import gradcheck
from .ops._overload import OpOverload

__all__ = ["Library", "custom_op", "define", "impl", "register_fake", "register_kernel",
           "register_autograd", "opcheck", "infer_schema", "get_ctx", "CustomOpDef",
           "fallthrough_kernel", "impl_abstract"]

_FAKE_KEYS = ("Meta", "Fake")
_KERNEL_KEYS = ("", "CPU", "CompositeExplicitAutograd", "Default")
_COMPOSITE_KEYS = ("CompositeImplicitAutograd", "Autograd", "AutogradCPU")


def _operator_of(op) -> Operator:
    if isinstance(op, CustomOpDef):
        return op._op
    if isinstance(op, OpOverload):
        return get_operator(op.name())
    if isinstance(op, str):
        return get_operator(op)
    packet_name = getattr(op, "_qualified_op_name", None)
    if packet_name is not None:
        return get_operator(packet_name)
    raise TypeError(f"expected an operator name 'ns::name', an OpOverload or a CustomOpDef, got "
                    f"{type(op).__name__}")


def fallthrough_kernel():
    """A placeholder torch uses to skip a dispatch key; ember has no keys to skip."""
    raise NotImplementedError("fallthrough_kernel should never be called")


class Library:
    """``Library(ns, kind)``: ``kind`` "DEF" (define new ops), "IMPL" (implement existing ones) or
    "FRAGMENT" (both)."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = ""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in ("aten",) and kind == "DEF":
            raise ValueError(f"Creating a DEF library for namespace {ns} is not allowed")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._op_defs: set = set()

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags=()) -> str:
        """Define ``name(args) -> returns`` in this namespace; returns the op's name."""
        if self.kind == "IMPL":
            raise RuntimeError("define() is not allowed on an IMPL library")
        name = schema.split("(")[0]
        op = get_operator(f"{self.ns}::{name}")
        op.define(schema)
        self._op_defs.add(op.qualname)
        return name

    def impl(self, op_name, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = False) -> None:
        """Register ``fn`` for ``op_name`` under ``dispatch_key`` (CPU/Meta/Autograd/...)."""
        if isinstance(op_name, str) and "::" not in op_name:
            op_name = f"{self.ns}::{op_name}"
        if fn is fallthrough_kernel:
            return
        _register_impl(_operator_of(op_name), fn, dispatch_key or self.dispatch_key)

    def fallback(self, fn, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        pass  # ember has no dispatch keys to fall back through

    def _destroy(self) -> None:
        pass


def _register_impl(op: Operator, fn: Callable, key: str) -> None:
    if key in _FAKE_KEYS:
        op.fake = fn
    elif key in _KERNEL_KEYS:
        op.kernels[None] = fn
    elif key in _COMPOSITE_KEYS:
        op.composite = fn
    else:
        op.other_impls[key] = fn  # CUDA, autocast, functionalize...: not used on ember's CPU path


def define(qualname: str, schema: str, *, lib=None, tags=()) -> None:
    """``define("ns::name", "(Tensor x) -> Tensor")``."""
    op = get_operator(qualname)
    op.define(schema)


def impl(qualname, types, func: Callable | None = None, *, lib=None):
    """Register a kernel for ``qualname`` on device ``types`` ("cpu", or a dispatch key)."""
    def register(fn):
        for t in ([types] if isinstance(types, str) else list(types)):
            key = {"cpu": "CPU", "default": "", "meta": "Meta"}.get(t, t)
            _register_impl(_operator_of(qualname), fn, key)
        return fn
    return register(func) if func is not None else register


def register_kernel(op, device_types, func: Callable | None = None, *, lib=None):
    """Register ``func`` as ``op``'s kernel for ``device_types`` (None: every device)."""
    def register(fn):
        o = _operator_of(op)
        types = [device_types] if device_types is None or isinstance(device_types, str) \
            else list(device_types)
        for t in types:
            o.kernels[t] = fn
        return fn
    return register(func) if func is not None else register


def register_fake(op, func: Callable | None = None, *, lib=None, _stacklevel: int = 1,
                  allow_override: bool = False):
    """Register ``op``'s fake rule: given meta/fake tensors, return outputs of the right shapes."""
    def register(fn):
        _operator_of(op).fake = fn
        return fn
    return register(func) if func is not None else register


impl_abstract = register_fake  # torch's older name


def register_autograd(op, backward: Callable, *, setup_context: Callable | None = None,
                      lib=None) -> None:
    """``backward(ctx, *grads)`` returns one gradient per input; ``setup_context(ctx, inputs,
    output)`` saves what backward needs."""
    o = _operator_of(op)
    o.backward, o.setup_context = backward, setup_context


class _Ctx:
    def new_dynamic_size(self, *, min=0, max=None):
        raise NotImplementedError("data-dependent output sizes are not supported by ember's fake "
                                  "tensors (meta tensors raise for them, as for nonzero)")

    create_unbacked_symint = new_dynamic_size


def get_ctx() -> _Ctx:
    """The context fake rules use for data-dependent sizes."""
    return _Ctx()


# ----------------------------------------------------------------------------- custom_op
class CustomOpDef:
    """What ``custom_op`` returns: callable, with ``register_fake``/``register_kernel``/
    ``register_autograd`` and ``_opoverload`` (``ember.ops.<ns>.<name>.default``)."""

    def __init__(self, op: Operator, fn: Callable):
        self._op = op
        self._namespace, self._name = op.ns, op.name
        self._init_fn = fn
        self.__name__ = op.name
        self.__doc__ = fn.__doc__

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._op.qualname})>"

    @property
    def _opoverload(self) -> OpOverload:
        return self._op.overload

    def __call__(self, *args, **kwargs):
        return self._op.overload(*args, **kwargs)

    def register_fake(self, fn: Callable) -> Callable:
        self._op.fake = fn
        return fn

    def register_kernel(self, device_types, fn: Callable | None = None):
        return register_kernel(self, device_types, fn)

    def register_autograd(self, backward: Callable, *, setup_context: Callable | None = None):
        register_autograd(self, backward, setup_context=setup_context)


def custom_op(name: str, fn: Callable | None = None, /, *, mutates_args, device_types=None,
              schema: str | None = None):
    """Turn a Python function into operator ``name`` ("ns::op"); its schema is inferred from type
    hints unless given. ``mutates_args`` names the arguments it writes in place ("unknown": all)."""
    def wrap(func):
        op = get_operator(name)
        text = schema if schema is not None else infer_schema(func, mutates_args=mutates_args)
        op.define(text)
        types = [device_types] if device_types is None or isinstance(device_types, str) \
            else list(device_types)
        for t in types:
            op.kernels[t] = func
        return CustomOpDef(op, func)
    return wrap(fn) if fn is not None else wrap


def _type_text(hint, name: str, func) -> str:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Union or type(hint).__name__ == "UnionType":
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _type_text(rest[0], name, func) + "?"
    if origin in (list, typing.List, Iterable) or (origin is not None and getattr(origin, "__name__", "")
                                                    == "Sequence"):
        return _type_text(args[0], name, func) + "[]" if args else "Tensor[]"
    simple = {Tensor: "Tensor", TensorBase: "Tensor", int: "SymInt", float: "float", bool: "bool",
              str: "str", _dtype_type: "ScalarType", _device_type: "Device"}
    if hint in simple:
        return simple[hint]
    if hint is complex or getattr(hint, "__name__", "") == "Number":
        return "Scalar"
    raise ValueError(f"infer_schema(func): Parameter {name} has unsupported type {hint}. Got func "
                     f"with signature {inspect.signature(func)})")


def _default_text(v) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)


def infer_schema(prototype_function: Callable, /, *, mutates_args, op_name: str | None = None) -> str:
    """The schema string of a type-annotated function, as torch infers it."""
    sig = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)
    parts, kw_marked = [], False
    if mutates_args != "unknown":
        unknown = set(mutates_args) - set(sig.parameters)
        if unknown:
            raise ValueError(f"infer_schema(func): {sorted(unknown)[0]} in mutates_args were not "
                             f"found in the custom op's signature.")
    for idx, (pname, p) in enumerate(sig.parameters.items()):
        if p.kind == p.KEYWORD_ONLY and not kw_marked:
            parts.append("*")
            kw_marked = True
        if pname not in hints:
            raise ValueError(f"infer_schema(func): Parameter {pname} must have a type annotation.")
        t = _type_text(hints[pname], pname, prototype_function)
        if t.startswith("Tensor") and (mutates_args == "unknown" or pname in mutates_args):
            t = t.replace("Tensor", f"Tensor(a{idx}!)", 1)
        d = "" if p.default is p.empty else f"={_default_text(p.default)}"
        parts.append(f"{t} {pname}{d}")
    ret = hints.get("return", inspect.Signature.empty)
    if ret is None or ret is type(None):
        rtext = "()"
    elif typing.get_origin(ret) is tuple:
        rtext = "(" + ", ".join(_type_text(a, "return", prototype_function)
                                for a in typing.get_args(ret)) + ")"
    else:
        rtext = _type_text(ret, "return", prototype_function)
    return f"{op_name or ''}({', '.join(parts)}) -> {rtext}"


# ----------------------------------------------------------------------------- opcheck
def _clone_tree(v, requires_grad=True, device=None):
    if isinstance(v, TensorBase):
        c = v.detach().clone() if device is None else v.detach().to(device)
        if requires_grad and v.requires_grad:
            c.requires_grad_(True)
        return c
    if type(v) in (list, tuple):
        return type(v)(_clone_tree(x, requires_grad, device) for x in v)
    return v


def _tensors(v):
    if isinstance(v, TensorBase):
        return [v]
    if type(v) in (list, tuple):
        return [t for x in v for t in _tensors(x)]
    return []


def opcheck(op, args: tuple, kwargs: dict | None = None, *, test_utils=None,
            raise_exception: bool = True, atol=None, rtol=None) -> dict:
    """Check a custom op on one sample: schema (declared mutations only), fake rule (meta outputs
    match real ones), autograd registration, and a gradcheck of its backward (float64 inputs that
    require grad). Returns ``{test name: "SUCCESS" or the exception}``."""
    kwargs = kwargs or {}
    o = _operator_of(op)
    overload = o.overload
    results = {}

    def run(name, check):
        try:
            check()
            results[name] = "SUCCESS"
        except Exception as e:  # noqa: BLE001 - reported per check, as torch's opcheck does
            if raise_exception:
                raise
            results[name] = e

    def schema_check():
        a, kw = _clone_tree(args, False), _clone_tree(kwargs, False)
        before = [t.clone() for t in _tensors((a, kw))]
        overload(*a, **kw)
        values = o.schema.bind(a, kw)
        allowed = {id(t) for i in o.mutated for t in _tensors(values[i])}
        for t, old in zip(_tensors((a, kw)), before):
            if id(t) not in allowed and not bool((t == old).all() | (t.isnan() & old.isnan()).all()):
                raise RuntimeError(f"opcheck: {o.qualname} mutated an input that its schema "
                                   f"({o.schema}) does not declare as mutable")

    def fake_check():
        real = overload(*_clone_tree(args, False), **_clone_tree(kwargs, False))
        fake = overload(*_clone_tree(args, False, "meta"), **_clone_tree(kwargs, False, "meta"))
        for r, f in zip(_tensors(real), _tensors(fake)):
            if tuple(r.shape) != tuple(f.shape) or r.dtype != f.dtype:
                raise RuntimeError(f"opcheck: {o.qualname}'s fake rule gives {tuple(f.shape)} "
                                   f"{f.dtype} where the kernel gives {tuple(r.shape)} {r.dtype}")

    def autograd_check():
        needs = any(t.requires_grad for t in _tensors((args, kwargs)))
        if needs and o.backward is None and o.composite is None:
            out = _tensors(overload(*args, **kwargs))
            if any(t.dtype.is_floating_point or t.dtype.is_complex for t in out):
                raise RuntimeError(f"opcheck: {o.qualname} takes inputs that require grad but has "
                                   "no autograd formula; use register_autograd")

    def gradcheck_check():
        leaves = [t for t in _tensors((args, kwargs)) if t.requires_grad]
        if o.backward is None or not leaves or any(t.dtype.itemsize != 8 for t in leaves):
            return
        ids = [id(t) for t in leaves]

        def fn(*ts):
            mapping = dict(zip(ids, ts))

            def sub(v):
                if isinstance(v, TensorBase):
                    return mapping.get(id(v), v)
                if type(v) in (list, tuple):
                    return type(v)(sub(x) for x in v)
                return v
            return overload(*sub(args), **sub(kwargs))
        gradcheck(fn, tuple(leaves), atol=atol or 1e-5, rtol=rtol or 1e-3)

    run("test_schema", schema_check)
    run("test_autograd_registration", autograd_check)
    run("test_faketensor", fake_check)
    run("test_aot_dispatch_dynamic", gradcheck_check)  # in ember: a gradcheck of the backward
    return results
