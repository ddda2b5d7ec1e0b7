"""Python source from a Graph: one statement per node, values freed after their last use.

The code names public ember callables by their import path (``ember.relu``,
``ember.nn.functional.softmax``); other objects (user functions, classes) are passed in through the
globals dict of ``PythonCode``.

Example:
    >>> from ember.fx import Graph
    >>> import operator
    >>> g = Graph()
    >>> x = g.placeholder("x")
    >>> _ = g.output(g.call_function(operator.add, (x, 1)))
    >>> print(g.python_code("self").src.strip())
    def forward(self, x):
        add = x + 1;  x = None
        return add
"""
from __future__ import annotations

import builtins
import enum
import keyword
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from ._wrap import wrap
from .node import Node, _get_qualified_name

__all__ = ["CodeGen", "PythonCode", "magic_methods", "reflectable_magic_methods", "inplace_methods"]

reflectable_magic_methods = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}",
    "truediv": "{} / {}", "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}",
    "lshift": "{} << {}", "rshift": "{} >> {}", "and_": "{} & {}", "or_": "{} | {}",
    "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
}
magic_methods = {
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}",
    "ge": "{} >= {}", "pos": "+{}", "neg": "-{}", "invert": "~{}", **reflectable_magic_methods,
}
inplace_methods = {
    "iadd": "{} += {}", "iand": "{} &= {}", "ifloordiv": "{} //= {}", "ilshift": "{} <<= {}",
    "imod": "{} %= {}", "imul": "{} *= {}", "imatmul": "{} @= {}", "ior": "{} |= {}",
    "ipow": "{} **= {}", "irshift": "{} >>= {}", "isub": "{} -= {}", "itruediv": "{} /= {}",
    "ixor": "{} ^= {}", "setitem": "{}[{}] = {}",
}

# names a node may not take (keywords, builtins, and the globals every generated module has)
_illegal_names: dict = {k: object() for k in keyword.kwlist}
_illegal_names.update(builtins.__dict__)
_custom_builtins: dict = {"inf": math.inf, "nan": math.nan, "NoneType": type(None)}
_illegal_names.update(_custom_builtins)
_illegal_names["ember"] = object()
_illegal_names["device"] = object()

_illegal_char_regex = re.compile("[^0-9a-zA-Z_]+")
_name_regex = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")


class _Namespace:
    """Unique, legal Python names: each object one name, each name one object, no shadowing."""

    def __init__(self) -> None:
        self._obj_to_name: dict = {}
        self._used_names: set = set()
        self._base_count: dict = {}

    def create_name(self, candidate: str, obj) -> str:
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        match = _name_regex.match(candidate)
        if match is None:
            candidate = _illegal_char_regex.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
            match = _name_regex.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used_names:
            num = self._base_count.get(base, 0)
            if _illegal_names.get(candidate, obj) is not obj:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used_names:
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def _rename(self, obj, name: str) -> None:
        if obj in self._obj_to_name:
            self._obj_to_name[obj] = name
        self._used_names.add(name)


@dataclass
class PythonCode:
    """The generated source and the globals it needs to run."""
    src: str
    globals: dict = field(default_factory=dict)
    _lineno_map: Any = None


def _format_target(base: str, target: str) -> str:
    r = base
    for e in target.split("."):
        r = f'getattr({r}, "{e}")' if not e.isidentifier() else f"{r}.{e}"
    return r


def _is_from_ember(obj) -> bool:
    mod = getattr(obj, "__module__", None) or ""
    if mod.split(".")[0] != "ember":
        return False
    try:
        return _get_qualified_name(obj).startswith("ember.")
    except RuntimeError:
        return False


