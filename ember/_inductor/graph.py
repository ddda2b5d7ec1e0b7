"""``GraphLowering`` (torch's ``torch._inductor.graph``): one aten graph to ``ir.Buffer`` values.

``GraphLowering(gm).run()`` walks the graph once: placeholders become inputs, each call is lowered
by its rule in ``lowering.LOWERINGS`` or, when there is none or it declines, runs as an *extern*:
the eager op on the arrays (a wrapper call), so every graph runs.

Example:
    >>> import ember
    >>> from ember._functorch.aot_autograd import aot_function
    >>> graphs = []
    >>> f = aot_function(lambda x: x.cumsum(0) * 2, lambda gm, ex: graphs.append(gm) or gm)
    >>> _ = f(ember.randn(3))
    >>> [b.kind for b in GraphLowering(graphs[0]).run().buffers]
    ['input', 'extern', 'pointwise']
"""
from __future__ import annotations

import operator

import numpy as np

from .._tensor_base import TensorBase, wrap
from ..fx.node import Node
from .ir import FUSABLE_DTYPES, Buffer
from . import lowering_grads  # noqa: F401  (registers the gradient / pooling lowerings)
from .lowering import LOWERINGS, Unsupported

__all__ = ["GraphLowering"]


def _np_dtype(val) -> np.dtype:
    return val._dtype.np


def _bind(node: Node) -> dict:
    schema = getattr(node.target, "_schema", None)
    if schema is None:  # an ember primitive: positional arguments by index, keywords by name
        return {**dict(enumerate(node.args)), **node.kwargs}
    out, args = {}, list(node.args)
    for i, a in enumerate(schema.arguments):
        if i < len(args) and not a.kwarg_only:
            out[a.name] = args[i]
        elif a.name in node.kwargs:
            out[a.name] = node.kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default
        else:
            out[a.name] = None
    return out


