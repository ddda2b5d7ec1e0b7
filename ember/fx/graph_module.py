"""``GraphModule``: an ``nn.Module`` whose ``forward`` is Python code generated from a Graph.

It holds copies of the submodules, parameters and buffers the graph refers to; assigning
``gm.graph`` or calling ``gm.recompile()`` regenerates ``forward``.

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.fx import symbolic_trace
    >>> gm = symbolic_trace(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))
    >>> print(gm.code.strip())
    def forward(self, input):
        input_1 = input
        _0 = getattr(self, "0")(input_1);  input_1 = None
        _1 = getattr(self, "1")(_0);  _0 = None
        return _1
"""
from __future__ import annotations

import copy
import itertools
import linecache
import warnings
from pathlib import Path

from .._tensor import Tensor
from ..nn.modules.module import Module, _addindent
from ..nn.parameter import Parameter
from .graph import Graph

__all__ = ["GraphModule"]

_next_id = itertools.count()


def _exec_with_source(src: str, globals_: dict) -> None:
    # a unique pseudo-file registered with linecache, so tracebacks show the generated lines
    key = f"<eval_with_key>.{next(_next_id)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    exec(compile(src, key, "exec"), globals_)


def _forward_from_src(src: str, globals_: dict):
    globals_copy = dict(globals_)
    _exec_with_source(src, globals_copy)
    fn = globals_copy["forward"]
    del globals_copy["forward"]
    return fn


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
        setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    # a tensor that is not a parameter is stored as a buffer, so state_dict and .to() see it
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module: Module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class GraphModule(Module):
    """A Module built from ``root`` (a Module or a dict of attributes) and ``graph``."""

    def __new__(cls, *args, **kwargs):
        # every instance gets its own class: forward is set on the class, per graph
        for t in cls.__mro__:
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):  # noqa: D401
            pass
        GraphModuleImpl.__module__ = cls.__module__
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph: Graph, class_name: str = "GraphModule") -> None:
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(f"Node {node} referenced target {node.target} but that "
                                           "target was not provided in ``root``!")
                    targets.append(node.target)
            for target in sorted(targets, key=lambda t: t.count(".")):
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")
        self.graph = graph
        self._tracer_cls = graph._tracer_cls
        self.meta: dict = {}

    @property
    def graph(self) -> Graph:
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of the generated ``forward``."""
        if "_code" not in self.__dict__:
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerate ``forward`` from ``self.graph`` (call after editing the graph in place)."""
        python_code = self._graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        type(self).forward = _forward_from_src(python_code.src, python_code.globals)
        return python_code

    def print_readable(self, print_output: bool = True, include_stride: bool = False,
                       include_device: bool = False, colored: bool = False) -> str:
        """The module as a class definition: generated forward plus nested GraphModules."""
        out = self._print_readable(self.__class__.__name__)
        if print_output:
            print(out)
        return out

    def _print_readable(self, name: str) -> str:
        code = self._graph.python_code(root_module="self", verbose=True).src.lstrip("\n").rstrip()
        out = f"class {name}(ember.nn.Module):\n    " + code.replace("\n", "\n    ")
        subs = [(n, m) for n, m in self.named_children() if isinstance(m, GraphModule)]
        for sub_name, sub in subs:
            out += "\n\n    " + sub._print_readable(sub_name).replace("\n", "\n    ")
        return out + "\n"

    # ------------------------------------------------------------------ submodule management
    def add_submodule(self, target: str, m: Module) -> bool:
        """Install ``m`` at the dotted path ``target``, creating empty parents as needed."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        *path, name = target.split(".")
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, name):
            return False
        if not isinstance(getattr(mod, name), Module):
            return False
        delattr(mod, name)
        return True

    def delete_all_unused_submodules(self) -> None:
        used: list = []
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                fullpath = node.target.split(".")
                for i in range(1, len(fullpath) + 1):
                    used.append(".".join(fullpath[:i]))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    used.extend(f"{node.target}.{n}" for n, _ in sub.named_modules() if n)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    # ------------------------------------------------------------------ copying
    def __reduce__(self):
        body = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        return (_reconstruct, (body, self._graph, self.__class__.__name__))

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake_mod = Module()
        fake_mod.__dict__ = copy.deepcopy({k: v for k, v in self.__dict__.items() if k != "_code"},
                                          memo)
        GraphModule.__init__(res, fake_mod, fake_mod.__dict__["_graph"], self.__class__.__name__)
        for attr in ("_forward_hooks", "_forward_pre_hooks", "_state_dict_hooks"):
            if attr in self.__dict__:
                res.__dict__[attr] = copy.deepcopy(self.__dict__[attr], memo)
        res.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        return res

    def __copy__(self):
        res = GraphModule(self, self.graph, self.__class__.__name__)
        res.meta = getattr(self, "meta", {})
        return res

    def __str__(self) -> str:
        return "\n".join([super().__repr__(), self._code,
                          "# To see more debug info, please use `graph_module.print_readable()`"])

    # ------------------------------------------------------------------ export
    def to_folder(self, folder, module_name: str = "FxModule") -> None:
        """Write ``module.py`` (a standalone Module class) and the weights into ``folder``."""
        from ..serialization import save
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        save(self.state_dict(), folder / "state_dict.pt")
        python_code = self._graph.python_code(root_module="self")
        imports = ["import ember", "from math import inf, nan", "NoneType = type(None)"]
        for gname, obj in python_code.globals.items():
            if gname in ("ember", "inf", "nan", "NoneType"):
                continue
            mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
            if mod is None or qual is None or "<" in qual:
                warnings.warn(f"Cannot export {obj!r} to module.py: it is not importable",
                              stacklevel=2)
                continue
            imports.append(f"from {mod} import {qual.split('.')[0]} as _{gname}_root\n"
                           f"{gname} = _{gname}_root" +
                           "".join(f".{p}" for p in qual.split(".")[1:]))
        tab = " " * 4
        src = "\n".join(imports) + f"\n\n\nclass {module_name}(ember.nn.Module):\n"
        src += f"{tab}def __init__(self):\n{tab * 2}super().__init__()\n"
        for name, module in self.named_children():
            save(module, folder / f"{name}.pt")
            src += f"{tab * 2}self.{name} = ember.load(r'{folder / (name + '.pt')}', " \
                   "weights_only=False)\n"
        for name, buf in self._buffers.items():
            if buf is not None:
                src += (f"{tab * 2}self.register_buffer('{name}', ember.empty({list(buf.shape)}, "
                        f"dtype=ember.{str(buf.dtype).split('.')[-1]}))\n")
        for name, p in self._parameters.items():
            if p is not None:
                src += (f"{tab * 2}setattr(self, '{name}', ember.nn.Parameter(ember.empty("
                        f"{list(p.shape)}, dtype=ember.{str(p.dtype).split('.')[-1]})))\n")
        src += f"{tab * 2}self.load_state_dict(ember.load(r'{folder / 'state_dict.pt'}'))\n"
        src += _addindent(python_code.src, 4) + "\n"
        (folder / "module.py").write_text(src)
        (folder / "__init__.py").write_text("from .module import *\n")


def _reconstruct(body: dict, graph: Graph, class_name: str) -> GraphModule:
    gm = GraphModule.__new__(GraphModule)
    gm.__dict__.update(body)
    gm.__class__.__name__ = class_name
    gm.graph = graph
    return gm
