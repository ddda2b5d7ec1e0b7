"""``torch.ao.quantization``: observers, fake-quant, qconfigs, eager and FX graph-mode quantization.

Example:
    >>> import ember
    >>> obs = MinMaxObserver(dtype=ember.qint8, qscheme=ember.per_tensor_symmetric)
    >>> _ = obs(ember.tensor([-2.0, 1.0]))
    >>> obs.calculate_qparams()[1].tolist()
    [0]
"""
from .observer import *  # noqa: F401,F403
from .observer import __all__ as _observer_all
from .fake_quantize import *  # noqa: F401,F403
from .fake_quantize import __all__ as _fake_quantize_all
from .qconfig import *  # noqa: F401,F403
from .qconfig import __all__ as _qconfig_all
from .qconfig_mapping import *  # noqa: F401,F403
from .qconfig_mapping import __all__ as _qconfig_mapping_all
from .stubs import DeQuantStub, QuantStub, QuantWrapper
from .fuse_modules import fuse_modules, fuse_modules_qat, get_fuser_method
from .quantization_mappings import *  # noqa: F401,F403
from .quantization_mappings import __all__ as _mappings_all
from .quantize import *  # noqa: F401,F403
from .quantize import __all__ as _quantize_all
from . import quantize_fx  # noqa: F401

__all__ = (_observer_all + _fake_quantize_all + _qconfig_all + _qconfig_mapping_all + _mappings_all
           + _quantize_all + ["QuantStub", "DeQuantStub", "QuantWrapper", "fuse_modules",
                              "fuse_modules_qat", "get_fuser_method"])
