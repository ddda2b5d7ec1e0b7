"""Write ember/_mode_names.py: which public names a TorchFunctionMode sees in torch, and under which name.

Run with torch installed: ``python tools/make_mode_names.py``. Facts come from torch itself: every
function in ``torch.overrides.get_testing_overrides()`` (per namespace), the factories a mode sees
(probed below), and, for operators, the name torch hands the mode (probed: ``a + b`` shows ``add``,
``1 - a`` shows ``__rsub__``).
"""
from __future__ import annotations

import operator
import pathlib
import textwrap
import warnings

import torch
from torch.overrides import TorchFunctionMode, get_testing_overrides

warnings.filterwarnings("ignore")
NAMESPACES = {"torch": torch, "functional": torch.nn.functional, "linalg": torch.linalg,
              "fft": torch.fft, "special": torch.special}
FACTORY_CANDIDATES = ("zeros", "ones", "full", "empty", "tensor", "arange", "rand", "randn", "eye",
                      "linspace", "logspace", "as_tensor", "randint", "randperm", "normal", "scalar_tensor",
                      "empty_strided", "hann_window", "hamming_window", "blackman_window", "bartlett_window",
                      "kaiser_window", "tril_indices", "triu_indices", "asarray", "from_numpy", "frombuffer",
                      "range", "can_cast", "promote_types", "broadcast_shapes", "is_tensor", "manual_seed")


def _probe_factory(name):
    seen = []

    class Watch(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))
    fn = getattr(torch, name)
    argsets = {"full": ((2,), 1.0), "tensor": ([1.0],), "as_tensor": ([1.0],), "asarray": ([1.0],),
               "linspace": (0, 1, 3), "logspace": (0, 1, 3), "randint": (3, (2,)), "normal": (0.0, 1.0, (2,)),
               "scalar_tensor": (1.0,), "empty_strided": ((2,), (1,)), "tril_indices": (3, 3),
               "triu_indices": (3, 3), "from_numpy": (__import__("numpy").ones(2),),
               "frombuffer": (bytearray(8),), "range": (0, 2), "can_cast": (torch.float32, torch.int32),
               "promote_types": (torch.float32, torch.int32), "broadcast_shapes": ((2,), (1,)),
               "is_tensor": (1,), "manual_seed": (0,)}
    kwargs = {"dtype": torch.float32} if name == "frombuffer" else {}
    with Watch():
        fn(*argsets.get(name, (3,)), **kwargs)
    return bool(seen) and seen[0] == name


def _operator_names() -> dict:
    """Tensor attribute -> the name torch's mode sees for it (operators only)."""
    t, b, i = torch.ones(3), torch.ones(3, dtype=torch.bool), torch.ones(3, dtype=torch.int64)
    calls = {"__add__": lambda: t + t, "__radd__": lambda: 1 + t, "__sub__": lambda: t - t,
             "__rsub__": lambda: 1 - t, "__mul__": lambda: t * t, "__rmul__": lambda: 2 * t,
             "__truediv__": lambda: t / t, "__rtruediv__": lambda: 1 / t, "__floordiv__": lambda: t // t,
             "__rfloordiv__": lambda: 1 // t, "__mod__": lambda: t % t, "__rmod__": lambda: 1 % t,
             "__pow__": lambda: t ** t, "__rpow__": lambda: 2 ** t, "__matmul__": lambda: t @ t,
             "__neg__": lambda: -t, "__pos__": lambda: +t, "__abs__": lambda: abs(t),
             "__invert__": lambda: ~b, "__and__": lambda: b & b, "__rand__": lambda: True & b,
             "__or__": lambda: b | b, "__ror__": lambda: True | b, "__xor__": lambda: b ^ b,
             "__rxor__": lambda: True ^ b, "__lshift__": lambda: i << i, "__rlshift__": lambda: 1 << i,
             "__rshift__": lambda: i >> i, "__rrshift__": lambda: 1 >> i, "__eq__": lambda: t == t,
             "__ne__": lambda: t != t, "__lt__": lambda: t < t, "__le__": lambda: t <= t,
             "__gt__": lambda: t > t, "__ge__": lambda: t >= t, "__len__": lambda: len(t),
             "__contains__": lambda: 1.0 in t, "__repr__": lambda: repr(t),
             "__reversed__": lambda: reversed(t), "__getitem__": lambda: t[0],
             "__setitem__": lambda: operator.setitem(t.clone(), 0, 1.0)}
    inplace = {"__iadd__": "+=", "__isub__": "-=", "__imul__": "*=", "__itruediv__": "/=",
               "__ipow__": "**=", "__imod__": "%=", "__ifloordiv__": "//=", "__iand__": "&=",
               "__ior__": "|=", "__ixor__": "^=", "__ilshift__": "<<=", "__irshift__": ">>="}
    out = {}
    for name, fn in calls.items():
        seen = []

        class Watch(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))
        with Watch():
            fn()
        out[name] = seen[-1] if name == "__setitem__" else seen[0]
    for name, sym in inplace.items():
        x = (b if sym in ("&=", "|=", "^=") else i if "<<" in sym or ">>" in sym else t).clone()
        seen = []

        class Watch(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))
        env = {"x": x, "y": x.clone() if x.dtype == torch.bool else 1}
        with Watch():
            exec(f"x {sym} y", env)
        out[name] = seen[0]
    return out


