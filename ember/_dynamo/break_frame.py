"""A frame with a graph break: compiled prefix, the break run in Python, a resume function.

When capture of a frame fails at root instruction ``I`` (``Unsupported.break_index``), the frame
is traced again up to ``I`` and the cache entry's run function does::

    ___out = ___compiled(<graph inputs>)          # the prefix graph
    ___st = [<stack entries>]; ___lc = [<locals>]   # rebuilt from graph outputs and the frame
    <side effects replayed>
    return ___finish(___st, ___lc)   # runs instruction I in Python, then the resume function

Breaks handled this way: a ``CALL`` (``print``, ``.item()``, ``graph_break()``, NumPy, a user
function whose body breaks: that callee is compiled on its own, memoized), ``LOAD_ATTR`` /
``LOAD_METHOD``, and a conditional jump on a tensor's value. The resume function (see
``resume.py``) is compiled with the same backend on its first call and cached. A break inside a
loop ends the graph before the loop (before its ``GET_ITER`` or its first body instruction) and
the rest of the frame runs eagerly. Anything else raises ``Unsupported`` (the frame runs eagerly).

Example:
    >>> import ember
    >>> from ember._dynamo.testing import CompileCounter
    >>> cnt = CompileCounter()
    >>> @ember.compile(backend=cnt)
    ... def f(x):
    ...     y = x.sin()
    ...     ember._dynamo.graph_break()
    ...     return y.cos()
    >>> bool(ember.allclose(f(ember.ones(2)), ember.ones(2).sin().cos())), cnt.frame_count
    (True, 2)
"""
from __future__ import annotations

import types
import weakref

from ..nn import Module
from .bytecode.py311 import decode_exception_table
from .convert_frame import CacheEntry, _Rebuild, _prune_getitems, capture
from .dynamic_shapes import generic_check, input_meta
from .exc import BackendCompilerFailed, Unsupported
from .resume import check_resumable, live_locals, origin, resume_code
from .symbolic_convert import instructions_of
from .variables import NULL, MethodVT, TensorMethodVT

