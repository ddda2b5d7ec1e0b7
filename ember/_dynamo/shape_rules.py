"""What capture does with symbolic sizes: size reads, integer arithmetic, decisions, shape inference.

Tensors whose dims are dynamic carry ``TensorVT.sym`` (per dim: an int or a size expression). Reading
a size gives a ``SymIntVT`` (its graph node is the symbol's placeholder, or ``x.size(i)`` in the
graph); arithmetic on sizes becomes graph nodes; a decision (comparison, ``bool``) is taken with the
hints and guarded on the relation; a size needed as a plain Python int (``range(n)``, an f-string)
is specialised with an equality guard. Results of ops get their ``sym`` from the op's meta rule run
at moved sizes (``symbolic_shapes.fit_linear``).

Example:
    >>> import ember
    >>> from ember._dynamo.testing import CompileCounter
    >>> cnt = CompileCounter()
    >>> f = ember.compile(lambda x: x.view(x.shape[0], -1).sum(1), backend=cnt, dynamic=True)
    >>> [tuple(f(ember.ones(n, 2, 3)).shape) for n in (2, 5, 7)], cnt.frame_count
    ([(2,), (5,), (7,)], 1)
"""
from __future__ import annotations

import operator

from .._creation import empty_strided
from .._tensor import Tensor
from .exc import Unsupported
from .symbolic_shapes import Expr, Op, binary, evaluate, fit_linear, render
from .variables import ConstVT, DictVT, ListVT, SliceVT, SymIntVT, TensorVT, TupleVT

__all__ = ["size_of", "shape_of", "numel_of", "specialize", "compare", "arith", "propagate",
           "is_symbolic"]

_STEP, _JOINT = 2, 5   # how far symbols move for shape inference (away from the 0/1 sizes)
_CMP = {operator.lt: "<", operator.le: "<=", operator.eq: "==", operator.ne: "!=",
        operator.gt: ">", operator.ge: ">="}


def is_symbolic(vt) -> bool:
    """``vt`` holds a symbolic size somewhere (a SymIntVT, or a tensor with symbolic dims)."""
    if isinstance(vt, SymIntVT):
        return True
    if isinstance(vt, TensorVT):
        return vt.sym is not None and any(not isinstance(d, int) for d in vt.sym)
    if isinstance(vt, (ListVT, TupleVT)):
        return any(is_symbolic(i) for i in vt.items)
    if isinstance(vt, DictVT):
        return any(is_symbolic(i) for i in vt.items.values())
    if isinstance(vt, SliceVT):
        return any(is_symbolic(i) for i in vt.parts)
    return False


# ---------------------------------------------------------------------- reading sizes
def size_of(tx, t: TensorVT, dim: int):
    """``t.size(dim)``: a constant for a static dim, else a SymIntVT."""
    dim = dim + t.meta.ndim if dim < 0 else dim
    if t.sym is None:
        return ConstVT(t.meta.shape[dim])
    e = t.sym[dim]
    if e is None:  # a dim shape inference could not follow: use its value, guarded by the re-trace
        return ConstVT(t.meta.shape[dim])
    return tx.output.sym_int(e, lambda: tx.output.graph.call_method("size", (t.node, dim)))


def shape_of(tx, t: TensorVT):
    """``t.shape`` / ``t.size()``: an ``ember.Size`` constant, or a Size tuple of size trackers."""
    if t.sym is None:
        return ConstVT(t.meta.shape)
    return TupleVT([size_of(tx, t, i) for i in range(t.meta.ndim)], cls=type(t.meta.shape))


def numel_of(tx, t: TensorVT):
    if t.sym is None or any(e is None for e in t.sym):
        return ConstVT(t.meta.numel())
    n = Expr.const(1)
    for e in t.sym:
        n = n * e
    return tx.output.sym_int(n, lambda: tx.output.graph.call_method("numel", (t.node,)))


