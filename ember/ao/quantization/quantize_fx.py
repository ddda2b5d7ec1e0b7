"""FX graph-mode quantization entry points: ``prepare_fx``, ``prepare_qat_fx``, ``convert_fx``,
``convert_to_reference_fx``, ``fuse_fx`` (torch 2.13 marks them deprecated; so does ember).

Example:
    >>> import ember, warnings
    >>> from ember import nn
    >>> from ember.ao.quantization import get_default_qconfig_mapping
    >>> warnings.simplefilter("ignore")
    >>> m = nn.Sequential(nn.Linear(4, 2)).eval()
    >>> p = prepare_fx(m, get_default_qconfig_mapping("x86"), (ember.randn(1, 4),))
    >>> _ = p(ember.randn(8, 4))
    >>> q = convert_fx(p)
    >>> "quantize_per_tensor" in q.code and "dequantize" in q.code
    True
"""
from __future__ import annotations

import copy

from ...fx import symbolic_trace
from ...fx.graph_module import GraphModule
from ._deprecation import warn_deprecated
from .fx import convert_graph, fuse_graph, insert_observers
from .fx._patterns import QAT_MODULES  # noqa: F401
from .qconfig_mapping import QConfigMapping

__all__ = ["fuse_fx", "prepare_fx", "prepare_qat_fx", "convert_fx", "convert_to_reference_fx"]


def _mapping(qconfig_mapping):
    if isinstance(qconfig_mapping, dict):
        return QConfigMapping.from_dict(qconfig_mapping)
    if qconfig_mapping is None:
        return QConfigMapping()
    return qconfig_mapping


def _trace(model):
    if isinstance(model, GraphModule):
        return copy.deepcopy(model)
    return symbolic_trace(model)


def fuse_fx(model, fuse_custom_config=None, backend_config=None):
    """Trace ``model`` (eval mode) and fuse conv-bn-relu / linear-relu chains."""
    warn_deprecated()
    if model.training:
        raise AssertionError("fuse_fx only works on models in eval mode")
    return fuse_graph(_trace(model), is_qat=False)


def _prepare(model, qconfig_mapping, is_qat):
    gm = _trace(model)
    gm = fuse_graph(gm, is_qat=is_qat)
    mapping = _mapping(qconfig_mapping)
    if is_qat:
        from .fx._qat import swap_qat_modules
        swap_qat_modules(gm, mapping)
    gm = insert_observers(gm, mapping, is_qat=is_qat)
    gm = GraphModule(gm, gm.graph)  # submodules registered in graph order, as torch's are
    gm._qconfig_mapping = mapping
    gm._is_qat = is_qat
    return gm


def prepare_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
               _equalization_config=None, backend_config=None):
    """Trace, fuse and insert observers for post-training static quantization (model in eval)."""
    warn_deprecated()
    if model.training:
        raise AssertionError("prepare_fx only works for models in eval mode; call model.eval() "
                             "(use prepare_qat_fx for quantization aware training)")
    return _prepare(model, qconfig_mapping, is_qat=False)


def prepare_qat_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
                   backend_config=None):
    """Trace, fuse (keeping batch norms), swap in QAT modules and insert fake-quant modules."""
    warn_deprecated()
    if not model.training:
        raise AssertionError("prepare_qat_fx only works for models in train mode")
    return _prepare(model, qconfig_mapping, is_qat=True)


def convert_fx(graph_module, convert_custom_config=None, _remove_qconfig=True, qconfig_mapping=None,
               backend_config=None, keep_original_weights=False):
    """A quantized GraphModule from a calibrated (or QAT-trained) prepared one."""
    warn_deprecated()
    return convert_graph(graph_module, is_reference=False)


def convert_to_reference_fx(graph_module, convert_custom_config=None, _remove_qconfig=True,
                            qconfig_mapping=None, backend_config=None):
    """The reference quantized model: quantize/dequantize pairs around float ops and reference
    modules with quantize-dequantized weights."""
    warn_deprecated()
    return convert_graph(graph_module, is_reference=True)
