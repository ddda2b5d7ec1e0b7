"""Guards: the conditions under which a cached graph is valid, generated as Python source.

A ``GuardSet`` collects one boolean expression per fact capture relied on, over the frame's
``L`` (arguments), ``G`` (globals) and ``C`` (closure cells). ``compile()`` orders them cheapest
first (global state, constants, identities, modules, tensors) and ``exec``s one function
``___guard(L, G, C)``; on a miss, ``failures()`` evaluates the lines one by one to name the guard
that failed (the ``recompiles`` log).

Example:
    >>> from ember._dynamo.guards import GuardSet
    >>> g = GuardSet(); g.constant("L['n']", 2)
    >>> fn = g.compile(); fn({'n': 2}, {}, ()), fn({'n': 3}, {}, ())
    (True, False)
    >>> g.failures({'n': 3}, {}, ())
    ["type(L['n']) is int and L['n'] == 2"]
"""
from __future__ import annotations

from .._dtype import get_default_dtype
from ..amp import autocast_mode as _autocast
from ..autograd import grad_mode as _grad_mode

# evaluation order: cheapest and most likely to fail first
_ORDER = {"state": 0, "const": 1, "id": 2, "module": 3, "tensor": 4, "other": 5}


def global_state():
    """(grad mode, default dtype, cpu autocast enabled, cpu autocast dtype) now."""
    st = _autocast.STATE
    return (_grad_mode.STATE.enabled, get_default_dtype(), st.enabled.get("cpu", False),
            st.dtype.get("cpu"))


class GuardSet:
    def __init__(self):
        self.entries = []       # (order, expression)
        self.consts = {}        # name -> object referenced by the expressions
        self._seen = set()
        self._names = {}        # id(obj) -> const name (objects are kept alive by consts)
        self.dynamic = {}       # source -> dims whose size is not guarded (dynamic shapes)

    @property
    def lines(self) -> list:
        return [e for _, e in sorted(self.entries, key=lambda p: p[0])]

    def _const(self, obj) -> str:
        name = self._names.get(id(obj))
        if name is None:
            name = self._names[id(obj)] = f"___c{len(self.consts)}"
            self.consts[name] = obj
        return name

    def add(self, expr: str, type_obj=None, kind: str = "other") -> None:
        if type_obj is not None:
            expr = expr.replace(f"___type({id(type_obj)})", self._const(type_obj))
        if expr not in self._seen:
            self._seen.add(expr)
            self.entries.append((_ORDER[kind], expr))

    def constant(self, source: str, value) -> None:
        if value is None or value is ... or isinstance(value, bool):
            self.add(f"{source} is {value!r}", kind="const")
        elif type(value) in (int, str, float, bytes):
            self.add(f"type({source}) is {type(value).__name__} and {source} == {value!r}", kind="const")
        else:
            self.add(f"{source} == {self._const(value)}", kind="const")

    def identity(self, source: str, value) -> None:
        self.add(f"{source} is {self._const(value)}", kind="id")

    def module(self, source: str, module) -> None:
        key = ("module", source)
        if key in self._seen:
            return
        self._seen.add(key)
        c = self._const(module)
        version = module.__dict__.get("_ember_version", 0)
        self.add(f"{source} is {c} and {c}.__dict__.get('_ember_version', 0) == {version} "
                 f"and {c}.training is {module.training}", kind="module")

    def module_hooks(self, source: str, module) -> None:
        """The hook tables of ``module`` are exactly as seen (empty in the common case)."""
        names = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
        if not any(getattr(module, n) for n in names):
            self.add(f"not ({' or '.join(f'{source}.{n}' for n in names)})", kind="module")
            return
        for n in names:
            self.add(f"list({source}.{n}.values()) == {self._const(list(getattr(module, n).values()))}",
                     kind="module")

    def tensor(self, source: str, t) -> None:
        """Type, dtype, device (cpu: a NumPy buffer), requires_grad, sizes and strides."""
        d = t._data
        tc, dc = self._const(type(t)), self._const(t.dtype)
        dims = self.dynamic.get(source)
        if dims and t.is_contiguous():
            # dynamic dims: any size but 0 (empty tensors stay specialised), contiguous layout
            shape = " and ".join(f"___d.shape[{i}] != 0" if i in dims else f"___d.shape[{i}] == {n}"
                                 for i, n in enumerate(d.shape))
            self.add(f"type(___t := {source}) is {tc} and ___t._dtype is {dc} and "
                     f"___t._requires_grad is {bool(t.requires_grad)} and "
                     f"(___d := ___t._data) is not None and ___d.ndim == {d.ndim} and {shape} and "
                     f"___t.is_contiguous()", kind="tensor")
            return
        self.add(f"type(___t := {source}) is {tc} and ___t._dtype is {dc} and "
                 f"___t._requires_grad is {bool(t.requires_grad)} and "
                 f"(___d := ___t._data) is not None and ___d.shape == {tuple(d.shape)!r} and "
                 f"___d.strides == {tuple(d.strides)!r}", kind="tensor")

    def state(self) -> None:
        grad, ddtype, ac_on, ac_dtype = global_state()
        self.add(f"___grad.enabled is {grad} and ___default_dtype() is {self._const(ddtype)} and "
                 f"___autocast.enabled.get('cpu', False) is {ac_on} and "
                 f"___autocast.dtype.get('cpu') is {self._const(ac_dtype)}", kind="state")

    # ------------------------------------------------------------------ compile / diagnose
    def source(self) -> str:
        body = " and\n            ".join(f"({e})" for e in self.lines) or "True"
        # a guard that cannot even be evaluated (a missing key or attribute) is a miss
        return (f"def ___guard(L, G, C):\n    try:\n        return ({body})\n"
                "    except Exception:\n        return False\n")

    def _namespace(self) -> dict:
        return dict(self.consts, ___state=global_state, ___grad=_grad_mode.STATE,
                    ___default_dtype=get_default_dtype, ___autocast=_autocast.STATE)

    def compile(self):
        ns = self._namespace()
        exec(compile(self.source(), "<ember guard>", "exec"), ns)
        return ns["___guard"]

    def failures(self, L, G, C) -> list:
        """The guard expressions that are false for this frame, in evaluation order."""
        ns = self._namespace()
        bad = []
        for e in self.lines:
            try:
                ok = eval(compile(f"({e})", "<ember guard>", "eval"), ns, {"L": L, "G": G, "C": C})
            except Exception:
                ok = False
            if not ok:
                bad.append(e)
        return bad
