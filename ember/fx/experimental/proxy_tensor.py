"""make_fx: trace a function at the primitive level into an fx graph (layer L6).

``make_fx(fn, tracing_mode="fake")(*args)`` runs ``fn`` under a dispatch mode that records every
primitive call as a ``call_function`` node whose target is torch's aten overload for it
(``ember.ops.aten.mm.default``; ``_graph_call`` rewrites the arguments to the overload's schema);
``node.meta["val"]`` holds a meta tensor with the value's shape, strides and dtype and
``node.meta["ember_op"]`` the primitive. The few primitives no aten overload stands for
(``ember.ops.PRIMITIVES_WITHOUT_ATEN``) are recorded as calls of the primitive itself.
"fake" (and "symbolic", whose shapes are specialised) trace on meta tensors, "real" on the inputs.

In-place writes are functionalised while tracing: a dispatch mode only sees the out-of-place op, and
the core reports the write (``_dispatch_inplace.WRITE_HOOKS``), so the written tensor is rebound to
the op's result; a write through a view rebuilds the base with ``as_strided_scatter`` and other views
of it are re-derived with ``as_strided`` when next read. Inputs mutated by ``fn`` are written back
at the end of the graph (``copy_``), or returned as extra outputs (AOT autograd's functional graphs).

Example:
    >>> import ember
    >>> gm = make_fx(lambda x: ember.relu(x) * 2, tracing_mode="fake")(ember.randn(3))
    >>> [n.meta["ember_op"].name for n in gm.graph.nodes if n.op == "call_function"]
    ['relu', 'mul']
    >>> gm(ember.tensor([-1.0, 2.0])).tolist()
    [0.0, 4.0]
"""
from __future__ import annotations

import operator

from ... import random as _random
from ..._device import CPU, META
from ..._dispatch import wrap_meta
from ..._dispatch_inplace import WRITE_HOOKS
from ..._primitives import creation as _C
from ..._primitives import pointwise as _P
from ..._primitives import pointwise_math as _PM
from ..._primitives import view as _V
from ..._primitives._registry import OpDef
from ..._tensor_base import TensorBase
from ...ops import aten_overloads, to_aten_call
from ...utils import _pytree as pytree
from ...utils._python_dispatch import TorchDispatchMode
from ..graph import Graph
from ..graph_module import GraphModule

__all__ = ["make_fx", "ProxyTorchDispatchMode", "get_isolated_graphmodule"]


# ------------------------------------------------------------------------------ graph targets
class _PrimitiveTarget:
    """A graph target calling one ember primitive that no aten overload stands for."""

    def __init__(self, op: OpDef) -> None:
        self.op = op
        self.__name__ = self.__qualname__ = op.name
        self.__module__ = ""  # not importable by name: fx codegen binds it as a global

    def __call__(self, *args, **kwargs):
        if self.op.kind == "random" and kwargs.get("generator", 0) is None:
            kwargs = {**kwargs, "generator": _random.default_generator}
        return self.op(*args, **kwargs)

    def __repr__(self) -> str:
        return f"ember_prim.{self.op.name}"

    def __reduce__(self):
        return (_primitive_target, (self.op.name,))

    def __deepcopy__(self, memo):
        return self


_TARGETS: dict = {}


def _primitive_target(name: str) -> _PrimitiveTarget:
    from ..._primitives._registry import REGISTRY
    op = REGISTRY[name]
    t = _TARGETS.get(op)
    if t is None:
        t = _TARGETS[op] = _PrimitiveTarget(op)
    return t


def _target_for(op: OpDef, args: tuple, params: dict):
    """The target recording a primitive without an aten overload."""
    t = _TARGETS.get(op)
    if t is None:
        t = _TARGETS[op] = _PrimitiveTarget(op)
    return t


def _graph_call(op: OpDef, call_args: tuple, node_args: tuple, params: dict) -> tuple:
    """(target, args, kwargs) of the node recording ``dispatch(op, *call_args, **params)``;
    ``node_args`` mirror ``call_args`` with graph nodes in place of tensors."""
    try:
        overload, args, kwargs = to_aten_call(op, call_args, params)
    except LookupError:  # a primitive no aten overload stands for (PRIMITIVES_WITHOUT_ATEN)
        return _target_for(op, call_args, params), tuple(node_args), dict(params)
    nodes = {id(t): n for t, n in zip(pytree.tree_leaves(list(call_args)),
                                      pytree.tree_leaves(list(node_args)))
             if isinstance(t, TensorBase)}

    def to_node(v):
        return nodes.get(id(v), v) if isinstance(v, TensorBase) else v
    return overload, tuple(pytree.tree_map(to_node, list(args))), pytree.tree_map(to_node, kwargs)


