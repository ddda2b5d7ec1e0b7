"""``ember.nn``: modules, parameters, functional and init, with torch.nn's names.

Example:
    >>> import ember
    >>> from ember import nn
    >>> net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> net(ember.ones(3, 4)).shape
    torch.Size([3, 2])
"""
from . import functional, init, utils
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .modules.module import (register_module_forward_hook, register_module_forward_pre_hook,
                             register_module_full_backward_hook,
                             register_module_full_backward_pre_hook)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional",
           "init", "utils", "register_module_forward_hook", "register_module_forward_pre_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook",
           *_modules_all]


def __getattr__(name):
    # nn.parallel belongs to a higher layer (distributed): imported on first use
    if name in ("parallel", "DataParallel"):
        import importlib
        parallel = importlib.import_module(".parallel", __name__)
        return parallel if name == "parallel" else parallel.DataParallel
    if name in ("quantized", "intrinsic", "qat"):  # torch's legacy aliases of ao.nn (a higher layer)
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ember.nn' has no attribute '{name}'")