class CodeGen:
    """Turns a Graph into ``def forward(...)`` source; subclass to change the calling convention."""

    def gen_fn_def(self, free_vars: list, maybe_return_annotation: str) -> str:
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args, repr_fn=repr) -> str:
        return f"return {repr_fn(output_args)}"

    def _gen_python_code(self, nodes, root_module: str, namespace: _Namespace, *,
                         verbose: bool = False) -> PythonCode:
        free_vars: list = []
        body: list = []
        globals_: dict = {}
        wrapped_fns: dict = {}
        ret_annotation = [""]

        def add_global(name_hint: str, obj) -> str:
            if _is_from_ember(obj):
                globals_["ember"] = sys.modules["ember"]
                return _get_qualified_name(obj)
            name = namespace.create_name(name_hint, obj)
            globals_[name] = obj
            return name

        for name, obj in _custom_builtins.items():
            add_global(name, obj)

        def type_repr(o) -> str:
            if o is None or o is type(None):
                return "None"
            if isinstance(o, type):
                if o.__module__ == "builtins":
                    return o.__qualname__
                return add_global(o.__qualname__.replace(".", "_"), o)
            return add_global(getattr(o, "__name__", "T"), o) if callable(o) else repr(o)

        def get_repr(arg) -> str:
            if isinstance(arg, Node):
                return arg.name
            t = type(arg)
            if t is tuple:
                inner = ", ".join(get_repr(a) for a in arg)
                return f"({inner},)" if len(arg) == 1 else f"({inner})"
            if isinstance(arg, tuple) and hasattr(arg, "_fields"):
                g = add_global(t.__qualname__.replace(".", "_"), t)
                return f"{g}({', '.join(get_repr(a) for a in arg)})"
            if isinstance(arg, list):
                return "[" + ", ".join(get_repr(a) for a in arg) + "]"
            if isinstance(arg, dict):
                return "{" + ", ".join(f"{get_repr(k)}: {get_repr(v)}" for k, v in arg.items()) + "}"
            if t is slice:
                return f"slice({get_repr(arg.start)}, {get_repr(arg.stop)}, {get_repr(arg.step)})"
            if isinstance(arg, enum.Enum):
                return f"{add_global(t.__name__, t)}.{arg.name}"
            mod = getattr(t, "__module__", "") or ""
            if mod.startswith("ember"):
                if t.__name__ == "dtype":
                    globals_["ember"] = sys.modules["ember"]
                    return "ember." + str(arg).split(".")[-1]
                if t.__name__ == "device":
                    return f"{add_global('device', t)}({str(arg)!r})"
                if t.__name__ == "Size":
                    globals_["ember"] = sys.modules["ember"]
                    return f"ember.Size({list(arg)!r})"
            if isinstance(arg, type) or callable(arg) and not isinstance(arg, (int, float)):
                try:
                    return add_global(_get_qualified_name(arg), arg)
                except RuntimeError:
                    pass
            return repr(arg)

        def format_args(args, kwargs) -> str:
            res = [get_repr(a) for a in args]
            res.extend(f"{k} = {get_repr(v)}" for k, v in kwargs.items())
            return ", ".join(res)

        # free each value right after its last use
        user_to_last_uses: dict = {}
        seen: set = set()
        for node in reversed(nodes):
            for inp in node._input_nodes:
                if inp not in seen:
                    seen.add(inp)
                    user_to_last_uses.setdefault(node, []).append(inp)

        def delete_unused_values(user: Node) -> None:
            if user.op == "placeholder":
                return
            if user.op == "output":
                body.append("\n")
                return
            to_delete = list(user_to_last_uses.get(user, []))
            if len(user.users) == 0:
                to_delete.append(user)
            if to_delete:
                body.append(";  " + " = ".join([n.name for n in to_delete] + ["None"]) + "\n")
            else:
                body.append("\n")

        def emit_node(node: Node) -> None:
            ann = "" if node.type is None else f" : {type_repr(node.type)}"
            if verbose and "tensor_meta" in node.meta:
                tm = node.meta["tensor_meta"]
                if hasattr(tm, "shape"):
                    ann = f': "{str(tm.dtype).split(".")[-1]}{list(tm.shape)}"'
            if node.op == "placeholder":
                default = "" if not node.args else f" = {get_repr(node.args[0])}"
                free_vars.append(f"{node.target}{ann}{default}")
                raw = node.target.replace("*", "")
                if raw != node.name:
                    body.append(f"{node.name} = {raw}\n")
                return
            def assign(value: str) -> None:
                body.append(f"{node.name}{ann} = {value}")

            if node.op == "call_method":
                assign(f"{_format_target(get_repr(node.args[0]), node.target)}"
                       f"({format_args(node.args[1:], node.kwargs)})")
                return
            if node.op == "call_function":
                tgt = node.target
                mod, fname = getattr(tgt, "__module__", ""), getattr(tgt, "__name__", "")
                if mod == "_operator" and fname in magic_methods and not node.kwargs:
                    assign(magic_methods[fname].format(*(get_repr(a) for a in node.args)))
                    return
                if mod == "_operator" and fname in inplace_methods and not node.kwargs:
                    body.append(f"{inplace_methods[fname].format(*(get_repr(a) for a in node.args))};  "
                                f"{node.name}{ann} = {get_repr(node.args[0])}")
                    return
                gname = add_global(_get_qualified_name(tgt), tgt)
                if gname == "getattr" and len(node.args) == 2 and isinstance(node.args[1], str) \
                        and node.args[1].isidentifier():
                    assign(_format_target(get_repr(node.args[0]), node.args[1]))
                    return
                assign(f"{gname}({format_args(node.args, node.kwargs)})")
                if node.meta.get("is_wrapped", False):
                    wrapped_fns.setdefault(gname)
                return
            if node.op == "call_module":
                assign(f"{_format_target(root_module, node.target)}({format_args(node.args, node.kwargs)})")
                return
            if node.op == "get_attr":
                assign(_format_target(root_module, node.target))
                return
            if node.op == "output":
                if node.type is not None:
                    ret_annotation[0] = f" -> {type_repr(node.type)}"
                body.append(self.generate_output(node.args[0], repr_fn=get_repr))
                return
            raise NotImplementedError(f"node: {node.op} {node.target}")

        for node in nodes:
            emit_node(node)
            delete_unused_values(node)

        if not body:
            body.append("pass\n")
        wrap_stmts = ""
        if wrapped_fns:
            wrap_name = add_global("wrap", wrap)
            wrap_stmts = "\n".join(f'{wrap_name}("{name}")' for name in wrapped_fns)
        prologue = self.gen_fn_def(free_vars, ret_annotation[0])
        code = "".join(body).lstrip("\n")
        code = "\n".join("    " + line for line in code.split("\n"))
        return PythonCode(f"\n{wrap_stmts}\n\n{prologue}\n{code}", globals_)
