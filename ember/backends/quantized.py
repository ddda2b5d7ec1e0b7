"""``torch.backends.quantized``: the quantized engine switch (ember has one CPU implementation).

Example:
    >>> import ember
    >>> ember.backends.quantized.engine, "qnnpack" in ember.backends.quantized.supported_engines
    ('x86', True)
"""
from __future__ import annotations

import sys
import types

__all__ = ["engine", "supported_engines"]

supported_engines = ["qnnpack", "onednn", "x86", "fbgemm"]


class _QuantizedModule(types.ModuleType):
    _engine = "x86"

    @property
    def engine(self) -> str:
        return type(self)._engine

    @engine.setter
    def engine(self, value: str) -> None:
        if value not in supported_engines and value != "none":
            raise RuntimeError(f"quantized engine {value} is not supported")
        type(self)._engine = value


sys.modules[__name__].__class__ = _QuantizedModule
