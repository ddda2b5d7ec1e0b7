"""prepare_qat_fx's module swap: float/fused modules with a qconfig become their QAT versions."""
from __future__ import annotations

from ._patterns import QAT_SWAPS
from .fuse import set_module
from .prepare import qconfig_for_node

__all__ = ["swap_qat_modules"]


def swap_qat_modules(gm, qconfig_mapping) -> None:
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op != "call_module":
            continue
        mod = modules[node.target]
        qat_cls = QAT_SWAPS.get(type(mod))
        if qat_cls is None:
            continue
        qconfig = qconfig_for_node(node, modules, qconfig_mapping)
        if qconfig is None:
            continue
        mod.qconfig = qconfig
        set_module(gm, node.target, qat_cls.from_float(mod))
    gm.recompile()