# ---------------------------------------------------------------------- decisions
def specialize(tx, vt: SymIntVT) -> ConstVT:
    """The size as a plain int. Its symbols are marked specialised: the capture is redone with
    those dims static (``dynamic_shapes.Respecialize``); the guard keeps this one exact meanwhile."""
    tx.output.specialized |= vt.expr.symbols()
    tx.output.guards.add(f"{render(vt.expr, tx.output.sources())} == {vt.value}")
    return ConstVT(vt.value)


def _expr_of(tx, vt):
    if isinstance(vt, SymIntVT):
        return vt.expr, vt.value
    v = tx.const(vt)
    if isinstance(v, bool) or not isinstance(v, int):
        return None, v
    return Expr.const(v), v


def compare(tx, op, a, b):
    """A comparison involving sizes: decided with the hints, the relation recorded as a guard."""
    ea, va = _expr_of(tx, a)
    eb, vb = _expr_of(tx, b)
    if ea is None or eb is None or op not in _CMP:
        a = specialize(tx, a) if isinstance(a, SymIntVT) else a
        b = specialize(tx, b) if isinstance(b, SymIntVT) else b
        return ConstVT(op(tx.const(a), tx.const(b)))
    result = op(va, vb)
    names = tx.output.sources()
    rel = f"({render(ea, names)}) {_CMP[op]} ({render(eb, names)})"
    tx.output.guards.add(rel if result else f"not ({rel})")
    return ConstVT(result)


def truth(tx, vt: SymIntVT) -> bool:
    return bool(compare(tx, operator.ne, vt, ConstVT(0)).value)


def arith(tx, op, a, b):
    """Integer arithmetic on sizes: a graph node and its expression; None if not an integer op."""
    ea, va = _expr_of(tx, a)
    eb, vb = _expr_of(tx, b)
    if ea is None or eb is None:
        return None
    plain = {operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
             operator.ifloordiv: operator.floordiv, operator.imod: operator.mod}.get(op, op)
    e = binary(plain, ea, eb)
    if e is None:
        return None
    if isinstance(e, Op) and not e.symbols():
        return ConstVT(plain(va, vb))
    node = tx.output.graph.call_function(plain, (tx.as_arg(a), tx.as_arg(b)))
    return SymIntVT(node, e, plain(va, vb))


def neg(tx, vt: SymIntVT):
    node = tx.output.graph.call_function(operator.neg, (vt.node,))
    return SymIntVT(node, -vt.expr, -vt.value)


# ---------------------------------------------------------------------- shape inference
def _children(vt, *, slices: bool):
    """The items of a list/tuple/dict VT (and a slice's parts when ``slices``); else none."""
    if isinstance(vt, (ListVT, TupleVT)):
        return vt.items
    if isinstance(vt, DictVT):
        return vt.items.values()
    if slices and isinstance(vt, SliceVT):
        return vt.parts
    return ()


def _symbols_in(vt, out: set) -> set:
    if isinstance(vt, SymIntVT):
        out |= vt.expr.symbols()
    elif isinstance(vt, TensorVT):
        for e in vt.sym or ():
            if e is not None and not isinstance(e, int):
                out |= e.symbols()
    else:
        for i in _children(vt, slices=True):
            _symbols_in(i, out)
    return out


def _order(strides) -> list:
    return sorted(range(len(strides)), key=lambda i: -strides[i])


