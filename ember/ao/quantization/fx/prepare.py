"""prepare for FX graph mode: find each node's qconfig and insert observers around quantizable ops.

Observers are modules named ``activation_post_process_<k>``, numbered in graph order: for each
quantizable node, first its not-yet-observed tensor inputs, then its output (as torch numbers them).
Every user of an observed value reads it through its observer. A shape-like op's output observer is
its input's observer registered under a second name, so both see the same statistics.

Example:
    >>> import ember
    >>> from ember import nn, fx
    >>> from ember.ao.quantization import get_default_qconfig_mapping
    >>> gm = fx.symbolic_trace(nn.Sequential(nn.Linear(2, 2)))
    >>> p = insert_observers(gm, get_default_qconfig_mapping(), is_qat=False)
    >>> [n.target for n in p.graph.nodes if n.op == "call_module"]
    ['activation_post_process_0', '0', 'activation_post_process_1']
"""
from __future__ import annotations

import re

from ..observer import PlaceholderObserver
from ._patterns import kind_of_function, kind_of_method, kind_of_module

__all__ = ["qconfig_for_node", "insert_observers", "is_observer_node", "node_kind",
           "OBSERVER_PREFIX"]

OBSERVER_PREFIX = "activation_post_process_"


def is_observer_node(node) -> bool:
    return node.op == "call_module" and str(node.target).startswith(OBSERVER_PREFIX)


def qconfig_for_node(node, modules, mapping):
    """The qconfig that applies to ``node`` under QConfigMapping ``mapping`` (torch's precedence)."""
    if node.op == "call_module":
        name, obj_type = node.target, type(modules[node.target])
    elif node.op in ("call_function", "call_method"):
        name, obj_type = "", node.target
    else:
        return None
    if name:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            key = ".".join(parts[:i])
            if key in mapping.module_name_qconfigs:
                return mapping.module_name_qconfigs[key]
        for pattern, qc in mapping.module_name_regex_qconfigs.items():
            if re.fullmatch(pattern, name):
                return qc
    try:
        if obj_type in mapping.object_type_qconfigs:
            return mapping.object_type_qconfigs[obj_type]
    except TypeError:  # an unhashable target
        pass
    return mapping.global_qconfig


def node_kind(node, modules) -> str:
    if node.op == "call_module":
        return "observer" if is_observer_node(node) else kind_of_module(modules[node.target])
    if node.op == "call_function":
        return kind_of_function(node.target)
    if node.op == "call_method":
        return kind_of_method(node.target)
    return "float"


def _tensor_inputs(node, kind):
    args = node.args
    if kind == "binary":
        return [a for a in args[:2] if hasattr(a, "op")]
    if not args:
        return []
    first = args[0]
    if isinstance(first, (list, tuple)):  # cat
        return [a for a in first if hasattr(a, "op")]
    return [first] if hasattr(first, "op") else []


def _is_dropout(node, modules) -> bool:
    # torch gives dropout its own output observer (the other shape-like ops share their input's)
    if node.op == "call_module":
        return type(modules[node.target]).__name__ == "Dropout"
    return getattr(node.target, "__name__", "") == "dropout"


def insert_observers(gm, qconfig_mapping, is_qat: bool):
    """Insert observers into GraphModule ``gm`` in place (returns it, recompiled)."""
    modules = dict(gm.named_modules())
    graph = gm.graph
    count = [0]

    def observe(after, qconfig, shared=None):
        name = f"{OBSERVER_PREFIX}{count[0]}"
        count[0] += 1
        setattr(gm, name, shared if shared is not None else qconfig.activation())
        with graph.inserting_after(after):
            obs = graph.create_node("call_module", name, (after,), name=name)
        for user in list(after.users):
            if user is not obs:
                user.replace_input_with(after, obs)
        return obs

    for node in list(graph.nodes):
        kind = node_kind(node, modules)
        if kind in ("float", "observer"):
            continue
        qconfig = qconfig_for_node(node, modules, qconfig_mapping)
        if qconfig is None or qconfig.activation is None:
            continue
        probe = qconfig.activation()
        if isinstance(probe, PlaceholderObserver) and probe.is_dynamic:
            raise NotImplementedError("ember's FX quantization is static only; use quantize_dynamic "
                                      "for dynamic quantization")
        if node.op == "call_module":
            modules[node.target].qconfig = qconfig
        inputs = _tensor_inputs(node, kind)
        if not inputs:
            continue
        for a in inputs:
            if not is_observer_node(a) and a.op != "get_attr":
                observe(a, qconfig)
        shared = None
        if kind == "share" and not isinstance(node.args[0], (list, tuple)) and \
                not _is_dropout(node, modules):
            # output and input of a shape-like op share one observer (one module, two names)
            first = node.args[0]
            shared = getattr(gm, first.target) if is_observer_node(first) else None
        observe(node, qconfig, shared)
    gm.graph.lint()
    gm.recompile()
    return gm
