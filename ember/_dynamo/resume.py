"""Resume code objects: the rest of a frame after a graph break, as a function of its state.

``resume_code(orig, target, layout, bound)`` builds a code object from ``orig`` whose arguments
are every local of ``orig`` (in ``co_varnames`` order) followed by ``___stack0..`` (the non-NULL
stack entries, bottom first). A prologue restores the state and jumps into the original body:

    COPY_FREE_VARS n          (closures only)
    RESUME 0
    DELETE_FAST v             (each local unbound at the break)
    LOAD_FAST ___stack0 / PUSH_NULL ...
    JUMP_FORWARD <target>
    <the original instructions, unchanged>

Locals keep their slots (only free-variable indices shift past the new arguments), so no other
instruction is renumbered. Codes are cached by (original code, target, NULL layout, bound locals),
always built from the original code: ``origin(code)`` maps a resume code back to it and gives the
prologue length, so breaks inside a resume function index the original instructions.

Example:
    >>> from ember._dynamo.resume import resume_code
    >>> def f(a, b):
    ...     c = a + b
    ...     return c * 2
    >>> from ember._dynamo.bytecode import normalize
    >>> t = [i.opname for i in normalize(f.__code__)].index("LOAD_FAST", 4)  # `c * 2` starts
    >>> code = resume_code(f.__code__, t, (), (True, True, True))
    >>> import types
    >>> types.FunctionType(code, {})(1, 2, 3)
    6
"""
from __future__ import annotations

import dis

from .bytecode import normalize
from .bytecode.assembler import Instr, assemble, disassemble
from .bytecode.py311 import GENERATOR_FLAGS, decode_exception_table
from .exc import Unsupported

_ORIGIN: dict = {}     # resume code -> (original code, prologue length in normalised instructions)
_CODES: dict = {}      # (orig, target, layout, bound) -> resume code
_NO_POS = (None, None, None, None)
_FREE_OPS = {dis.opname[o] for o in dis.hasfree}


def origin(code):
    """(original code, prologue length) of a resume code; ``(code, 0)`` for any other code."""
    return _ORIGIN.get(code, (code, 0))


_LIVE: dict = {}       # code -> [live-in set per normalised instruction]
_STOPS = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"}


def live_locals(code, index: int) -> frozenset:
    """Locals of ``code`` that may be read before written from instruction ``index`` on
    (backward liveness over the normalised instructions; exception handlers are successors of
    the instructions they cover)."""
    live = _LIVE.get(code)
    if live is None:
        live = _LIVE[code] = _liveness(code)
    return live[index] if index < len(live) else frozenset()


def _liveness(code) -> list:
    ins = normalize(code)
    n = len(ins)
    handlers = [(s * 2, e * 2, t * 2) for s, e, t, *_ in decode_exception_table(code.co_exceptiontable)]
    by_offset = {i.offset: k for k, i in enumerate(ins)}
    succ = []
    for k, i in enumerate(ins):
        nxt = [] if i.opname in _STOPS or k + 1 >= n else [k + 1]
        if i.target is not None:
            nxt.append(i.target)
        for s, e, t in handlers:
            if s <= i.offset < e and t in by_offset:
                nxt.append(by_offset[t])
        succ.append(nxt)
    use = [frozenset([i.argval]) if i.opname == "LOAD_FAST" else frozenset() for i in ins]
    kill = [frozenset([i.argval]) if i.opname in ("STORE_FAST", "DELETE_FAST") else frozenset()
            for i in ins]
    live = [frozenset()] * n
    changed = True
    while changed:
        changed = False
        for k in range(n - 1, -1, -1):
            out = frozenset().union(*(live[j] for j in succ[k])) if succ[k] else frozenset()
            new = use[k] | (out - kill[k])
            if new != live[k]:
                live[k], changed = new, True
    return live


def check_resumable(code) -> None:
    """Raise ``Unsupported`` for frames a resume function cannot continue."""
    if code.co_flags & GENERATOR_FLAGS:
        raise Unsupported("graph break in a generator or coroutine")
    if code.co_cellvars:
        raise Unsupported("graph break in a function whose locals are captured by a closure")


def resume_code(orig, target: int, layout: tuple, bound: tuple):
    """Code continuing ``orig`` at normalised instruction ``target``.

    ``layout``: one bool per stack entry (True = NULL), bottom first; ``bound``: one bool per
    ``orig.co_varnames`` entry (False = unbound at the break).
    """
    key = (orig, target, layout, bound)
    code = _CODES.get(key)
    if code is None:
        code = _CODES[key] = _build(orig, target, layout, bound)
        _ORIGIN[code] = (orig, _prologue_len(orig, layout, bound))
    return code


def _prologue_len(orig, layout, bound) -> int:
    return (1 if orig.co_freevars else 0) + 1 + bound.count(False) + len(layout) + 1


def _build(orig, target, layout, bound):
    check_resumable(orig)
    norm = normalize(orig)
    instrs, handlers = disassemble(orig)
    # the original instruction where normalised `target` begins (a dropped PRECALL included)
    if target == 0:
        land = instrs[0]
    else:
        after = norm[target - 1].offset
        land = next(i for i in instrs if 2 * i.offset > after)
    nv = len(orig.co_varnames)
    n_stack = layout.count(False)
    for ins in instrs:
        if ins.name in _FREE_OPS and ins.arg is not None and ins.arg >= nv:
            ins.arg += n_stack     # cells and frees follow the (now longer) argument list
    pro = []
    if orig.co_freevars:
        pro.append(Instr("COPY_FREE_VARS", len(orig.co_freevars), positions=_NO_POS))
    pro.append(Instr("RESUME", 0, positions=_NO_POS))
    pro += [Instr("DELETE_FAST", i, positions=_NO_POS) for i, b in enumerate(bound) if not b]
    k = 0
    for is_null in layout:
        if is_null:
            pro.append(Instr("PUSH_NULL", positions=_NO_POS))
        else:
            pro.append(Instr("LOAD_FAST", nv + k, positions=_NO_POS))
            k += 1
    pro.append(Instr("JUMP_FORWARD", 0, target=land, positions=_NO_POS))
    names = orig.co_varnames + tuple(f"___stack{i}" for i in range(n_stack))
    line = norm[target].lineno if target < len(norm) else orig.co_firstlineno
    name = f"resume_in_{orig.co_name}_at_{line}"
    shell = orig.replace(co_varnames=names, co_nlocals=len(names), co_argcount=len(names),
                         co_posonlyargcount=0, co_kwonlyargcount=0,
                         co_flags=orig.co_flags & ~0x0C, co_name=name,
                         co_qualname=f"{orig.co_qualname}.<{name}>")
    return assemble(pro + instrs, handlers, shell)
