"""QConfigMapping: which qconfig applies to which module or op (FX graph mode quantization).

Precedence, highest first: module name + object type + call order, module name, module name regex,
object type (a module class, a function or a method name), global.

Example:
    >>> from ember.ao.quantization.qconfig import default_qconfig
    >>> m = QConfigMapping().set_global(default_qconfig).set_module_name("fc", None)
    >>> m.module_name_qconfigs["fc"] is None
    True
"""
from __future__ import annotations

from collections import OrderedDict

from ... import _dtype as D
from ...nn import functional as F
from ...nn.modules import activation as A
from ...nn.modules import normalization as N
from ...nn.modules import conv as C
from .observer import (FixedQParamsObserver, HistogramObserver, MinMaxObserver, NoopObserver, PlaceholderObserver, ReuseInputObserver,
                       default_fixed_qparams_range_0to1_observer,
                       default_fixed_qparams_range_neg1to1_observer)
from .fake_quantize import FakeQuantize
from .qconfig import QConfig, get_default_qat_qconfig, get_default_qconfig, default_weight_observer

__all__ = ["QConfigMapping", "get_default_qconfig_mapping", "get_default_qat_qconfig_mapping"]

_KEYS = ("", "object_type", "module_name_regex", "module_name", "module_name_object_type_order")


class QConfigMapping:
    """Mapping from model parts to qconfigs; every setter returns ``self`` for chaining."""

    def __init__(self):
        self.global_qconfig = None
        self.object_type_qconfigs = OrderedDict()
        self.module_name_regex_qconfigs = OrderedDict()
        self.module_name_qconfigs = OrderedDict()
        self.module_name_object_type_order_qconfigs = OrderedDict()

    def set_global(self, global_qconfig):
        self.global_qconfig = global_qconfig
        return self

    def set_object_type(self, object_type, qconfig):
        self.object_type_qconfigs[object_type] = qconfig
        return self

    def set_module_name_regex(self, module_name_regex: str, qconfig):
        self.module_name_regex_qconfigs[module_name_regex] = qconfig
        return self

    def set_module_name(self, module_name: str, qconfig):
        self.module_name_qconfigs[module_name] = qconfig
        return self

    def set_module_name_object_type_order(self, module_name: str, object_type, index: int, qconfig):
        self.module_name_object_type_order_qconfigs[(module_name, object_type, index)] = qconfig
        return self

    def __repr__(self):
        out = self.__class__.__name__ + " ("
        for name, value in (("global_qconfig", self.global_qconfig),
                            ("object_type_qconfigs", self.object_type_qconfigs),
                            ("module_name_regex_qconfigs", self.module_name_regex_qconfigs),
                            ("module_name_qconfigs", self.module_name_qconfigs),
                            ("module_name_object_type_order_qconfigs",
                             self.module_name_object_type_order_qconfigs)):
            out += f"\n {name}"
            if isinstance(value, OrderedDict) and value:
                for k, v in value.items():
                    out += f"\n  {k}: {v}"
            else:
                out += f"\n  {value}"
        return out + "\n)"

    def to_dict(self) -> dict:
        return {
            "": self.global_qconfig,
            "object_type": list(self.object_type_qconfigs.items()),
            "module_name_regex": list(self.module_name_regex_qconfigs.items()),
            "module_name": list(self.module_name_qconfigs.items()),
            "module_name_object_type_order": [(*k, v) for k, v in
                                              self.module_name_object_type_order_qconfigs.items()],
        }

    @classmethod
    def from_dict(cls, qconfig_dict: dict) -> "QConfigMapping":
        m = cls()
        if "" in qconfig_dict:
            m.set_global(qconfig_dict[""])
        for t, qc in qconfig_dict.get("object_type", []):
            m.set_object_type(t, qc)
        for r, qc in qconfig_dict.get("module_name_regex", []):
            m.set_module_name_regex(r, qc)
        for n, qc in qconfig_dict.get("module_name", []):
            m.set_module_name(n, qc)
        for n, t, i, qc in qconfig_dict.get("module_name_object_type_order", []):
            m.set_module_name_object_type_order(n, t, i, qc)
        return m


def _mapping(global_qconfig, is_qat: bool) -> QConfigMapping:
    weight = default_weight_observer
    fixed_01 = default_fixed_qparams_range_0to1_observer
    fixed_11 = default_fixed_qparams_range_neg1to1_observer
    if is_qat:
        fixed_01 = FakeQuantize.with_args(observer=FixedQParamsObserver.with_args(
            scale=1.0 / 256.0, zero_point=0, dtype=D.quint8, quant_min=0, quant_max=255))
        fixed_11 = FakeQuantize.with_args(observer=FixedQParamsObserver.with_args(
            scale=2.0 / 256.0, zero_point=128, dtype=D.quint8, quant_min=0, quant_max=255))
    m = QConfigMapping().set_global(global_qconfig)
    m.set_object_type("reshape", QConfig(activation=ReuseInputObserver, weight=NoopObserver))
    for t in (C.ConvTranspose1d, C.ConvTranspose2d, C.ConvTranspose3d, F.conv_transpose1d,
              F.conv_transpose2d, F.conv_transpose3d):
        m.set_object_type(t, QConfig(activation=global_qconfig.activation, weight=weight))
    for t in (F.layer_norm, N.LayerNorm):
        m.set_object_type(t, QConfig(activation=global_qconfig.activation, weight=PlaceholderObserver))
    m.set_object_type(A.PReLU, QConfig(activation=HistogramObserver, weight=MinMaxObserver))
    for t in (A.Hardsigmoid, F.hardsigmoid, "hardsigmoid", "hardsigmoid_", A.Sigmoid, F.sigmoid,
              "sigmoid", "sigmoid_", A.Softmax):
        m.set_object_type(t, QConfig(activation=fixed_01, weight=weight))
    for t in (A.Tanh, F.tanh, "tanh", "tanh_"):
        m.set_object_type(t, QConfig(activation=fixed_11, weight=weight))
    return m


def get_default_qconfig_mapping(backend: str = "x86", version: int = 0) -> QConfigMapping:
    """torch's default post-training mapping: ``get_default_qconfig(backend)`` plus fixed-qparams ops."""
    return _mapping(get_default_qconfig(backend, version), is_qat=False)


def get_default_qat_qconfig_mapping(backend: str = "x86", version: int = 1) -> QConfigMapping:
    """The quantization-aware-training counterpart of ``get_default_qconfig_mapping``."""
    return _mapping(get_default_qat_qconfig(backend, version), is_qat=True)
