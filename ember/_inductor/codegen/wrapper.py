"""The wrapper: a generated Python function that runs one graph's schedule on NumPy arrays (L7).

It unpacks the ember tensors' arrays, calls kernels, BLAS and eager externs and NumPy ufuncs in
schedule order, allocates each kernel's outputs (or reuses a dead input of the same shape in place),
``del``s buffers after their last use, and wraps the outputs as ember tensors. Its source is
registered in ``linecache`` so tracebacks show the generated lines.

Example:
    >>> import ember
    >>> from ember._functorch.aot_autograd import aot_function
    >>> from ..compile_fx import compile_fx_inner
    >>> srcs = []
    >>> def keep(gm, ex):
    ...     fn = compile_fx_inner(gm, ex)
    ...     srcs.append(fn.wrapper_source)
    ...     return fn
    >>> f = aot_function(lambda x: (x * 2 + 1).relu(), keep)
    >>> f(ember.tensor([-1.0, 2.0])).tolist()
    [0.0, 5.0]
    >>> "def call(args):" in srcs[0]
    True
"""
from __future__ import annotations

import linecache

import numpy as np

from ..._dtype import FROM_NP
from ..._tensor_base import wrap
from .. import codecache, config, metrics
from ..compile_worker import predict_arg_types
from ..ir import Buffer
from ..scheduler import FusedGroup
from .kernel import KernelSpec

__all__ = ["WrapperCodegen"]

_OWNED = ("group", "ufunc", "fresh")
_UFUNCS = {"np.exp({0})": "np.exp", "np.log({0})": "np.log", "np.tanh({0})": "np.tanh",
           "np.sin({0})": "np.sin", "np.cos({0})": "np.cos", "np.log1p({0})": "np.log1p",
           "np.expm1({0})": "np.expm1", "exp_float32({0})": "np.exp",
           "tanh_float32({0})": "np.tanh", "sigmoid_float32({0})": "_expit",
           "sigmoid_float64({0})": "_expit", "erf_float32({0})": "_erf",
           "erf_float64({0})": "_erf"}
_count = [0]


