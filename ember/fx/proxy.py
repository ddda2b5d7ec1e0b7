"""``Proxy``: a stand-in value that records every operation applied to it as a graph Node.

Operators become ``call_function`` nodes on ``operator.*``; attribute reads ``getattr`` nodes;
method calls ``call_method`` nodes; public ember functions (``ember.relu``, ``F.softmax``,
``ember.cat``) reach ``Proxy.__torch_function__`` and become ``call_function`` nodes.

Example:
    >>> import ember
    >>> from ember.fx import Graph, Proxy
    >>> g = Graph()
    >>> x = Proxy(g.placeholder("x"))
    >>> y = ember.relu(x).sum(1) + 2
    >>> [n.target if isinstance(n.target, str) else n.target.__name__ for n in g.nodes]
    ['x', 'relu', 'sum', 'add']
"""
from __future__ import annotations

import dis
import enum
import inspect
import operator
import sys
import traceback
from typing import Any, Callable

from .._device import device as _device_type
from .._dtype import dtype as _dtype_type
from .._tensor_base import TensorBase
from ._codegen import magic_methods, reflectable_magic_methods
from .graph import Graph
from .node import Node, map_aggregate

__all__ = ["TracerBase", "GraphAppendingTracer", "TraceError", "Proxy", "Attribute",
           "ParameterProxy"]

base_types = (str, int, float, bool, complex, _dtype_type, _device_type, type(None), type(...),
              range, enum.Enum)


class TraceError(ValueError):
    pass


class TracerBase:
    """What a Proxy needs from a tracer: a graph and ``create_proxy``/``create_arg`` hooks."""

    graph: Graph
    record_stack_traces: bool = False
    check_mutable_operations: bool = False
    trace_asserts: bool = False
    proxy_buffer_attributes: bool = False
    traced_func_name: str = "forward"

    def create_node(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                    type_expr=None) -> Node:
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> "Proxy":
        return Proxy(node, self)

    def create_proxy(self, kind: str, target, args: tuple, kwargs: dict, name: str | None = None,
                     type_expr=None, proxy_factory_fn: Callable | None = None) -> "Proxy":
        """Turn ``args``/``kwargs`` into graph arguments, add the node, wrap it in a Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        proxy = self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)
        if self.record_stack_traces and not node.stack_trace:
            frames = [f for f in traceback.extract_stack()[:-1]
                      if "/ember/fx/" not in f.filename.replace("\\", "/")]
            if frames:
                node.stack_trace = "".join(traceback.format_list(frames[-1:]))
        return proxy

    def create_arg(self, a) -> Any:
        """Map a Python value to a graph argument: Proxies to their Nodes, containers recursively."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*[self.create_arg(e) for e in a])
            return type(a)([self.create_arg(e) for e in a])
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            r = {}
            for k, v in a.items():
                k = self.create_arg(k)

                def no_node(arg):
                    if isinstance(arg, Node):
                        raise RuntimeError("Keys for dictionaries used as an argument cannot contain "
                                           f"a Node. Got key: {k}")
                map_aggregate(k, no_node)
                r[k] = self.create_arg(v)
            return r
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, base_types) or a is None or a is ...:
            return a
        if callable(a) and not isinstance(a, TensorBase):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: "Proxy") -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: "Proxy"):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is "
                         "used in a loop or as a *args or **kwargs function argument. See the "
                         "torch.fx docs on pytorch.org for a more detailed explanation of what "
                         "types of control flow can be traced, and check out the Proxy docstring "
                         "for help troubleshooting Proxy iteration errors")

    def keys(self, obj: "Proxy") -> "Proxy":
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made directly over a graph's node (outside of symbolic tracing)."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph


class Proxy:
    """A value under tracing: operations on it append Nodes to ``tracer.graph``."""

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> "Attribute":
        # not in the graph yet: a following call turns it into a call_method node
        return Attribute(self, k)

    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, d: dict) -> None:
        self.__dict__ = d

    def __deepcopy__(self, memo: dict) -> "Proxy":
        import copy
        new_dict = {k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()}
        new_proxy = Proxy.__new__(type(self))
        new_proxy.__dict__ = new_dict
        return new_proxy

    def __call__(self, *args, **kwargs) -> "Proxy":
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        frame = inspect.currentframe().f_back
        # `a, b = proxy` unpacks a known number of elements: index them instead of iterating
        insts = list(dis.get_instructions(frame.f_code))
        from bisect import bisect_left
        idx = bisect_left(insts, frame.f_lasti, key=lambda x: x.offset)
        if idx < len(insts) and insts[idx].opname == "UNPACK_SEQUENCE":
            return (self[i] for i in range(insts[idx].argval))
        return self.tracer.iter(self)

    def __abs__(self) -> "Proxy":
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def keys(self) -> "Proxy":
        return self.tracer.keys(self)

    def __len__(self) -> int:
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this "
                           "call to be recorded, please call torch.fx.wrap('len') at module scope")

    def __setitem__(self, key, value) -> None:
        self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers: dict = {}

        def find_tracer(a):
            if isinstance(a, cls):
                tracers[a.tracer] = None
        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers.keys())} while "
                               f"trying to trace operations {orig_method}")
        tracer = next(iter(tracers))
        name = getattr(orig_method, "__name__", "")
        if _is_tensor_method_only(orig_method, name):
            if name.startswith("__") and name.endswith("__"):
                op = name[2:-2]
                if op in magic_methods:
                    return tracer.create_proxy("call_function", getattr(operator, op), args, kwargs)
                if op.startswith("r") and op[1:] in reflectable_magic_methods:
                    return tracer.create_proxy("call_function", getattr(operator, op[1:]),
                                               (args[1], args[0]), kwargs)
            return tracer.create_proxy("call_method", name, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs,
                                   name=tracer.graph._target_to_str(name))


def _is_tensor_method_only(fn, name: str) -> bool:
    """A Tensor method with no public ``ember.<name>`` function of its own (so: call_method)."""
    if not getattr(fn, "__qualname__", "").split(".")[0].endswith(("Tensor", "Mixin")):
        return False
    root = sys.modules.get("ember")
    return getattr(root, name, None) is not fn


class Attribute(Proxy):
    """``proxy.attr``: becomes a getattr node when used as a value, a call_method when called."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node = None

    @property
    def node(self) -> Node:
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A Proxy for a parameter whose shape queries answer from the real parameter."""

    def __init__(self, tracer: TracerBase, node: Node, name: str, param) -> None:
        super().__init__(node, tracer)
        self.param = param
        self.name = name

    def __repr__(self) -> str:
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self, dim=None):
        return self.param.size() if dim is None else self.param.size(dim)

    def dim(self) -> int:
        return self.param.dim()

    @property
    def ndim(self) -> int:
        return self.param.ndim

    def numel(self) -> int:
        return self.param.numel()

    def nelement(self) -> int:
        return self.param.nelement()


def _define_magic(method: str) -> None:
    def impl(*args, **kwargs):
        return args[0].tracer.create_proxy("call_function", getattr(operator, method), args, kwargs)
    impl.__name__ = impl.__qualname__ = f"__{method.strip('_')}__"
    setattr(Proxy, impl.__name__, impl)


def _define_reflectable(method: str) -> None:
    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", getattr(operator, method), (rhs, self), {})
    impl.__name__ = impl.__qualname__ = f"__r{method.strip('_')}__"
    setattr(Proxy, impl.__name__, impl)


for _m in magic_methods:
    _define_magic(_m)
for _m in reflectable_magic_methods:
    _define_reflectable(_m)
del _m
