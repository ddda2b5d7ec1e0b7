"""Disassemble a code object into editable instructions and assemble it back.

``disassemble(code)`` gives ``Instr`` objects (jump targets are references to other ``Instr``
objects, exception-table entries name their first/last/handler instructions, every instruction
keeps its source position). ``assemble(instrs, handlers, code)`` lays them out again: it chooses
EXTENDED_ARG prefixes and jump directions until offsets are stable, inserts inline caches,
re-encodes the exception and location tables and recomputes ``co_stacksize``. Version-specific
encodings come from the adapter (``py311``).

Example:
    >>> from ember._dynamo.bytecode.assembler import disassemble, assemble
    >>> def f(x):
    ...     return [i * 2 for i in range(x) if i % 2]
    >>> g = assemble(*disassemble(f.__code__), f.__code__)
    >>> g.co_code == f.__code__.co_code, g.co_stacksize == f.__code__.co_stacksize
    (True, True)
"""
from __future__ import annotations

import dis
import opcode

from . import py311 as adapter


class Instr:
    """One instruction: ``name``, raw ``arg`` (None without one), ``target`` (an Instr, jumps)."""

    __slots__ = ("name", "arg", "target", "positions", "offset")

    def __init__(self, name, arg=None, target=None, positions=(None, None, None, None)):
        self.name, self.arg, self.target, self.positions = name, arg, target, positions
        self.offset = None

    def __repr__(self):
        return f"Instr({self.name}, {self.arg})"


class Handler:
    """An exception-table entry over instructions ``start``..``end`` (inclusive)."""

    __slots__ = ("start", "end", "target", "depth", "lasti")

    def __init__(self, start, end, target, depth, lasti):
        self.start, self.end, self.target, self.depth, self.lasti = start, end, target, depth, lasti


def disassemble(code):
    """(instructions, handlers) of ``code``; CACHE and EXTENDED_ARG are folded away."""
    raw = code.co_code
    positions = list(code.co_positions())
    instrs, owner = [], {}           # owner: code unit -> Instr that unit belongs to
    ext, pending_units = 0, []
    unit = 0
    n_units = len(raw) // 2
    while unit < n_units:
        op, arg = raw[2 * unit], raw[2 * unit + 1]
        name = opcode.opname[op]
        pending_units.append(unit)
        if op == adapter.EXTENDED_ARG:
            ext = (ext | arg) << 8
            unit += 1
            continue
        full = ext | arg
        ext = 0
        ins = Instr(name, full if op >= opcode.HAVE_ARGUMENT else None, positions=positions[unit])
        ins.offset = unit
        caches = adapter.CACHE_ENTRIES[op]
        for u in pending_units + list(range(unit + 1, unit + 1 + caches)):
            owner[u] = ins
        pending_units = []
        instrs.append(ins)
        unit += 1 + caches
    for ins in instrs:
        if ins.name in adapter.RELATIVE_JUMPS:
            ins.target = owner[adapter.jump_target(ins.name, ins.offset, ins.arg)]
    handlers = []
    for start, end, target, depth, lasti in adapter.decode_exception_table(code.co_exceptiontable):
        handlers.append(Handler(owner[start], owner[end - 1], owner[target], depth, lasti))
    return instrs, handlers


def _ext_count(arg) -> int:
    if arg is None or arg < 0x100:
        return 0
    return 1 if arg < 0x10000 else 2 if arg < 0x1000000 else 3


def _layout(instrs):
    """Offsets (code units of each instruction's first prefix) stable under jump re-encoding."""
    ext = {id(i): _ext_count(i.arg) if i.target is None else 0 for i in instrs}
    while True:
        unit, starts, op_units = 0, {}, {}
        for ins in instrs:
            starts[id(ins)] = unit
            unit += ext[id(ins)]
            op_units[id(ins)] = unit
            unit += 1 + adapter.CACHE_ENTRIES[opcode.opmap[ins.name]]
        changed = False
        for ins in instrs:
            if ins.target is not None:
                forward = starts[id(ins.target)] > op_units[id(ins)]
                ins.name = adapter.jump_name_for(ins.name, forward)
                ins.arg = adapter.jump_arg(ins.name, op_units[id(ins)], starts[id(ins.target)])
                need = _ext_count(ins.arg)
                if need > ext[id(ins)]:
                    ext[id(ins)] = need
                    changed = True
        if not changed:
            return starts, op_units, ext, unit


def _stack_depth(instrs, handlers, starts) -> int:
    index = {id(i): k for k, i in enumerate(instrs)}
    depth_at = [None] * len(instrs)
    work = [(0, 0)]
    for h in handlers:
        work.append((index[id(h.target)], h.depth + int(h.lasti) + 1))
    best = 0
    while work:
        k, depth = work.pop()
        while k < len(instrs):
            if depth_at[k] is not None and depth_at[k] >= depth:
                break
            depth_at[k] = depth
            ins = instrs[k]
            op = opcode.opmap[ins.name]
            arg = ins.arg if op >= opcode.HAVE_ARGUMENT else None
            if ins.target is not None:
                jumped = depth + dis.stack_effect(op, arg, jump=True)
                best = max(best, jumped)
                work.append((index[id(ins.target)], jumped))
                if ins.name in adapter.UNCONDITIONAL:
                    break
                depth += dis.stack_effect(op, arg, jump=False)
            elif ins.name == "RETURN_GENERATOR":
                depth += 1  # on resume the sent value is on the stack (popped by the next POP_TOP)
            else:
                depth += dis.stack_effect(op, arg)
            best = max(best, depth)
            if ins.name in adapter.TERMINATORS:
                break
            k += 1
    return best


def assemble(instrs, handlers, code):
    """A new code object like ``code`` running ``instrs`` with exception ``handlers``."""
    starts, op_units, ext, total = _layout(instrs)
    out = bytearray()
    spans = []
    for ins in instrs:
        op = opcode.opmap[ins.name]
        arg = ins.arg or 0
        n_ext = ext[id(ins)]
        for shift in range(n_ext, 0, -1):
            out += bytes((adapter.EXTENDED_ARG, (arg >> (8 * shift)) & 0xFF))
        out += bytes((op, arg & 0xFF))
        caches = adapter.CACHE_ENTRIES[op]
        out += bytes((adapter.CACHE, 0)) * caches
        spans.append((n_ext + 1 + caches, ins.positions))
        ins.offset = op_units[id(ins)]
    ends = {}
    for k, ins in enumerate(instrs):
        ends[id(ins)] = starts[id(instrs[k + 1])] if k + 1 < len(instrs) else total
    table = adapter.encode_exception_table(
        (starts[id(h.start)], ends[id(h.end)], starts[id(h.target)], h.depth, h.lasti)
        for h in handlers)
    # merge neighbouring spans with the same position, as the compiler's table does
    merged = []
    for units, pos in spans:
        if merged and merged[-1][1] == pos:
            merged[-1] = (merged[-1][0] + units, pos)
        else:
            merged.append((units, pos))
    return code.replace(co_code=bytes(out), co_exceptiontable=table,
                        co_linetable=adapter.encode_line_table(merged, code.co_firstlineno),
                        co_stacksize=_stack_depth(instrs, handlers, starts))


def rebuild(code, recursive: bool = True):
    """Disassemble and assemble ``code`` (and every nested code object): a round trip."""
    if recursive:
        consts = tuple(rebuild(c) if isinstance(c, type(code)) else c for c in code.co_consts)
        code = code.replace(co_consts=consts)
    return assemble(*disassemble(code), code)
