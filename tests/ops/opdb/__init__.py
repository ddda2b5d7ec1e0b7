"""The op database: every op's entry, gathered from one file per family."""
from ._core import OpInfo, Sample  # noqa: F401

OPS: list = []
for _family in ("pointwise", "reduction", "view", "shape_copy", "indexing", "linalg", "foreach",
                "pointwise_math", "sorting", "scan", "nn", "linalg_decomp", "fft", "special", "statistics"):
    try:
        _mod = __import__(f"{__name__}.{_family}", fromlist=["OPS"])
    except ModuleNotFoundError as e:  # a family file not written yet
        if e.name != f"{__name__}.{_family}":
            raise
        continue
    OPS.extend(_mod.OPS)