class WrapperCodegen:
    """Generate and load the wrapper for ``lowering`` (a ``GraphLowering``) and ``items`` (the
    schedule)."""

    def __init__(self, lowering, items: list) -> None:
        self.L = lowering
        self.items = items
        self.globals: dict = {"np": np, "_wrap": wrap}
        self.lines: list = []
        self.kernel_sources: list = []
        self.owner: dict = {}
        self.n_kernels = self.n_ufuncs = self.n_externs = 0
        self.unstored: set = set()  # group members kept in registers: no Python name

    def _last_uses(self) -> dict:
        # unused side-effect-free values (e.g. the parts of a merged slice_backward) are dropped
        self.skip = {it for it in self.items if getattr(it, "pure", False) and not it.users
                     and it not in self.outputs}
        last = {}
        for i, it in enumerate(self.items):
            if it in self.skip:
                continue
            bufs = it.members if isinstance(it, FusedGroup) else [it]
            for b in bufs:
                for d in b.inputs:
                    last[d] = i
        return last

    def generate(self) -> str:
        L = self.L
        outputs = {o for o in _flat(L.outputs) if isinstance(o, Buffer)}
        self.outputs = outputs
        last = self._last_uses()
        self.last = last
        ln = self.lines
        ln.append("def call(args):")
        for b in L.inputs:
            if b.dtype is not None:
                ln.append(f"    {b.name} = args[{b.index}]._data")
            else:
                ln.append(f"    {b.name} = args[{b.index}]")
        ln.append("    args.clear()")
        dies: dict = {}  # item index -> buffers last read there (one pass, not one per item)
        for d, j in last.items():
            if d not in outputs and d.kind != "input":
                dies.setdefault(j, []).append(d)
        for i, it in enumerate(self.items):
            if it in self.skip:
                pass
            elif isinstance(it, FusedGroup):
                self._group(it, i)
            else:
                self._single(it, i)
            dead = sorted({d.name for d in dies.get(i, ())} - self.unstored)
            if dead:
                ln.append(f"    del {', '.join(dead)}")
        ln.append(f"    return {self._out_expr(L.outputs)}")
        return "\n".join(ln) + "\n"

    def _out_expr(self, outs) -> str:
        parts = []
        for o in outs:
            if isinstance(o, Buffer):
                if o.kind == "input":
                    parts.append(f"_arg{o.index}")
                    self._need_arg(o.index)
                elif o.dtype is None:
                    parts.append(o.name)
                else:
                    self.globals[f"_DT_{o.dtype.name}"] = FROM_NP[o.dtype]
                    parts.append(f"_wrap({o.name}, _DT_{o.dtype.name})")
            elif isinstance(o, (list, tuple)):
                parts.append(self._out_expr(o))
            else:
                parts.append(repr(o))
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def _need_arg(self, i: int) -> None:
        line = f"    _arg{i} = args[{i}]"
        if line not in self.lines:
            self.lines.insert(1, line)

    def _single(self, b: Buffer, i: int) -> None:
        ln, names = self.lines, [d.name for d in b.inputs]
        if b.kind == "extern":
            self.n_externs += 1
            if b.code is not None:
                ln.append(f"    {b.name} = {b.code.format(*names)}")
                if b.code.startswith("np."):
                    self.owner[b] = "fresh"
            else:
                fn = f"_ext_{b.name}"
                self.globals[fn] = b.call
                if getattr(b, "fresh", False):
                    self.owner[b] = "fresh"
                ln.append(f"    {b.name} = {fn}({', '.join(names)})")
        elif b.kind == "item":
            ln.append(f"    {b.name} = {names[0]}[{b.index}]")
        elif b.kind == "view":
            ln.append(f"    {b.name} = {b.code.format(*names)}")
        elif b.kind == "ufunc":
            self.n_ufuncs += 1
            self.owner[b] = "ufunc"
            fn = _UFUNCS.get(b.expr)
            d = b.inputs[0] if b.inputs else None
            if fn is not None and d is not None and d.shape == b.shape and d.dtype == b.dtype:
                out = d.name if self._reusable(d, i) else \
                    f"np.empty({b.shape!r}, np.{b.dtype.name})"
                if fn.startswith("_"):
                    from scipy.special import erf, expit  # optional heavy dep, loaded on use
                    self.globals.update(_expit=expit, _erf=erf)
                ln.append(f"    {b.name} = {fn}({d.name}, out={out})")
            else:
                from scipy.special import erf, expit
                self.globals.update(sigmoid_float32=expit, sigmoid_float64=expit,
                                    erf_float32=erf, erf_float64=erf, where=np.where,
                                    exp_float32=np.exp, tanh_float32=np.tanh,
                                    maxnan=np.maximum, minnan=np.minimum)
                ln.append(f"    {b.name} = np.asarray({b.expr.format(*names)}, "
                          f"np.{b.dtype.name})")
        else:
            raise AssertionError(b.kind)

    def _reusable(self, d: Buffer, i: int) -> bool:
        return (config.reuse_buffers and self.owner.get(d) in _OWNED and d not in self.outputs
                and self.last.get(d) == i)

    def _group(self, g: FusedGroup, i: int) -> None:
        stored = {b for b in g.members if b not in g.recomputed and (
            b in self.outputs or any(u not in g.role and b not in getattr(
                getattr(u, "group", None), "role", ()) for u in b.users))}
        self.unstored |= {b.name for b in g.members if b not in stored and b not in g.recomputed}
        if not stored:  # every value was recomputed where it is read
            return
        spec = KernelSpec(g, stored)
        ln = self.lines
        # outputs written over a dead input of the same shape (single-pass kernels only: a later
        # pass would read the input again); the kernel then stores through that input's name
        single_pass = len(spec.phases) <= 1
        reuse: dict = {}
        for b, mode in spec.outputs:
            if not (single_pass and mode == "full"):
                continue
            for j, (d, m) in enumerate(spec.inputs):
                if (m == "full" and d.shape == b.shape and d.dtype == b.dtype
                        and j not in reuse.values() and self._reusable(d, i)
                        and all(g.members.index(u) <= g.members.index(b)
                                for u in d.users if u in g.role)):
                    reuse[b] = j
                    break
        spec.alias = reuse
        name = "kernel"
        numba_src = spec.numba_source(name) if codecache.numba_available() else None
        numpy_src = spec.numpy_source(name)
        kern = codecache.load_kernel(name, numba_src, numpy_src)
        self.n_kernels += 1
        kname = f"_k{len(self.kernel_sources)}"
        self.kernel_sources.append((kname, numba_src or numpy_src))
        self.globals[kname] = kern
        R, C = spec.rc()
        args = []
        for (d, mode), shp in zip(spec.inputs, spec.input_shape):
            if mode == "full":
                v = d.name if d.shape == shp else f"np.broadcast_to({d.name}, {shp!r})"
                args.append(f"{v}.reshape({R}, {C})")
            elif mode == "row":
                v = d.name if d.shape == shp else f"np.broadcast_to({d.name}, {shp!r})"
                args.append(f"{v}.reshape({R})")
            else:
                args.append(f"{d.name}.reshape({C})")
        for b, mode in spec.outputs:
            self.owner[b] = "group"
            if b in reuse:
                ln.append(f"    {b.name} = {spec.inputs[reuse[b]][0].name}")
                continue
            ln.append(f"    {b.name} = np.empty({b.shape!r}, np.{b.dtype.name})")
            args.append(f"{b.name}.reshape({R}, {C})" if mode == "full" else
                        f"{b.name}.reshape({R})")
        args += [str(R), str(C)]
        if kern.numba_fn is not None:  # for a compile worker (see compile_worker)
            kern.arg_types = predict_arg_types(spec, R, C, self.owner)
        ln.append(f"    {kname}({', '.join(args)})")

    def load(self):
        src = self.generate()
        _count[0] += 1
        filename = f"<ember_inductor_wrapper_{_count[0]}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns = dict(self.globals)
        exec(compile(src, filename, "exec"), ns)
        fn = ns["call"]
        metrics.generated_kernel_count += self.n_kernels
        metrics.ufunc_call_count += self.n_ufuncs
        metrics.extern_call_count += self.n_externs
        if config.debug:
            print(f"# ---- ember._inductor wrapper {filename}\n{src}")
            for kname, ksrc in self.kernel_sources:
                print(f"# ---- kernel {kname}\n{ksrc}")
        return fn, src


def _flat(x):
    for o in x:
        if isinstance(o, (list, tuple)):
            yield from _flat(o)
        else:
            yield o