_NULL = object()                          # a NULL stack slot in a rebuilt stack
_ON_CALL = weakref.WeakKeyDictionary()    # user function -> {backend: compiled wrapper}
_RESUME_FNS: dict = {}                    # (code, closure ids, backend, eager) -> callable
_RESUMABLE = ("CALL", "CALL_FUNCTION_EX", "LOAD_ATTR", "LOAD_METHOD")
_JUMPS = {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"}


class _StateRebuild(_Rebuild):
    """Rebuilds stack entries too: bound tensor methods and bound user methods."""

    def expr(self, vt) -> str:
        if isinstance(vt, TensorMethodVT):
            return f"{self.expr(vt.tensor)}.{vt.name}"
        if isinstance(vt, MethodVT):
            return f"{self.ref(types.MethodType)}({self.expr(vt.func)}, {self.expr(vt.obj)})"
        return super().expr(vt)


def _loop_start(instrs, i):
    """Index where the outermost loop holding instruction ``i`` begins, or None."""
    head = None
    for j, ins in enumerate(instrs):
        if ins.target is not None and ins.target <= j and ins.target <= i <= j:
            head = ins.target if head is None else min(head, ins.target)
    if head is None:
        return None
    if instrs[head].opname == "FOR_ITER" and head > 0 and instrs[head - 1].opname == "GET_ITER":
        return head - 1
    return head


def _in_try(code, offset: int) -> bool:
    unit = offset // 2
    return any(start <= unit < end for start, end, *_ in decode_exception_table(code.co_exceptiontable))


def convert_with_break(fn, f_locals: dict, backend, err: Unsupported, *, wrap,
                       dynamic=None) -> CacheEntry:
    """Cache entry for ``fn``'s frame, broken where ``err`` was raised; ``wrap(fn, backend)``
    makes a compiled wrapper (the resume functions, compile-on-call)."""
    code = fn.__code__
    index = getattr(err, "break_index", None)
    if index is None:
        raise Unsupported(f"no resumable break point ({err.msg})")
    check_resumable(code)
    orig, plen = origin(code)
    instrs = instructions_of(code)
    loop = _loop_start(instrs, index)
    stop = index if loop is None else loop
    if stop < plen:
        raise Unsupported("graph break inside a resume prologue")
    brk = instrs[stop]
    if loop is None and brk.opname not in _RESUMABLE and brk.opname not in _JUMPS:
        raise Unsupported(f"graph break at {brk.opname} cannot be resumed")
    if _in_try(code, brk.offset):
        raise Unsupported("graph break inside a try/with block")

    def trace(L, dyn):
        return _trace_prefix(fn, L, dyn, stop, orig, plen, loop, brk)
    og, gm, tx, layout, bound, stack_exprs, local_exprs, se_lines = trace(f_locals, dynamic)
    if dynamic:
        def as_graph(f, L2, dyn):
            r = trace(L2, dyn)
            return r[0], r[1], (r[4], r[5], r[6]), r[7]
        check = generic_check(fn, f_locals, dynamic, as_graph)
        check(og, gm, (bound, stack_exprs, local_exprs), se_lines)
    kw_names = tx.kw_names
    graph = gm.graph
    op_count = sum(1 for n in graph.nodes if n.op in ("call_function", "call_method", "call_module"))
    if op_count:
        try:
            compiled = backend(gm, [ex for _, ex in og.inputs])
        except Exception as e:
            raise BackendCompilerFailed(backend, e).with_traceback(e.__traceback__) from e
    else:
        compiled = gm.forward

    finish = _finisher(fn, orig, plen, stop, brk, loop is not None, layout, bound, kw_names,
                       backend, wrap)
    args = ", ".join(src for src, _ in og.inputs)
    body = [f"___out = ___compiled({args})",
            f"___st = [{', '.join(stack_exprs)}]",
            f"___lc = [{', '.join(local_exprs)}]",
            *se_lines, "return ___finish(___st, ___lc)"]
    run_src = "def ___run(L, G, C):\n" + "".join(f"    {line}\n" for line in body)
    ns = dict(og.guards.consts, ___compiled=compiled, ___finish=finish, ___NULL=_NULL)
    exec(compile(run_src, f"<ember compiled {code.co_name} (graph break)>", "exec"), ns)
    entry = CacheEntry(og.guards.compile(), ns["___run"], og.guards, gm, backend, run_src, op_count)
    entry.capture_seconds = 0.0
    entry.input_meta = input_meta(og)
    return entry


def _trace_prefix(fn, f_locals, dynamic, stop, orig, plen, loop, brk):
    """Trace up to ``stop``: (og, gm, translator, NULL layout, bound, stack/local exprs, side effects)."""
    og, tx = capture(fn, f_locals, dynamic, stop_at=stop)
    if tx.ctx_stack:
        raise Unsupported("graph break inside a captured `with` block")
    rb = _StateRebuild(og)
    stack_exprs = ["___NULL" if v is NULL else rb.expr(v) for v in tx.stack]
    layout = tuple(v is NULL for v in tx.stack)
    names = orig.co_varnames
    base = stop - plen
    if loop is not None:
        targets = [base]
    elif brk.opname in _JUMPS:
        targets = [base + 1, brk.target - plen]
    else:
        targets = [base + 1]
    live = frozenset().union(*(live_locals(orig, t) for t in targets))
    bound = tuple(n in tx.locals and n in live for n in names)   # dead locals are not passed
    local_exprs = [rb.expr(tx.locals[n]) if b else "None" for n, b in zip(names, bound)]
    se_lines = rb.side_effects()
    graph = og.graph
    graph.output(tuple(rb.outputs))
    _prune_getitems(graph)
    from ..fx import GraphModule
    return og, GraphModule(Module(), graph), tx, layout, bound, stack_exprs, local_exprs, se_lines


def _finisher(fn, orig, plen, stop, brk, in_loop, layout, bound, kw_names, backend, wrap):
    """The Python tail of a broken frame: perform instruction ``brk``, call the resume function."""
    closure = fn.__closure__

    def resume(target, layout_after, eager):
        key = (resume_code(orig, target, layout_after, bound), tuple(map(id, closure or ())),
               id(backend), eager)
        f = _RESUME_FNS.get(key)
        if f is None:
            code = key[0]
            raw = types.FunctionType(code, fn.__globals__, code.co_name, None, closure)
            f = raw if eager else wrap(raw, backend)
            _RESUME_FNS[key] = f
        return f

    def call_resume(f, stack, lc):
        return f(*lc, *[v for v in stack if v is not _NULL])

    base = stop - plen   # index in the original code
    if in_loop:
        f_loop = resume(base, layout, True)
        return lambda stack, lc: call_resume(f_loop, stack, lc)
    op = brk.opname
    if op == "CALL":
        n = brk.arg
        after = layout[:len(layout) - n - 2] + (False,)
        f_next = resume(base + 1, after, False)
        nkw = len(kw_names) if kw_names else 0

        def finish_call(stack, lc):
            args = stack[len(stack) - n:]
            del stack[len(stack) - n:]
            b, a = stack.pop(), stack.pop()
            if a is _NULL:
                callee = b
            else:
                callee, args = a, [b] + args
            kwargs = {}
            if nkw:
                kwargs = dict(zip(kw_names, args[len(args) - nkw:]))
                args = args[:len(args) - nkw]
            stack.append(_call_compiled(callee, backend, wrap)(*args, **kwargs))
            return call_resume(f_next, stack, lc)
        return finish_call
    if op == "CALL_FUNCTION_EX":
        top = 3 if brk.arg & 1 else 2
        has_null = len(layout) > top and layout[-top - 1]
        after = layout[:len(layout) - top - int(has_null)] + (False,)
        f_next = resume(base + 1, after, False)

        def finish_call_ex(stack, lc):
            kwargs = stack.pop() if brk.arg & 1 else {}
            args = stack.pop()
            callee = stack.pop()
            if has_null:
                stack.pop()
            stack.append(_call_compiled(callee, backend, wrap)(*args, **kwargs))
            return call_resume(f_next, stack, lc)
        return finish_call_ex
    if op in ("LOAD_ATTR", "LOAD_METHOD"):
        name = brk.argval
        after = layout[:-1] + ((True, False) if op == "LOAD_METHOD" else (False,))
        f_next = resume(base + 1, after, False)
        f_method = resume(base + 1, layout[:-1] + (False, False), False) if op == "LOAD_METHOD" else None

        def finish_attr(stack, lc):
            obj = stack.pop()
            if op == "LOAD_METHOD":
                # as CPython: a plain function found on the type is pushed unbound, then self
                meth = getattr(type(obj), name, None)
                if isinstance(meth, types.FunctionType) and name not in getattr(obj, "__dict__", ()):
                    stack += [meth, obj]
                    return call_resume(f_method, stack, lc)
                stack.append(_NULL)
            stack.append(getattr(obj, name))
            return call_resume(f_next, stack, lc)
        return finish_attr
    # a conditional jump on a value known only at run time
    after = layout[:-1]
    taken_if = {"POP_JUMP_IF_TRUE": lambda v: bool(v), "POP_JUMP_IF_FALSE": lambda v: not v,
                "POP_JUMP_IF_NONE": lambda v: v is None,
                "POP_JUMP_IF_NOT_NONE": lambda v: v is not None}[op]
    targets = {}

    def finish_jump(stack, lc):
        taken = bool(taken_if(stack.pop()))
        f = targets.get(taken)
        if f is None:
            f = targets[taken] = resume((brk.target if taken else stop + 1) - plen, after, False)
        return call_resume(f, stack, lc)
    return finish_jump


def _call_compiled(callee, backend, wrap):
    """Compile-on-call: a user function (or module with a Python ``forward`` and no hooks) called
    at a break is compiled on its own, as a nested frame would be."""
    if isinstance(callee, types.FunctionType):
        mod = getattr(callee, "__module__", None) or ""
        if mod == "ember" or mod.startswith("ember.") or getattr(callee, "_ember_disabled", False) \
                or callee.__code__.co_flags & 0x20:
            return callee
        per = _ON_CALL.setdefault(callee, {})
        w = per.get(id(backend))
        if w is None:
            w = per[id(backend)] = wrap(callee, backend)
        return w
    if isinstance(callee, types.MethodType) and isinstance(callee.__func__, types.FunctionType):
        inner = _call_compiled(callee.__func__, backend, wrap)
        if inner is not callee.__func__:
            return types.MethodType(inner, callee.__self__)
        return callee
    if isinstance(callee, Module) and not (callee._forward_hooks or callee._forward_pre_hooks):
        fwd = type(callee).forward
        if isinstance(fwd, types.FunctionType) and not (fwd.__module__ or "").startswith("ember."):
            inner = _call_compiled(fwd, backend, wrap)
            return lambda *a, **k: inner(callee, *a, **k)
    return callee
