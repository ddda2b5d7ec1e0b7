"""The op database: every op's entry, gathered from one file per family."""
from ._core import OpInfo, Sample  # noqa: F401

OPS: list = []
for _family in ("pointwise", "reduction", "view", "shape_copy", "indexing", "linalg", "foreach",
                "pointwise_math", "sorting", "scan", "nn", "linalg_decomp", "fft", "special", "statistics", "quantized", "random"):
    # a missing or broken family file fails the import (and so the whole op-database run) loudly
    _ops = __import__(f"{__name__}.{_family}", fromlist=["OPS"]).OPS
    for _op in _ops:
        _op.family = _family
    OPS.extend(_ops)