class GraphLowering:
    """The IR of one graph: ``buffers`` (topological), ``inputs``, ``outputs``."""

    def __init__(self, gm) -> None:
        self.gm = gm
        self.buffers: list = []
        self.inputs: list = []
        self.outputs: list = []
        self.env: dict = {}
        self.node = None

    # -- building
    def add(self, buf: Buffer) -> Buffer:
        self.buffers.append(buf)
        return buf

    def shape(self) -> tuple:
        return tuple(self.node.meta["val"].shape)

    def dtype(self) -> np.dtype:
        return _np_dtype(self.node.meta["val"])

    def pointwise(self, expr: str, inputs: list, shape=None, dtype=None, transcendental=False):
        """A pointwise buffer ``expr`` over ``inputs`` (``{i}`` = input i, broadcast to ``shape``)."""
        shape = self.shape() if shape is None else shape
        dtype = self.dtype() if dtype is None else dtype
        for i in inputs:
            if i.dtype not in FUSABLE_DTYPES:
                raise Unsupported
        if dtype not in FUSABLE_DTYPES:
            raise Unsupported
        return self.add(Buffer("pointwise", shape, dtype, inputs, expr=expr,
                               transcendental=transcendental))

    def reduction(self, op: str, inp: Buffer, k: int, keepdim: bool, dtype=None):
        shape = inp.shape[:len(inp.shape) - k] + ((1,) * k if keepdim else ())
        dtype = inp.dtype if dtype is None else dtype
        if inp.dtype not in FUSABLE_DTYPES[:2] or dtype != inp.dtype:
            raise Unsupported
        return self.add(Buffer("reduction", shape, dtype, [inp], reduce_op=op, k=k))

    def view(self, code: str, inp: Buffer, shape=None, dtype=None):
        shape = self.shape() if shape is None else shape
        return self.add(Buffer("view", shape, dtype or inp.dtype, [inp], code=code))

    def extern(self, call, inputs: list, code: str | None = None, shape=None, dtype=None):
        val = self.node.meta.get("val")
        strides = None
        if shape is None and isinstance(val, TensorBase):
            shape, dtype, strides = tuple(val.shape), _np_dtype(val), tuple(val.stride())
        b = self.add(Buffer("extern", shape or (), dtype, inputs, call=call, code=code))
        b.strides = strides  # the traced layout: a guess at the array's (compile_worker's types)
        return b

    # -- the walk
    def run(self) -> "GraphLowering":
        for node in self.gm.graph.nodes:
            self.node = node
            if node.op == "placeholder":
                val = node.meta.get("val")
                if isinstance(val, TensorBase):
                    b = Buffer("input", tuple(val.shape), _np_dtype(val), [], index=len(self.inputs),
                               name=node.name)
                    b.strides = tuple(val.stride())  # element strides (compile_worker's types)
                else:
                    b = Buffer("input", (), None, [], index=len(self.inputs), name=node.name)
                self.inputs.append(self.add(b))
                self.env[node] = b
            elif node.op == "call_function":
                self.env[node] = self.lower(node)
            elif node.op == "get_attr":
                t = getattr(self.gm, node.target)
                b = Buffer("extern", tuple(t.shape), _np_dtype(t), [], call=_const_array(t),
                           name=node.name)
                self.env[node] = self.add(b)
            elif node.op == "output":
                outs = node.args[0]
                outs = outs if isinstance(outs, (tuple, list)) else (outs,)
                self.outputs = [self._value(o) for o in outs]
        return self

    def _value(self, a):
        if isinstance(a, Node):
            return self.env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(self._value(x) for x in a)
        return a

    def lower(self, node: Node):
        if node.target is operator.getitem:
            src = self.env[node.args[0]]
            val = node.meta.get("val")
            if isinstance(src, tuple):  # a lowered multi-output op
                return src[node.args[1]]
            shape = tuple(val.shape) if isinstance(val, TensorBase) else ()
            dtype = _np_dtype(val) if isinstance(val, TensorBase) else None
            b = self.add(Buffer("item", shape, dtype, [src], index=node.args[1]))
            b.strides = tuple(val.stride()) if isinstance(val, TensorBase) else None
            return b
        name = str(node.target)
        rule = LOWERINGS.get(name)
        if rule is not None:
            args = {k: self._value(v) for k, v in _bind(node).items()}
            n_before = len(self.buffers)
            try:
                return rule(self, args)
            except Unsupported:
                del self.buffers[n_before:]
        return self.fallback(node)

    def fallback(self, node: Node):
        """The eager op on the arrays (a wrapper call): every op runs."""
        arg_bufs: list = []

        def collect(a):
            if isinstance(a, Node):
                b = self.env[a]
                if isinstance(b, tuple):
                    raise NotImplementedError("a lowered multi-output value passed whole")
                arg_bufs.append(b)
                return _Slot(len(arg_bufs) - 1)
            if isinstance(a, (list, tuple)):
                return type(a)(collect(x) for x in a)
            return a
        args = collect(tuple(node.args))
        kwargs = {k: collect(v) for k, v in node.kwargs.items()}
        target = node.target

        def call(*arrays):
            def fill(a):
                if isinstance(a, _Slot):
                    arr = arrays[a.i]
                    return wrap(arr, None) if isinstance(arr, np.ndarray) else arr
                if isinstance(a, (list, tuple)):
                    return type(a)(fill(x) for x in a)
                return a
            out = target(*fill(args), **{k: fill(v) for k, v in kwargs.items()})
            return _unwrap(out)
        call.__name__ = getattr(target, "__name__", "extern").replace(".", "_")
        buf = self.extern(call, arg_bufs, shape=None)
        op = node.meta.get("ember_op")
        buf.fresh = op is not None and op.name in _FRESH_RESULT
        return buf


# eager ops whose result is always a new array (the wrapper may then write into it in place)
_FRESH_RESULT = {"convolution", "embedding"}


class _Slot:
    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i


def _unwrap(out):
    if isinstance(out, TensorBase):
        return np.asarray(out._data) if out._data is not None else out
    if isinstance(out, (list, tuple)):
        return tuple(_unwrap(o) for o in out)
    return out


def _const_array(t):
    arr = np.asarray(t._data)

    def const():
        return arr
    return const
