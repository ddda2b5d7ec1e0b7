"""``torch.quantization``: the legacy alias of ``torch.ao.quantization`` (same objects).

Example:
    >>> import ember
    >>> ember.quantization.MinMaxObserver is ember.ao.quantization.MinMaxObserver
    True
"""
from ..ao.quantization import *  # noqa: F401,F403
from ..ao.quantization import __all__  # noqa: F401
from ..ao.quantization import (fake_quantize, fuse_modules as _fuse, observer, qconfig,  # noqa: F401
                               quantization_mappings, quantize, quantize_fx, stubs)
from ..ao.quantization.fuse_modules import fuse_conv_bn, fuse_conv_bn_relu, fuse_linear_bn  # noqa: F401
