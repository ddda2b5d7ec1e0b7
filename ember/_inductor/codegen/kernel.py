"""One ``FusedGroup`` as source: a Numba loop kernel and the NumPy array code that stands in for it.

Both take ``(*inputs, *outputs, R, C)``: full-shape arrays as ``(R, C)`` views and row arrays as
``(R,)``; sizes are run-time arguments, so one compiled kernel serves every shape (the text names no
size and no buffer, and identical groups in different graphs share one cached kernel). The Numba
kernel loops over rows; within a row, one inner loop per *pass* (a new pass starts when a node reads
a reduction finished in the current one): a row softmax is max, then exp-sum, then normalise.
Float32 sums accumulate in float64; max/min propagate NaN explicitly; constants are typed; flags are
``fastmath`` without ``nnan``/``ninf`` and ``error_model='numpy'``.

Example:
    >>> import numpy as np
    >>> from ..ir import Buffer
    >>> from ..scheduler import schedule
    >>> f32 = np.dtype("float32")
    >>> x = Buffer("input", (4, 8), f32, [], name="x")
    >>> y = Buffer("pointwise", (4, 8), f32, [x], expr="({0} * {0})")
    >>> g = schedule([x, y])[0]
    >>> spec = KernelSpec(g, outputs={y})
    >>> print(spec.numpy_source("kern").splitlines()[-1])
        out0[...] = v0
"""
from __future__ import annotations

import ast


from .. import config
from ..ir import numel
from .vector_math import VECTOR_MATH, helper_closure

__all__ = ["KernelSpec", "FASTMATH"]

FASTMATH = "{'contract', 'arcp', 'nsz', 'afn', 'reassoc'}"

_NUMBA_HELPERS = {
    "where": "@nb.njit(inline='always')\ndef where(c, a, b):\n    return a if c else b\n",
    "maxnan": "@nb.njit(inline='always')\ndef maxnan(a, b):\n"
              "    return a if (a > b or a != a) else b\n",
    "minnan": "@nb.njit(inline='always')\ndef minnan(a, b):\n"
              "    return a if (a < b or a != a) else b\n",
    "sigmoid_float64": "@nb.njit(inline='always')\ndef sigmoid_float64(a):\n"
                       "    return 1.0 / (1.0 + np.exp(-a))\n",
    "erf_float64": "@nb.njit(inline='always')\ndef erf_float64(a):\n    return math.erf(a)\n",
}
_NUMBA_HELPERS.update(VECTOR_MATH)
_NUMPY_PRELUDE = ("import numpy as np\nwhere, maxnan, minnan = np.where, np.maximum, np.minimum\n"
                  "exp_float32, tanh_float32 = np.exp, np.tanh\n")
_NUMPY_SCIPY = ("from scipy.special import erf as erf_float32, erf as erf_float64, "
                "expit as sigmoid_float32, expit as sigmoid_float64\n")


def _strip1(shape: tuple) -> tuple:
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