def _decomposition_keys(op: OpDef) -> list:
    """What a ``decomposition_table`` may name ``op`` by."""
    return [op, *aten_overloads(op), _target_for(op, (), {})]


def _key(t) -> int:
    """Identity of a tensor's value: views and detached aliases share data (cpu) or meta tuples."""
    d = t._data
    return id(d) if d is not None else id(t._meta)


def _meta_like(t):
    m = wrap_meta(tuple(t.shape), t._dtype, t.stride(), t.storage_offset())
    return m


class _Binding:
    __slots__ = ("tensor", "node", "call", "gen", "cell", "ver")


# ------------------------------------------------------------------------------ the tracer
class _GraphBuilder:
    """Records primitive calls into ``self.graph`` while active (``with builder:``)."""

    def __init__(self, fake: bool, decomposition_table: dict | None = None) -> None:
        self.graph = Graph()
        self.fake = fake
        self.decompositions = decomposition_table or {}
        self.bindings: dict = {}
        self.family_gen: dict = {}
        self.consts: dict = {}
        self.inputs: list = []  # (tensor, placeholder node)
        self.mode = ProxyTorchDispatchMode(self)
        self._rng = None

    # -- inputs, outputs
    def placeholder(self, name: str, value):
        node = self.graph.placeholder(name)
        if isinstance(value, TensorBase):
            node.meta["val"] = value if value._data is None else _meta_like(value)
            self._bind(value, node)
            self.inputs.append((value, node))
        else:
            node.meta["val"] = value
        return node

    def mutated_inputs(self) -> list:
        """(position among tensor inputs, tensor, node holding its new value) for written inputs."""
        out = []
        for i, (t, ph) in enumerate(self.inputs):
            node = self.node_of(t)
            if node is not ph:
                out.append((i, t, node))
        return out

    def output_arg(self, value):
        """``value`` (a pytree of tensors and constants) with tensors replaced by their nodes."""
        return pytree.tree_map(lambda v: self.node_of(v) if isinstance(v, TensorBase) else v, value)

    def graph_module(self, output, name: str = "GraphModule") -> GraphModule:
        self.graph.output(output)
        self.graph.eliminate_dead_code()
        return GraphModule(dict(self.consts), self.graph, name)

    # -- activation
    def __enter__(self):
        self._rng = _random.get_rng_state()  # real-mode tracing must not advance the stream
        WRITE_HOOKS.append(self._on_write)
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        self.mode.__exit__(*exc)
        WRITE_HOOKS.remove(self._on_write)
        _random.set_rng_state(self._rng)

    # -- bindings
    def _bind(self, t, node, call=None) -> None:
        b = _Binding()
        b.tensor, b.node, b.call = t, node, call if call is not None else t
        root = t._base if t._base is not None else t
        b.gen = self.family_gen.get(_key(root), 0)
        b.cell = t._vc
        b.ver = t._vc.value if t._vc is not None else 0
        self.bindings[_key(t)] = b

    def _lookup(self, t, check: bool = True) -> _Binding:
        b = self.bindings.get(_key(t))
        if b is None:
            return self._untracked(t)
        orig = b.tensor
        root = orig._base
        if root is not None and self.family_gen.get(_key(root), 0) != b.gen:
            # the base (or another view of it) was written after this view was made
            rb = self._lookup(root)
            call, node, size, stride, offset = self._in_view_dtype(rb.call, rb.node, root, orig)
            node = self._emit(_V.as_strided, (call,), (node,),
                              {"size": tuple(size), "stride": tuple(stride), "storage_offset": offset},
                              _meta_like(orig))
            if orig._dtype is not call._dtype:  # a complex view of a real root: (real, imag) pairs
                node = self._emit(_PM.view_as_complex, (_meta_like(orig),), (node,), {}, _meta_like(orig))
            self._bind(orig, node, b.call)
            return self.bindings[_key(orig)]
        cell = t._vc
        if check and cell is not None and cell is b.cell and cell.value != b.ver:
            raise RuntimeError(f"make_fx: a tensor of shape {list(t.shape)} was modified in place by "
                               "an operation tracing cannot see (a foreach in-place op or a direct "
                               "write to its memory)")
        return b

    def _in_view_dtype(self, call, node, root, view):
        """(call, node, size, stride, offset): the dense root as as_strided(_scatter) must see it to
        reach ``view`` (a real view of a complex root, as ``x.real``: the root's ``view_as_real``;
        a complex view of a real root, ``view_as_complex``'s: the root itself, the view's geometry
        taken to its (real, imag) pairs) and the view's geometry there, in elements."""
        size, stride, offset = view._geometry_in(root)
        if root._dtype.is_complex and not view._dtype.is_complex:
            pairs = wrap_meta(tuple(root.shape) + (2,), view._dtype)
            return pairs, self._emit(_PM.view_as_real, (call,), (node,), {}, pairs), size, stride, offset
        if view._dtype.is_complex and not root._dtype.is_complex:
            return (call, node, tuple(size) + (2,), tuple(2 * s for s in stride) + (1,), 2 * offset)
        return call, node, size, stride, offset

    def node_of(self, t):
        return self._lookup(t).node

    def _untracked(self, t) -> _Binding:
        if t._data is None:
            # meta memory made outside dispatch and never written by a traced op: its value is
            # unknown, so it stands for zeros (a valid value of uninitialised memory, and what
            # zero-filled helpers made)
            node = self._emit(_C.full, (), (), {"size": tuple(t.shape), "fill_value": 0,
                                            "dtype": t._dtype, "device": CPU}, _meta_like(t))
            self._bind(t, node)
            return self.bindings[_key(t)]
        name = f"_tensor_constant{len(self.consts)}"
        self.consts[name] = t
        node = self.graph.get_attr(name)
        node.meta["val"] = _meta_like(t)
        if self.fake:
            sub = _meta_like(t)
            self._bind(t, node, sub)
            self._bind(sub, node)
        else:
            self._bind(t, node)
        return self.bindings[_key(t)]

    def _emit(self, op, call_args, node_args, params, val):
        target, args, kwargs = _graph_call(op, tuple(call_args), tuple(node_args), params)
        # nodes are named by operator (``mm``, ``add_1``), not by overload, as torch names them
        node = self.graph.create_node("call_function", target, args, kwargs,
                                      getattr(target, "_opname", None))
        node.meta["ember_op"] = op
        node.meta["val"] = val
        return node

    # -- recording a primitive call
    def _args(self, args):
        """(node arguments, call arguments): tensors -> nodes, constants -> their meta stand-ins."""
        nodes, call = [], []
        for a in args:
            if isinstance(a, TensorBase):
                b = self._lookup(a)
                nodes.append(b.node)
                call.append(b.call if self.fake and a._data is not None else a)
            elif type(a) in (list, tuple):
                n2, c2 = self._args(a)
                nodes.append(type(a)(n2))
                call.append(type(a)(c2))
            else:
                nodes.append(a)
                call.append(a)
        return nodes, call

    def record(self, func, args, kwargs):
        node_args, call_args = self._args(args)
        call_kwargs = dict(kwargs)
        node_kwargs = dict(kwargs)
        if self.fake and func.kind in ("creation", "random") and not any(
                isinstance(a, TensorBase) for a in pytree.tree_leaves(list(args))):
            call_kwargs["device"] = META
        if node_kwargs.get("device") is META:
            node_kwargs["device"] = CPU  # fake tensors stand for cpu tensors
        if node_kwargs.get("generator") is _random.default_generator:
            node_kwargs["generator"] = None
        out = func(*call_args, **call_kwargs)
        if out is None:
            raise NotImplementedError(f"make_fx: the in-place multi-tensor op {func.name} cannot be "
                                      "traced yet")
        single = isinstance(out, TensorBase)
        val = (out if out._data is None else _meta_like(out)) if single else [
            o if o._data is None else _meta_like(o) for o in out]
        node = self._emit(func, call_args, node_args, node_kwargs, val if single else tuple(val))
        if single:
            self._bind(out, node)
        else:
            for i, o in enumerate(out):
                item = self.graph.create_node("call_function", operator.getitem, (node, i))
                item.meta["val"] = val[i]
                self._bind(o, item)
        return out

    def _on_write(self, target, res) -> None:
        """``target`` now holds ``res``'s values (an in-place op or out=)."""
        node, value = self.node_of(res), res
        if res._dtype is not target._dtype:
            cast = wrap_meta(tuple(res.shape), target._dtype)
            node = self._emit(_P.to_dtype, (value,), (node,), {"dtype": target._dtype}, cast)
            value = cast
        if tuple(res.shape) != tuple(target.shape):  # copy_ broadcasts its source
            value = _meta_like(target)
            node = self._emit(_V.expand, (value,), (node,), {"size": tuple(target.shape)}, value)
        root = target._base
        if root is not None:
            if root.storage_offset() != 0 or _V._clone_strides(tuple(root.shape), root.stride()) \
                    != tuple(root.stride()):
                raise NotImplementedError("make_fx: writes through a view of a base that is not "
                                          "dense are not functionalised")
            # the family's version already counts this write: no unseen-write check on the root
            rb = self._lookup(root, False)
            call, rnode, size, stride, offset = self._in_view_dtype(rb.call, rb.node, root, target)
            src, snode = value, node
            if value._dtype is not call._dtype:  # a complex view of a real root: write the pairs
                src = wrap_meta(tuple(value.shape) + (2,), call._dtype)
                snode = self._emit(_PM.view_as_real, (value,), (node,), {}, src)
            new_root = self._emit(_V.as_strided_scatter, (call, src), (rnode, snode),
                                  {"size": tuple(size), "stride": tuple(stride),
                                   "storage_offset": offset}, _meta_like(call))
            if call._dtype is not root._dtype:  # back from the real reinterpretation of a complex root
                new_root = self._emit(_PM.view_as_complex, (_meta_like(call),), (new_root,), {},
                                      _meta_like(root))
            rk = _key(root)
            self.family_gen[rk] = self.family_gen.get(rk, 0) + 1
            self._bind(root, new_root)
        else:
            rk = _key(target)
            self.family_gen[rk] = self.family_gen.get(rk, 0) + 1
        old = self.bindings.get(_key(target))
        self._bind(target, node, old.call if old is not None else None)