def _moved_meta(tx, vt, env):
    """The fake value of ``vt`` with every symbol at ``env`` (None: cannot be moved)."""
    if isinstance(vt, SymIntVT):
        return vt.expr.eval(env)
    if isinstance(vt, TensorVT):
        if vt.sym is None:
            return vt.meta
        # a dim inference could not follow keeps its size: results that depend on it come out
        # static or unknown, and reading such a size is checked by the size-generic re-trace
        shape = [n if e is None else evaluate(e, env) for e, n in zip(vt.sym, vt.meta.shape)]
        if min(shape, default=1) < 0:
            raise _CannotMove
        strides, acc = [0] * len(shape), 1
        for i in reversed(_order(vt.meta.stride())):  # keep the layout's dim order
            strides[i] = acc
            acc *= max(shape[i], 1)
        return empty_strided(tuple(shape), tuple(strides), dtype=vt.meta.dtype, device="meta",
                             requires_grad=vt.meta.requires_grad)
    if isinstance(vt, (ListVT, TupleVT)):
        items = [_moved_meta(tx, i, env) for i in vt.items]
        return items if isinstance(vt, ListVT) else tuple(items)
    if isinstance(vt, DictVT):
        return {k: _moved_meta(tx, v, env) for k, v in vt.items.items()}
    if isinstance(vt, SliceVT):
        return slice(*(_moved_meta(tx, p, env) for p in vt.parts))
    return tx.as_meta(vt)


class _CannotMove(Exception):
    pass


def _tensors(meta) -> list:
    if isinstance(meta, Tensor):
        return [meta]
    if isinstance(meta, (list, tuple)):
        return [t for m in meta for t in _tensors(m)]
    return []


def _result_vts(vt) -> list:
    if isinstance(vt, TensorVT):
        return [vt]
    if isinstance(vt, (ListVT, TupleVT)):
        return [t for i in vt.items for t in _result_vts(i)]
    return []


def propagate(tx, meta_fn, args, kwargs, out, result) -> None:
    """Set ``sym`` on the tensors of ``result`` (the trackers of ``out``, the meta results at the
    hints) when the inputs hold symbolic sizes."""
    syms, blind = set(), set()
    for a in list(args) + list(kwargs.values()):
        _symbols_in(a, syms)
        _blind_in(a, blind)
    if not syms:
        return
    # sizes inference lost track of may hide a constraint of this op on their symbols: fix those
    tx.output.specialized |= blind
    targets = _result_vts(result)
    base = _tensors(out)
    if not targets or len(targets) != len(base):
        return
    hints = tx.output.hints()

    def run(env):
        """Result tensors at ``env``; None when the op refuses those sizes."""
        m_args = [_moved_meta(tx, a, env) for a in args]   # _CannotMove: no inference at all
        m_kwargs = {k: _moved_meta(tx, v, env) for k, v in kwargs.items()}
        try:
            got = _tensors(meta_fn(*m_args, **m_kwargs))
        except Unsupported:
            raise
        except Exception:
            return None
        return got if len(got) == len(base) and all(
            g.ndim == m.ndim for g, m in zip(got, base)) else None

    moved, fixed = {}, set()
    try:
        for s in sorted(syms):
            r = run(dict(hints, **{s: hints[s] + _STEP}))
            if r is None:  # the op accepts only this size (a conv's channels ...): fix it
                fixed.add(s)
            else:
                moved[s] = r
        joint_env = {k: v + _JOINT if k in moved else v for k, v in hints.items()}
        joint = run(joint_env) if moved else base
    except _CannotMove:
        return
    tx.output.specialized |= fixed
    if joint is None:
        return
    for k, (vt, m) in enumerate(zip(targets, base)):
        dims = tuple(fit_linear(v0, hints, {s: r[k].shape[i] for s, r in moved.items()}, _STEP,
                                joint[k].shape[i], joint_env) for i, v0 in enumerate(m.shape))
        if any(not isinstance(d, int) for d in dims):
            vt.sym = dims
            if any(d is None for d in dims):
                vt.sym_blind = frozenset(moved)


def _blind_in(vt, out: set) -> set:
    """Symbols behind dims of ``vt``'s tensors that inference could not express."""
    if isinstance(vt, TensorVT):
        out |= getattr(vt, "sym_blind", frozenset())
    else:
        for i in _children(vt, slices=False):
            _blind_in(i, out)
    return out