def _method_aliases(methods) -> dict:
    """Methods torch shows under another method's name (``x.ndimension()`` shows ``dim``), found by
    calling each method that takes no argument."""
    out = {}
    for name in sorted(methods):
        if name.startswith("_"):
            continue
        seen = []

        class Watch(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))
        t = torch.ones(2, 2)
        try:
            with Watch():
                getattr(t, name)()
        except Exception:  # noqa: BLE001 (methods needing arguments: no alias to learn)
            continue
        if seen and seen[0] != name and seen[0] in methods:
            out[name] = seen[0]
    return out


def main() -> None:
    over = get_testing_overrides()
    names: dict = {k: set() for k in NAMESPACES}
    methods, properties = set(), set()
    for fn in over:
        owner = getattr(fn, "__self__", None)
        if getattr(fn, "__name__", "") == "__get__" and owner is not None:
            pname = getattr(owner, "__name__", None) or getattr(owner.fget, "__name__", None)
            if pname:
                properties.add(pname)
            continue
        for key, ns in NAMESPACES.items():
            for n in dir(ns):
                if getattr(ns, n, None) is fn:
                    names[key].add(n)
        for n in dir(torch.Tensor):
            if getattr(torch.Tensor, n, None) is fn:
                methods.add(n)
    names["torch"] |= {n for n in FACTORY_CANDIDATES if _probe_factory(n)}
    ops = _operator_names()
    ops.update(_method_aliases(methods))
    lines = ['"""Generated by tools/make_mode_names.py from torch: the public names a TorchFunctionMode sees',
             '(per namespace), Tensor methods and properties, and the name torch shows for each operator."""',
             "", "NAMESPACES = {"]
    def block(items, indent):
        return textwrap.fill(", ".join(repr(x) for x in items), 100, initial_indent=indent,
                             subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    for key in NAMESPACES:
        lines += [f"    {key!r}: frozenset({{", block(sorted(names[key]), " " * 8), "    }),"]
    lines += ["}", "METHODS = frozenset({", block(sorted(methods - set(ops)), "    "), "})",
              "PROPERTIES = frozenset({", block(sorted(properties), "    "), "})",
              "# Tensor attribute -> the name a mode sees (operators; aliases torch shows as another method)",
              "SHOWN = {", block([f"{k!r}: {v!r}" for k, v in sorted(ops.items())], "    ").replace('"', ""), "}", ""]
    path = pathlib.Path(__file__).resolve().parents[1] / "ember" / "_mode_names.py"
    text = "\n".join(lines)
    path.write_text(text)
    print(f"wrote {path}: {sum(len(v) for v in names.values())} functions, {len(methods)} methods, "
          f"{len(properties)} properties, {len(ops)} operators")


if __name__ == "__main__":
    main()
