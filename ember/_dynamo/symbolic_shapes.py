"""Symbolic sizes without sympy: integer expressions over size symbols, and shape inference.

A dynamic dim of a graph input becomes a symbol (``s0``, ``s1`` ...) with a *hint*, the size seen
at capture. Sizes read from tensors are ``Expr`` polynomials over the symbols (integer
coefficients; ``//`` and ``%`` by constants and ``max``/``min`` stay as ``Op`` nodes). A Python
decision on a size (``if x.shape[0] > 1``) is taken with the hints and recorded as a guard on the
relation, written over the inputs' sources (``L['x'].size(0) > 1``).

Shapes of op results are inferred from the op's own meta rule, run again with each symbol moved
off its hint (one run per symbol, then one with all moved to check): a dim that moves linearly
with the symbols gets that linear expression, a dim that does not move stays an int, anything else
is unknown (``None``: reading it specialises, and the size-generic re-trace check then keeps the
dims static).

Example:
    >>> s0 = Expr.symbol("s0")
    >>> e = 2 * s0 + 1
    >>> str(e), e.eval({"s0": 3}), e.render({"s0": "L['x'].size(0)"})
    ('2*s0 + 1', 7, "2*L['x'].size(0) + 1")
"""
from __future__ import annotations

import operator

__all__ = ["Expr", "Op", "SymAnnotation", "as_expr", "evaluate", "render", "fit_linear"]


class Expr:
    """A polynomial over size symbols: ``terms`` maps a sorted tuple of symbol names to a coefficient."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict):
        self.terms = {k: v for k, v in terms.items() if v}

    @staticmethod
    def symbol(name: str) -> "Expr":
        return Expr({(name,): 1})

    @staticmethod
    def const(c: int) -> "Expr":
        return Expr({(): int(c)})

    def is_const(self) -> bool:
        return all(not k for k in self.terms)

    def const_value(self) -> int:
        return self.terms.get((), 0)

    def symbol_name(self):
        """The name when this is exactly one symbol, else None."""
        if len(self.terms) == 1:
            (k, v), = self.terms.items()
            if v == 1 and len(k) == 1:
                return k[0]
        return None

    def symbols(self) -> set:
        return {s for k in self.terms for s in k}

    def __add__(self, other):
        other = as_expr(other)
        if isinstance(other, Op):
            return NotImplemented
        t = dict(self.terms)
        for k, v in other.terms.items():
            t[k] = t.get(k, 0) + v
        return Expr(t)

    __radd__ = __add__

    def __neg__(self):
        return Expr({k: -v for k, v in self.terms.items()})

    def __sub__(self, other):
        return self + (-as_expr(other))

    def __rsub__(self, other):
        return as_expr(other) + (-self)

    def __mul__(self, other):
        other = as_expr(other)
        if isinstance(other, Op):
            return NotImplemented
        t: dict = {}
        for k1, v1 in self.terms.items():
            for k2, v2 in other.terms.items():
                k = tuple(sorted(k1 + k2))
                t[k] = t.get(k, 0) + v1 * v2
        return Expr(t)

    __rmul__ = __mul__

    def eval(self, env: dict) -> int:
        total = 0
        for k, v in self.terms.items():
            p = v
            for s in k:
                p *= env[s]
            total += p
        return total

    def render(self, names: dict) -> str:
        if not self.terms:
            return "0"
        parts = []
        for k, v in sorted(self.terms.items(), key=lambda kv: (-len(kv[0]), kv[0])):
            body = "*".join(names.get(s, s) for s in k)
            if not body:
                parts.append(str(v))
            elif v == 1:
                parts.append(body)
            elif v == -1:
                parts.append(f"-{body}")
            else:
                parts.append(f"{v}*{body}")
        s = " + ".join(parts)
        return s.replace("+ -", "- ")

    def __str__(self):
        return self.render({})

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Expr) and self.terms == other.terms

    def __hash__(self):
        return hash(tuple(sorted(self.terms.items())))


_OPS = {"//": operator.floordiv, "%": operator.mod, "max": max, "min": min}


class Op:
    """An expression ``Expr`` cannot hold: ``a // b``, ``a % b``, ``max(a, b)``, ``min(a, b)``."""

    __slots__ = ("op", "args")

    def __init__(self, op: str, args: tuple):
        self.op, self.args = op, args

    def symbols(self) -> set:
        out = set()
        for a in self.args:
            out |= a.symbols()
        return out

    def is_const(self) -> bool:
        return False

    def eval(self, env: dict) -> int:
        return _OPS[self.op](*(a.eval(env) for a in self.args))

    def render(self, names: dict) -> str:
        a = [x.render(names) for x in self.args]
        if self.op in ("max", "min"):
            return f"{self.op}({a[0]}, {a[1]})"
        return f"({a[0]}) {self.op} ({a[1]})"

    def __str__(self):
        return self.render({})

    __repr__ = __str__

    def __add__(self, other):
        return _linear_op(operator.add, self, other)

    def __radd__(self, other):
        return _linear_op(operator.add, other, self)

    def __sub__(self, other):
        return _linear_op(operator.sub, self, other)

    def __rsub__(self, other):
        return _linear_op(operator.sub, other, self)

    def __mul__(self, other):
        return _linear_op(operator.mul, self, other)

    __rmul__ = __mul__

    def __neg__(self):
        return _linear_op(operator.sub, 0, self)


