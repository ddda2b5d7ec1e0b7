"""Compiler settings, read on every compile (torch's names; ``cache_size_limit`` aliases ``recompile_limit``).

Example:
    >>> from ember._dynamo import config
    >>> config.recompile_limit
    8
"""
from __future__ import annotations

import sys
import types

recompile_limit = 8                  # cache entries per code object before it runs eagerly
accumulated_recompile_limit = 256    # cache entries over all code objects
suppress_errors = False              # a failing backend falls back to eager instead of raising
capture_scalar_outputs = False       # .item() stays a graph break in this part either way
verbose = False
inline_instruction_limit = 50_000    # instructions one capture may execute (unrolled loops included)
inline_depth_limit = 64
resume_on_graph_break = True        # a break compiles the prefix and resumes after it (False: frame eager)

_ALIASES = {"cache_size_limit": "recompile_limit",
            "accumulated_cache_size_limit": "accumulated_recompile_limit"}


class _ConfigModule(types.ModuleType):
    def __getattr__(self, name):
        if name in _ALIASES:
            return getattr(self, _ALIASES[name])
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        super().__setattr__(_ALIASES.get(name, name), value)


sys.modules[__name__].__class__ = _ConfigModule
