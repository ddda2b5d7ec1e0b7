"""CPython 3.11 adapter: the only module that knows 3.11's opcode names and quirks.

``normalize(code)`` gives version-independent instructions for the symbolic executor:
- CACHE, EXTENDED_ARG and PRECALL disappear (their effect is folded into the neighbours);
- forward/backward variants of a jump become one name (``JUMP``, ``POP_JUMP_IF_TRUE``...) and
  every jump carries ``target``, the index of the instruction it lands on;
- ``LOAD_GLOBAL`` reports whether it pushes NULL (``push_null``), ``BINARY_OP`` its operator
  symbol (``argval`` = "+", "+=" ...), local/cell/free instructions the variable name.
Example:
    >>> from ember._dynamo.bytecode.py311 import normalize
    >>> [i.opname for i in normalize((lambda x: x + 1).__code__)]
    ['RESUME', 'LOAD_FAST', 'LOAD_CONST', 'BINARY_OP', 'RETURN_VALUE']
"""
from __future__ import annotations

import dis

_JUMPS = {
    "JUMP_FORWARD": "JUMP", "JUMP_BACKWARD": "JUMP", "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "JUMP_IF_TRUE_OR_POP": "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP": "JUMP_IF_FALSE_OR_POP",
    "FOR_ITER": "FOR_ITER", "SEND": "SEND",
}
_DROPPED = {"CACHE", "EXTENDED_ARG", "PRECALL"}


class Instruction:
    """One normalised instruction; ``offset``/``lineno`` refer to the original code object."""

    __slots__ = ("opname", "arg", "argval", "offset", "target", "lineno", "push_null", "index")

    def __init__(self, opname, arg, argval, offset, lineno, push_null=False):
        self.opname, self.arg, self.argval, self.offset = opname, arg, argval, offset
        self.lineno, self.push_null, self.target, self.index = lineno, push_null, None, None

    def __repr__(self):
        return f"Instruction({self.opname}, {self.argval!r}, offset={self.offset})"


def normalize(code) -> list:
    """The instructions of ``code`` (3.11) in executor form, jump targets resolved to indices."""
    out, by_offset, pending, line = [], {}, [], code.co_firstlineno
    for ins in dis.get_instructions(code):
        if ins.starts_line is not None:
            line = ins.starts_line
        pending.append(ins.offset)
        if ins.opname in _DROPPED:
            continue
        name, argval, push_null = ins.opname, ins.argval, False
        if name in _JUMPS:
            name = _JUMPS[name]
        elif name == "LOAD_GLOBAL":
            push_null = bool(ins.arg & 1)
        elif name == "KW_NAMES":  # dis leaves its constant unresolved on 3.11
            argval = code.co_consts[ins.arg]
        elif name == "BINARY_OP":
            argval = ins.argrepr
        n = Instruction(name, ins.arg, argval, ins.offset, line, push_null)
        n.index = len(out)
        for off in pending:  # a jump to a dropped instruction lands on the next kept one
            by_offset[off] = n.index
        pending = []
        out.append(n)
    for n in out:
        if n.opname in _JUMPS.values():
            n.target = by_offset[n.argval]
    return out


# a comprehension's code object in 3.11 is a nested function called once with the iterator
COMPREHENSION_NAMES = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")
GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200   # generator, coroutine, iterable coroutine, async gen