class _Lin(Op):
    """``a + b``, ``a - b`` or ``a * b`` where one side is an ``Op``."""

    def eval(self, env):
        return self.op(*(a.eval(env) for a in self.args))

    def render(self, names):
        sym = {operator.add: "+", operator.sub: "-", operator.mul: "*"}[self.op]
        return f"({self.args[0].render(names)}) {sym} ({self.args[1].render(names)})"


def _linear_op(op, a, b):
    return _Lin(op, (as_expr(a), as_expr(b)))


def as_expr(v):
    """``v`` (an int, ``Expr`` or ``Op``) as an expression."""
    if isinstance(v, (Expr, Op)):
        return v
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"not a size expression: {v!r}")
    return Expr.const(v)


def binary(op, a, b):
    """``op(a, b)`` over size expressions (ints allowed); None when ``op`` is not an integer op."""
    a, b = as_expr(a), as_expr(b)
    if op in (operator.add, operator.iadd):
        return a + b
    if op in (operator.sub, operator.isub):
        return a - b
    if op in (operator.mul, operator.imul):
        return a * b
    if op in (operator.floordiv, operator.ifloordiv):
        return Op("//", (a, b))
    if op in (operator.mod, operator.imod):
        return Op("%", (a, b))
    return None


def evaluate(e, env: dict) -> int:
    return e if isinstance(e, int) else e.eval(env)


def render(e, names: dict) -> str:
    return str(e) if isinstance(e, int) else e.render(names)


class SymAnnotation:
    """The annotation of a size placeholder: prints as ``"Sym(s0)"``."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f'"Sym({self.name})"'


def fit_linear(v0: int, hints: dict, moved: dict, step: int, joint, joint_env: dict):
    """The linear expression of a dim that is ``v0`` at ``hints``, ``moved[s]`` with symbol ``s``
    alone moved by ``step``, and ``joint`` with every symbol moved (``joint_env``); None if none fits."""
    coeffs = {}
    for s, v in moved.items():
        d = v - v0
        if d % step:
            return None
        if d:
            coeffs[s] = d // step
    if not coeffs:
        return v0 if joint == v0 else None
    e = Expr.const(v0 - sum(c * hints[s] for s, c in coeffs.items()))
    for s, c in coeffs.items():
        e = e + c * Expr.symbol(s)
    if e.eval(joint_env) == joint:
        return e
    # not linear: a product of the moving symbols times a constant (a flatten of dynamic dims)
    prod = 1
    for s in coeffs:
        prod *= hints[s]
    if prod and v0 % prod == 0:
        e = Expr.const(v0 // prod)
        for s in coeffs:
            e = e * Expr.symbol(s)
        env = dict(hints)
        if all(e.eval(dict(env, **{s: hints[s] + step})) == v for s, v in moved.items()) \
                and e.eval(joint_env) == joint:
            return e
    return None
