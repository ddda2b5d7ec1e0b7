"""Eager-mode quantization: propagate qconfigs, insert observers (prepare), swap modules (convert),
and ``quantize_dynamic`` in one call.

Example:
    >>> import ember
    >>> from ember import nn
    >>> q = quantize_dynamic(nn.Sequential(nn.Linear(4, 2)), {nn.Linear})
    >>> type(q[0]).__name__, q(ember.ones(1, 4)).shape
    ('Linear', torch.Size([1, 2]))
"""
from __future__ import annotations

import copy
import warnings

from ... import _dtype as D
from ... import nn
from ..nn import intrinsic as nni
from ..nn import quantized as nnq
from ._deprecation import warn_deprecated
from .qconfig import default_dynamic_qconfig, float_qparams_weight_only_qconfig
from .quantization_mappings import (get_default_dynamic_quant_module_mappings,
                                    get_default_qat_module_mappings,
                                    get_default_qconfig_propagation_list,
                                    get_default_static_quant_module_mappings,
                                    get_default_static_quant_reference_module_mappings)
from .stubs import DeQuantStub

__all__ = ["propagate_qconfig_", "add_observer_", "prepare", "convert", "quantize",
           "quantize_dynamic", "prepare_qat", "quantize_qat", "swap_module"]


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    """Give every submodule a ``qconfig``: its own, one from ``qconfig_dict`` (by type or name), or
    its parent's."""
    qconfig_dict = qconfig_dict or {}

    def visit(mod, parent_qconfig, prefix):
        qc = qconfig_dict.get(type(mod), parent_qconfig)
        qc = qconfig_dict.get(prefix, qc)
        qc = getattr(mod, "qconfig", qc)
        mod.qconfig = qc
        for name, child in mod.named_children():
            visit(child, qc, prefix + "." + name if prefix else name)

    visit(module, None, "")


def _observer_forward_hook(self, input, output):
    return self.activation_post_process(output)


def add_observer_(module, qconfig_propagation_list=None, non_leaf_module_list=None, device=None,
                  custom_module_class_mapping=None):
    """Attach ``activation_post_process`` observers (and forward hooks) to quantizable leaves."""
    allow = qconfig_propagation_list or get_default_qconfig_propagation_list()

    def needs_observer(m):
        return getattr(m, "qconfig", None) is not None and not isinstance(m, DeQuantStub)

    for name, child in module.named_children():
        if isinstance(child, nnq.FloatFunctional):
            if needs_observer(child):
                child.activation_post_process = child.qconfig.activation()
        elif isinstance(child, nni._FusedModule) or (type(child) in allow and
                                                     not isinstance(child, nn.Sequential)):
            if needs_observer(child) and not hasattr(child, "activation_post_process"):
                child.activation_post_process = child.qconfig.activation()
                child.register_forward_hook(_observer_forward_hook)
        else:
            add_observer_(child, allow, non_leaf_module_list, device, custom_module_class_mapping)


def _has_any_qconfig(model) -> bool:
    return any(getattr(m, "qconfig", None) is not None for m in model.modules())


def prepare(model, inplace=False, allow_list=None, observer_non_leaf_module_list=None,
            prepare_custom_config_dict=None):
    """Insert observers into a float model with ``qconfig`` set (post-training static quantization)."""
    warn_deprecated()
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, None)
    if not _has_any_qconfig(model):
        warnings.warn("None of the submodule got qconfig applied. Make sure you passed correct "
                      "configuration through `qconfig_dict` or by assigning the `.qconfig` attribute "
                      "directly on submodules")
    add_observer_(model, allow_list)
    return model


def _remove_qconfig(module):
    for m in module.modules():
        if hasattr(m, "qconfig"):
            del m.qconfig


def swap_module(mod, mapping, custom_module_class_mapping=None, use_precomputed_fake_quant=False):
    """``mapping[type(mod)].from_float(mod)`` when ``mod`` has a qconfig, else ``mod``."""
    if getattr(mod, "qconfig", None) is None or type(mod) not in mapping:
        return mod
    new = mapping[type(mod)].from_float(mod)
    new.train(mod.training)
    return new


def _convert(module, mapping, inplace, is_reference):
    for name, child in list(module.named_children()):
        if not isinstance(child, nni._FusedModule) and type(child) not in mapping:
            _convert(child, mapping, True, is_reference)
        module._modules[name] = swap_module(child, mapping)
    return module


def convert(module, mapping=None, inplace=False, remove_qconfig=True, is_reference=False,
            convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    """Swap observed (or QAT) modules for their quantized versions."""
    warn_deprecated()
    if mapping is None:
        mapping = get_default_static_quant_reference_module_mappings() if is_reference \
            else get_default_static_quant_module_mappings()
    if not inplace:
        module = copy.deepcopy(module)
    _convert(module, mapping, True, is_reference)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def quantize(model, run_fn, run_args, mapping=None, inplace=False):
    """prepare, calibrate with ``run_fn(model, *run_args)``, convert."""
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, mapping, inplace=True)
    return model


def quantize_dynamic(model, qconfig_spec=None, dtype=D.qint8, mapping=None, inplace=False):
    """Replace Linear / LSTM / GRU (or the types/names in ``qconfig_spec``) with dynamic int8 modules.

    Args:
        qconfig_spec: None (Linear, LSTM, GRU), a set of module types or names, or a dict mapping
            types/names to qconfigs.
    """
    warn_deprecated()
    if dtype is not D.qint8:
        raise ValueError(f"Don't know how to quantize with default settings for {dtype}. Provide full "
                         "qconfig please")
    if qconfig_spec is None:
        qconfig_spec = {nn.Linear: default_dynamic_qconfig, nn.LSTM: default_dynamic_qconfig,
                        nn.GRU: default_dynamic_qconfig}
    elif isinstance(qconfig_spec, set):
        qconfig_spec = dict.fromkeys(qconfig_spec, default_dynamic_qconfig)
    if mapping is None:
        mapping = get_default_dynamic_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    convert(model, mapping, inplace=True)
    return model


def prepare_qat(model, mapping=None, inplace=False):
    """Swap modules for their QAT versions (fake-quantized weights) and insert fake-quant observers."""
    warn_deprecated()
    if not model.training:
        raise AssertionError("prepare_qat only works on models in training mode")
    if mapping is None:
        mapping = get_default_qat_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, None)
    convert(model, mapping=mapping, inplace=True, remove_qconfig=False)
    prepare(model, inplace=True)
    return model


def quantize_qat(model, run_fn, run_args, inplace=False):
    """prepare_qat, train with ``run_fn(model, *run_args)``, eval, convert."""
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    prepare_qat(model, inplace=True)
    run_fn(model, *run_args)
    model.eval()
    convert(model, inplace=True)
    return model