class _Inline(ast.NodeTransformer):
    """``where``/``maxnan``/``minnan`` calls as conditional expressions (Numba then compiles no
    helper function: measured ~0.05 s less per kernel)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        name = getattr(node.func, "id", None)
        if name == "where" and len(node.args) == 3:
            c, a, b = node.args
            return ast.IfExp(test=c, body=a, orelse=b)
        if name in ("maxnan", "minnan") and len(node.args) == 2 and all(map(_simple, node.args)):
            a, b = node.args
            op = ast.Gt() if name == "maxnan" else ast.Lt()
            test = ast.BoolOp(op=ast.Or(), values=[
                ast.Compare(left=a, ops=[op], comparators=[b]),
                ast.Compare(left=a, ops=[ast.NotEq()], comparators=[a])])
            return ast.IfExp(test=test, body=a, orelse=b)
        return node


def _simple(e) -> bool:
    """A name or a typed constant (safe to repeat in an inlined expression)."""
    if isinstance(e, ast.UnaryOp):
        e = e.operand
    if isinstance(e, (ast.Name, ast.Constant, ast.Attribute)):
        return True
    return isinstance(e, ast.Call) and len(e.args) == 1 and _simple(e.args[0])


def _numba_expr(text: str) -> str:
    if "where(" not in text and "maxnan(" not in text and "minnan(" not in text:
        return text
    return ast.unparse(_Inline().visit(ast.parse(text, mode="eval")))


class KernelSpec:
    """What one group reads and writes, in kernel-argument order, and its two sources."""

    def __init__(self, group, outputs: set, alias: dict | None = None) -> None:
        self.group = g = group
        self.alias = dict(alias or {})  # output buffer -> index of the input it overwrites
        members = set(g.members)
        self.inputs: list = []      # (buffer, mode) read from outside the group
        self.input_shape: list = []  # the shape each input is broadcast to before its reshape
        seen = set()
        k_eff = 1 if g.k is None else g.k
        suffix = g.F[len(g.F) - k_eff:] if g.F else ()
        keep_row = g.F[:len(g.F) - k_eff] + (1,) * k_eff if len(g.F) > k_eff else None
        for b in g.members:
            mode_of_reader = "row" if g.role[b] == "row" else "full"
            for d in b.inputs:
                if d in members:
                    continue
                mode = "full" if g.role[b] == "red" else mode_of_reader
                if mode == "full" and d.shape != g.F and suffix and _strip1(d.shape) == suffix \
                        and len(d.shape) <= len(g.F):
                    mode = "col"  # broadcast along rows (a bias, a norm's weight): read [c]
                elif mode == "full" and g.role[b] == "full" and d.shape == keep_row \
                        and d.shape != g.F:
                    mode = "row"  # one value per row (a saved mean / rstd): read [r]
                if (d, mode) not in seen:
                    seen.add((d, mode))
                    self.inputs.append((d, mode))
                    self.input_shape.append({"full": g.F, "row": d.shape if mode_of_reader ==
                                             "full" else b.shape, "col": suffix}[mode])
        self.outputs: list = [(b, "row" if g.role[b] in ("row", "red") else "full")
                              for b in g.members if b in outputs]
        self.stored = {b for b, _ in self.outputs}
        self._plan()

    # -- passes
    def _plan(self) -> None:
        g = self.group
        self.phase_of: dict = {}
        self.after: dict = {}      # row/red node -> pass after which it is available (-1: before)
        self.phases: list = []
        for b in g.members:
            role = g.role[b]
            deps = [d for d in b.inputs if d in g.role]
            if role in ("full", "red"):
                cur = len(self.phases) - 1
                need_new = cur < 0 or any(self.after.get(d, -2) >= cur for d in deps
                                          if g.role[d] != "full")
                if need_new:
                    self.phases.append([])
                    cur += 1
                self.phases[cur].append(b)
                self.phase_of[b] = cur
                if role == "red":
                    self.after[b] = cur
            else:
                self.after[b] = max([self.after.get(d, -1) for d in deps] or [-1])
        # full values read in a later pass: stored (output) or kept in a per-row scratch
        self.scratch = []
        for b in g.members:
            if g.role[b] != "full":
                continue
            later = any(self.phase_of.get(u, -1) > self.phase_of[b] for u in b.users
                        if u in g.role)
            if later and b not in self.stored:
                self.scratch.append(b)

    def flat(self) -> bool:
        """A pure pointwise group whose inputs all have its shape runs as one flat loop."""
        g = self.group
        return g.k is None and all(d.shape == g.F for d, _ in self.inputs)

    def rc(self) -> tuple:
        g = self.group
        if self.flat():
            return 1, numel(g.F)
        k = 1 if g.k is None else g.k
        k = min(k, len(g.F))
        C = numel(g.F[len(g.F) - k:])
        return numel(g.F) // C if C else 0, C

    def arg_names(self) -> list:
        return [f"in{i}" for i in range(len(self.inputs))] + \
               [f"out{i}" for i, (b, _) in enumerate(self.outputs) if b not in self.alias] + \
               ["R", "C"]

    def _out(self, b) -> str:
        """The array an output is written to: its own argument, or the input it overwrites (the
        same name for the load and the store, so LLVM still vectorises the loop)."""
        if b in self.alias:
            return f"in{self.alias[b]}"
        return f"out{[o for o, _ in self.outputs].index(b)}"

    # -- shared pieces
    def _names(self):
        local = {b: f"v{i}" for i, b in enumerate(self.group.members)}
        ins = {d: i for i, (d, m) in enumerate(self.inputs) if m == "full"}
        rins = {d: i for i, (d, m) in enumerate(self.inputs) if m == "row"}
        outs = {b: i for i, (b, _) in enumerate(self.outputs)}
        self.cins = {d: i for i, (d, m) in enumerate(self.inputs) if m == "col"}
        return local, ins, rins, outs

    def _expr(self, b, ref, numba: bool = False) -> str:
        text = b.expr.format(*[ref(d) for d in b.inputs])
        return _numba_expr(text) if numba else text

    # -- Numba
    def numba_source(self, name: str) -> str:
        g = self.group
        local, ins, rins, outs = self._names()
        used = set()
        head = ["import math", "import numba as nb", "import numpy as np", ""]
        helpers_at = len(head)
        flags = (f"cache=True, fastmath={FASTMATH}, error_model='numpy'"
                 + (", boundscheck=True" if config.boundscheck else ""))
        body = [f"@nb.njit({flags})", f"def {name}({', '.join(self.arg_names())}):"]
        scr = {b: f"scr{i}" for i, b in enumerate(self.scratch)}
        for b, s in scr.items():
            body.append(f"    {s} = np.empty(C, np.{b.dtype.name})")
        body.append("    for r in range(R):")
        for d, i in rins.items():
            body.append(f"        r{i} = in{i}[r]")
        ind = "        "
        emitted_rows = set()

        def emit_rows(upto: int):
            for b in g.members:
                if g.role[b] == "row" and b not in emitted_rows and self.after[b] <= upto:
                    emitted_rows.add(b)
                    body.append(f"{ind}{local[b]} = {self._expr(b, row_ref, True)}")
                    if b in outs:
                        body.append(f"{ind}{self._out(b)}[r] = {local[b]}")

        def row_ref(d):
            if d in local:
                return local[d]
            return f"r{rins[d]}"
        emit_rows(-1)
        for p, phase in enumerate(self.phases):
            reds = [b for b in phase if g.role[b] == "red"]
            for b in reds:
                body.append(f"{ind}{local[b]}_acc = {self._acc_init(b)}")
            body.append(f"{ind}for c in range(C):")
            inner = ind + "    "
            loaded = {}

            def ref(d, p=p, inner=inner, loaded=loaded):
                if d in loaded:
                    return loaded[d]
                role = g.role.get(d)
                if role is None:
                    if d in self.cins and d not in ins:
                        nm = f"x{self.cins[d]}"
                        body.append(f"{inner}{nm} = in{self.cins[d]}[c]")
                    elif d in rins and d not in ins:
                        return f"r{rins[d]}"
                    else:
                        nm = f"x{ins[d]}"
                        body.append(f"{inner}{nm} = in{ins[d]}[r, c]")
                elif role in ("row", "red"):
                    return local[d]
                elif self.phase_of[d] == p:
                    return local[d]
                else:
                    nm = f"{local[d]}_l"
                    src = f"{self._out(d)}[r, c]" if d in outs else f"{scr[d]}[c]"
                    body.append(f"{inner}{nm} = {src}")
                loaded[d] = nm
                return nm
            for b in phase:
                if g.role[b] == "red":
                    x = ref(b.inputs[0])
                    body.append(f"{inner}{self._acc_update(b, x)}")
                else:
                    body.append(f"{inner}{local[b]} = {self._expr(b, ref, True)}")
                    if b in outs:
                        body.append(f"{inner}{self._out(b)}[r, c] = {local[b]}")
                    if b in scr:
                        body.append(f"{inner}{scr[b]}[c] = {local[b]}")
            for b in reds:
                body.append(f"{ind}{local[b]} = {self._acc_final(b)}")
                if b in outs:
                    body.append(f"{ind}{self._out(b)}[r] = {local[b]}")
            emit_rows(p)
        text = "\n".join(body)
        used = helper_closure([h for h in _NUMBA_HELPERS if h + "(" in text], _NUMBA_HELPERS)
        head[helpers_at:helpers_at] = [_NUMBA_HELPERS[h] for h in used]
        return "\n".join(head + body) + "\n"

    def _acc_init(self, b) -> str:
        dt = b.dtype.name
        if b.reduce_op in ("sum", "mean"):
            return "np.float64(0.0)" if dt == "float32" else f"np.{dt}(0)"
        if b.reduce_op == "maxnum":
            return f"np.{dt}(-np.inf)"
        init = f"np.{dt}(-np.inf)" if b.reduce_op == "max" else f"np.{dt}(np.inf)"
        return f"{init}\n{' ' * 8}{self._local(b)}_acc_nan = False"

    def _acc_update(self, b, x: str) -> str:
        a = f"{self._local(b)}_acc"
        if b.reduce_op in ("sum", "mean"):
            return f"{a} += {x}"
        if b.reduce_op == "maxnum":
            return f"{a} = _maxnum({a}, {x})"
        cmp = ">" if b.reduce_op == "max" else "<"
        # a select (vectorises; a branch measured 6x slower) and a NaN flag: NaN propagates
        return f"{a} = {x} if {x} {cmp} {a} else {a}\n{' ' * 12}{a}_nan |= {x} != {x}"

    def _acc_final(self, b) -> str:
        a = f"{self._local(b)}_acc"
        dt = b.dtype.name
        if b.reduce_op == "mean":
            return f"np.{dt}({a} / C)"
        if b.reduce_op == "sum":
            return f"np.{dt}({a})"
        if b.reduce_op == "maxnum":
            return a
        return f"np.{dt}(np.nan) if {a}_nan else {a}"

    def _local(self, b) -> str:
        return f"v{self.group.members.index(b)}"

    # -- NumPy
    def numpy_source(self, name: str) -> str:
        g = self.group
        local, ins, rins, outs = self._names()
        scipy = any(b.expr and ("erf_" in b.expr or "sigmoid_" in b.expr) for b in g.members)
        body = [_NUMPY_PRELUDE + (_NUMPY_SCIPY if scipy else ""), "",
                f"def {name}({', '.join(self.arg_names())}):"]
        for d, i in ins.items():
            body.append(f"    x{i} = in{i}")
        for d, i in rins.items():
            body.append(f"    r{i} = in{i}.reshape(R, 1)")
        for d, i in self.cins.items():
            body.append(f"    x{i} = in{i}.reshape(1, C)")

        def ref(d):
            if d in local:
                return local[d]
            if d in ins and g.role.get(d) is None:
                return f"x{ins[d]}"
            if d in self.cins:
                return f"x{self.cins[d]}"
            return f"r{rins[d]}"
        for b in g.members:
            if g.role[b] == "red":
                x = ref(b.inputs[0])
                dt = b.dtype.name
                if b.reduce_op in ("sum", "mean"):
                    fn = "np.sum" if b.reduce_op == "sum" else "np.mean"
                    acc = "np.float64" if dt == "float32" else f"np.{dt}"
                    body.append(f"    {local[b]} = {fn}(np.broadcast_to({x}, (R, C)), axis=1, "
                                f"keepdims=True, dtype={acc}).astype(np.{dt})")
                else:
                    fn = "np.min" if b.reduce_op == "min" else "np.max"
                    body.append(f"    {local[b]} = {fn}(np.broadcast_to({x}, (R, C)), axis=1, "
                                "keepdims=True)")
            else:
                body.append(f"    {local[b]} = {self._expr(b, ref)}")
            if b in outs:
                tgt = self._out(b) if g.role[b] == "full" else f"{self._out(b)}.reshape(R, 1)"
                body.append(f"    {tgt}[...] = {local[b]}")
        return "\n".join(body) + "\n"