class ProxyTorchDispatchMode(TorchDispatchMode):
    """The dispatch mode of ``make_fx``: every primitive call becomes a graph node."""

    aten_graph = True  # public functions with an eager-only fused primitive take their aten path

    def __init__(self, builder: _GraphBuilder) -> None:
        self.builder = builder

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        table = self.builder.decompositions
        decomp = None
        if table:
            decomp = next((table[k] for k in _decomposition_keys(func) if k in table), None)
        if decomp is not None:
            with self:
                r = decomp(*args, **kwargs)
            if r is not NotImplemented:
                return r
        return self.builder.record(func, args, kwargs)


# ------------------------------------------------------------------------------ make_fx
def _fake_input(a):
    if not isinstance(a, TensorBase):
        return a
    m = _meta_like(a)
    m._dtype = a._dtype
    if a._requires_grad:
        m._requires_grad = True
    return m


def make_fx(f, decomposition_table: dict | None = None, tracing_mode: str = "real",
            _allow_non_fake_inputs: bool = False, *, pre_dispatch: bool = False,
            record_module_stack: bool = False, _allow_fake_constant: bool = False,
            _error_on_data_dependent_ops: bool = True):
    """Return ``wrapped(*args)`` that traces ``f(*args)`` into a GraphModule of primitive calls.

    Args:
        f: the function to trace (tensors in, a pytree of tensors out).
        decomposition_table: ``{op: fn}``; a call of ``op`` (a primitive or its graph target) runs
            ``fn`` instead, whose own calls are traced.
        tracing_mode: "real" (run on the inputs), "fake" or "symbolic" (run on meta tensors;
            shapes are specialised in both).

    The GraphModule takes the flattened inputs. Inputs that ``f`` writes in place are written back
    at the end of the graph with ``copy_``.
    """
    if tracing_mode not in ("real", "fake", "symbolic"):
        raise AssertionError(f"Unexpected tracing type: {tracing_mode}")
    fake = tracing_mode != "real"

    def wrapped(*args):
        flat, spec = pytree.tree_flatten(list(args))
        builder = _GraphBuilder(fake, decomposition_table)
        ins = [_fake_input(a) for a in flat] if fake else list(flat)
        with builder:
            for i, a in enumerate(ins):
                builder.placeholder(f"arg{i}_1", a)
            out = f(*pytree.tree_unflatten(ins, spec))
            result = builder.output_arg(out)
            for _, t, node in builder.mutated_inputs():
                ph = next(p for x, p in builder.inputs if x is t)
                builder.graph.call_method("copy_", (ph, node))
        return builder.graph_module(result)

    return wrapped


def get_isolated_graphmodule(func, args, kwargs, tracing_mode: str = "real",
                             decomposition_table: dict | None = None) -> GraphModule:
    """``make_fx`` of ``func(*args, **kwargs)`` (kwargs bound, args traced)."""
    return make_fx(lambda *a: func(*a, **kwargs), decomposition_table, tracing_mode)(*args)
