"""convert for FX graph mode: observers become quantize / dequantize steps, modules become quantized.

The prepared graph is rebuilt node by node, tracking for each value a float version and/or a
quantized version:
- an observer quantizes its input (``quantize_per_tensor(x, <prefix>scale_<i>, <prefix>zero_point_<i>,
  dtype)``, the qparams stored as buffers) unless the input is already quantized;
- quantized modules take the quantized input and return a quantized output; binary ops call the
  quantized add/mul kernels; shape-like ops run on the quantized tensor;
- other ops get ``x.dequantize()`` inputs, as does the output.
Node names follow torch's: the k-th observer's steps are ``quantize_per_tensor_k`` /
``dequantize_k``. ``is_reference=True`` keeps every op in float between quantize/dequantize pairs and
uses reference modules (quantize-dequantized weights).

Example:
    >>> import ember
    >>> from ember import nn, fx
    >>> from ember.ao.quantization import get_default_qconfig_mapping
    >>> from ember.ao.quantization.fx.prepare import insert_observers
    >>> p = insert_observers(fx.symbolic_trace(nn.Sequential(nn.Linear(2, 2))),
    ...                      get_default_qconfig_mapping(), is_qat=False)
    >>> _ = p(ember.randn(4, 2))
    >>> print(convert_graph(p).code.strip().splitlines()[-2].split(" = ")[0].strip())
    dequantize_1
"""
from __future__ import annotations

from .... import _dtype as D
from ...._creation import tensor
from ...._quantized import kernels as QK
from ...._quantized.tensor import quantize_per_tensor
from ....fx.graph import Graph
from ....fx.graph_module import GraphModule
from ....nn.modules.container import Sequential
from ...nn import quantized as nnq
from ...nn.quantized.modules.utils import activation_qparams
from ...nn.quantized.reference.modules.linear import _weight_qparams
from ._patterns import BINARY, BINARY_METHODS, QAT_MODULES, QUANTIZED_MODULES, REFERENCE_MODULES
from .prepare import is_observer_node, node_kind

__all__ = ["convert_graph"]

_QDTYPES = (D.quint8, D.qint8, D.qint32)
_BINARY_KERNELS = {"add": QK.add, "mul": QK.mul}


def _map_args(obj, fn):
    if hasattr(obj, "op"):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_args(a, fn) for a in obj)
    if isinstance(obj, dict):
        return {k: _map_args(v, fn) for k, v in obj.items()}
    return obj


def _observer_of(node):
    """The observer node reading ``node``'s output, if any."""
    for u in node.users:
        if is_observer_node(u):
            return u
    return None


