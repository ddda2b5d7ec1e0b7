"""Write ``tools/torch_api/functions.txt`` and ``tensor_methods.txt``: torch's public names, one a line.

``tools/api_coverage.py`` compares ember with these lists, so coverage can be measured without torch
installed. Functions are the public callables of the ``torch`` namespace that are neither classes nor
modules; tensor methods are the public callables of ``torch.Tensor`` plus its Python operators.

Usage: ``python tools/make_torch_api.py`` (needs torch; rewrites both files, sorted).
"""
from __future__ import annotations

import inspect
import pathlib

import torch

OUT = pathlib.Path(__file__).resolve().parent / "torch_api"
OPERATORS = ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
             "__rmul__", "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__",
             "__rfloordiv__", "__ifloordiv__", "__mod__", "__rmod__", "__imod__", "__pow__", "__rpow__",
             "__ipow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__", "__invert__",
             "__and__", "__rand__", "__iand__", "__or__", "__ror__", "__ior__", "__xor__", "__rxor__",
             "__ixor__", "__lshift__", "__rlshift__", "__ilshift__", "__rshift__", "__rrshift__",
             "__irshift__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__",
             "__setitem__", "__len__", "__iter__", "__bool__", "__float__", "__int__", "__index__",
             "__complex__", "__contains__", "__array__", "__reversed__", "__deepcopy__", "__reduce_ex__",
             "__format__", "__hash__", "__repr__")


def functions() -> list:
    names = []
    for n in dir(torch):
        if n.startswith("_"):
            continue
        v = getattr(torch, n, None)
        if v is None or inspect.isclass(v) or inspect.ismodule(v) or not callable(v):
            continue
        names.append(n)
    return sorted(names)


def tensor_methods() -> list:
    names = [n for n in dir(torch.Tensor) if not n.startswith("_") and callable(getattr(torch.Tensor, n, None))]
    names += [n for n in OPERATORS if hasattr(torch.Tensor, n)]
    return sorted(set(names))


def main() -> None:
    OUT.mkdir(exist_ok=True)
    header = f"# torch {torch.__version__}: written by tools/make_torch_api.py\n"
    (OUT / "functions.txt").write_text(header + "\n".join(functions()) + "\n")
    (OUT / "tensor_methods.txt").write_text(header + "\n".join(tensor_methods()) + "\n")


if __name__ == "__main__":
    main()