class _Converter:
    def __init__(self, gm, is_reference):
        self.gm, self.is_reference = gm, is_reference
        self.modules = _ModuleLookup(gm)
        self.g = Graph()
        self.root = {}
        self.fval, self.qval, self.qidx, self.deq = {}, {}, {}, {}
        self.obs_index = {}
        for n in gm.graph.nodes:
            if is_observer_node(n):
                self.obs_index[n] = len(self.obs_index)

    # ------------------------------------------------------------------ values
    def new_attr(self, prefix, kind, value):
        i = 0
        while f"{prefix}{kind}_{i}" in self.root:
            i += 1
        name = f"{prefix}{kind}_{i}"
        self.root[name] = value
        return self.g.create_node("get_attr", name, name=name)

    def float_of(self, node):
        if node in self.fval:
            return self.fval[node]
        q = self.qval[node]
        d = self.deq.get(q)
        if d is None:
            k = self.qidx.get(q, 0)
            d = self.g.create_node("call_method", "dequantize", (q,),
                                   name="dequantize" if k == 0 else f"dequantize_{k}")
            self.deq[q] = d
        return d

    def qparam_nodes(self, obs_mod, prefix):
        scale, zp = activation_qparams(obs_mod)
        s = self.new_attr(prefix, "scale", tensor(scale))
        z = self.new_attr(prefix, "zero_point", tensor(zp))
        return s, z

    def prefix_for(self, value_node, obs_node):
        if value_node.op == "placeholder":
            for u in obs_node.users:
                if u.op == "call_module":
                    return u.target.replace(".", "_") + "_input_"
            return "_input_"
        if value_node.op == "call_module" and not is_observer_node(value_node):
            return value_node.target.replace(".", "_") + "_"
        return "_"

    # ------------------------------------------------------------------ node kinds
    def observer(self, n):
        a = n.args[0]
        k = self.obs_index[n]
        obs = self.modules[n.target]
        if a in self.qval and not self.is_reference:
            q = self.qval[a]
            self.qidx.setdefault(q, k)
            self.qval[n] = q
            return
        if getattr(obs, "dtype", None) not in _QDTYPES:
            self.fval[n] = self.float_of(a)
            return
        src = self.float_of(a)
        s, z = self.qparam_nodes(obs, self.prefix_for(a, n))
        q = self.g.create_node("call_function", quantize_per_tensor, (src, s, z, obs.dtype),
                               name="quantize_per_tensor" if k == 0 else f"quantize_per_tensor_{k}")
        self.qidx[q] = k
        if self.is_reference:
            self.fval[n] = self.g.create_node("call_method", "dequantize", (q,),
                                              name="dequantize" if k == 0 else f"dequantize_{k}")
        else:
            self.qval[n] = q

    def quantized_module(self, n, mod, out_obs):
        if self.is_reference:
            ref = REFERENCE_MODULES.get(type(mod))
            if ref is None or getattr(mod, "qconfig", None) is None:
                self.copy_float(n)
                return
            cls, idx = ref
            inner = mod if idx is None else mod[idx]
            new_inner = cls.from_float(inner, _weight_qparams(inner.weight, mod.qconfig.weight()))
            if idx is None:
                self.root[n.target] = new_inner
            else:
                parts = list(mod.children())
                parts[idx] = new_inner
                self.root[n.target] = _refused(mod, parts)
            self.fval[n] = self.g.create_node("call_module", n.target,
                                              _map_args(n.args, self.float_of), name=n.name)
            return
        mod.activation_post_process = self.modules[out_obs.target]
        target_cls = QAT_MODULES.get(type(mod)) or QUANTIZED_MODULES[type(mod)]
        qmod = target_cls.from_float(mod)
        del mod.activation_post_process
        self.root[n.target] = qmod
        args = (self.qval[n.args[0]],) + tuple(_map_args(n.args[1:], self.float_of))
        self.qval[n] = self.g.create_node("call_module", n.target, args, name=n.name)

    def binary(self, n, op_name, out_obs):
        a, b = n.args[0], n.args[1]
        qa = self.qval.get(a) if hasattr(a, "op") else a
        qb = self.qval.get(b) if hasattr(b, "op") else b
        if self.is_reference or qa is None or qb is None or \
                (not hasattr(a, "op") and not hasattr(b, "op")):
            self.copy_float(n)
            return
        if not hasattr(a, "op"):  # scalar first: swap (add and mul commute)
            qa, qb = qb, qa
        s, z = self.qparam_nodes(self.modules[out_obs.target], "_")
        self.g._graph_namespace.create_name(n.name, None)  # torch's lowered node takes the next name
        self.qval[n] = self.g.create_node("call_function", _BINARY_KERNELS[op_name], (qa, qb, s, z),
                                          name=n.name)

    def share(self, n):
        inputs = n.args[0] if n.args else None
        if isinstance(inputs, (list, tuple)):
            ok = all(x in self.qval for x in inputs if hasattr(x, "op"))
        else:
            ok = hasattr(inputs, "op") and inputs in self.qval
        if self.is_reference or not ok:
            self.copy_float(n)
            return
        first = _map_args(n.args[0], lambda x: self.qval[x])
        rest = _map_args(n.args[1:], self.float_of)
        kwargs = _map_args(n.kwargs, self.float_of)
        if n.op == "call_module":
            mod = self.modules[n.target]
            if type(mod).__name__ == "Dropout":
                self.root[n.target] = nnq.Dropout.from_float(mod)
            else:
                self.root[n.target] = mod
        self.qval[n] = self.g.create_node(n.op, n.target, (first,) + tuple(rest), kwargs, name=n.name)

    def copy_float(self, n):
        if n.op == "call_module":
            self.root[n.target] = self.modules[n.target]
        elif n.op == "get_attr":
            self.root[n.target] = _get(self.gm, n.target)
        args = _map_args(n.args, self.float_of)
        kwargs = _map_args(n.kwargs, self.float_of)
        self.fval[n] = self.g.create_node(n.op, n.target, args, kwargs, name=n.name)

    # ------------------------------------------------------------------ driver
    def run(self):
        for n in self.gm.graph.nodes:
            if n.op == "placeholder":
                self.fval[n] = self.g.create_node("placeholder", n.target, n.args, name=n.name)
            elif n.op == "output":
                self.g.output(_map_args(n.args[0], self.float_of))
            elif is_observer_node(n):
                self.observer(n)
            else:
                kind = node_kind(n, self.modules)
                out_obs = _observer_of(n)
                if kind == "quantized" and out_obs is not None and n.args and n.args[0] in self.qval \
                        or kind == "quantized" and self.is_reference and out_obs is not None:
                    self.quantized_module(n, self.modules[n.target], out_obs)
                elif kind == "binary" and out_obs is not None:
                    name = BINARY.get(n.target) or BINARY_METHODS.get(n.target)
                    self.binary(n, name, out_obs)
                elif kind == "share" and out_obs is not None:
                    self.share(n)
                else:
                    self.copy_float(n)
        gm = GraphModule(self.root, self.g)
        gm.training = self.gm.training
        return gm


class _ModuleLookup(dict):
    """``named_modules`` plus aliases (an observer shared by two names is listed once there)."""

    def __init__(self, gm):
        super().__init__(gm.named_modules())
        self.gm = gm

    def __missing__(self, target):
        return _get(self.gm, target)

    def get(self, target, default=None):
        try:
            return self[target]
        except AttributeError:
            return default


def _get(root, target):
    for p in target.split("."):
        root = getattr(root, p)
    return root


def _refused(fused, parts):
    """A fused module rebuilt around its reference child (the same Sequential subclass)."""
    new = Sequential.__new__(type(fused))
    Sequential.__init__(new, *parts)
    return new


def convert_graph(gm, is_reference: bool = False):
    """The converted (or reference) GraphModule for prepared GraphModule ``gm``."""
    return _Converter(gm, is_reference).run()
