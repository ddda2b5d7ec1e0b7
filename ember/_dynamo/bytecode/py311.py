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


# ---------------------------------------------------------------------- assembler support (3.11)
import opcode as _opcode  # noqa: E402

CACHE_ENTRIES = _opcode._inline_cache_entries      # code units of inline cache after each opcode
EXTENDED_ARG = _opcode.opmap["EXTENDED_ARG"]
CACHE = _opcode.opmap["CACHE"]
_BACKWARD = {"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "POP_JUMP_BACKWARD_IF_TRUE",
             "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_NONE",
             "POP_JUMP_BACKWARD_IF_NOT_NONE"}
RELATIVE_JUMPS = {_opcode.opname[i] for i in _opcode.hasjrel}
UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}
TERMINATORS = {"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"} | UNCONDITIONAL
_FLIP = {"JUMP_FORWARD": "JUMP_BACKWARD"}
for _cond in ("TRUE", "FALSE", "NONE", "NOT_NONE"):
    _FLIP[f"POP_JUMP_FORWARD_IF_{_cond}"] = f"POP_JUMP_BACKWARD_IF_{_cond}"
_FLIP.update({v: k for k, v in list(_FLIP.items())})


def jump_name_for(name: str, forward: bool) -> str:
    """The 3.11 spelling of a relative jump going ``forward`` (or backward)."""
    if (name in _BACKWARD) == (not forward):
        return name
    if name not in _FLIP:
        raise ValueError(f"{name} cannot jump {'forward' if forward else 'backward'} on 3.11")
    return _FLIP[name]


def jump_arg(name: str, op_unit: int, target_unit: int) -> int:
    """The oparg of a relative jump whose opcode sits at ``op_unit`` (code units)."""
    after = op_unit + 1 + CACHE_ENTRIES[_opcode.opmap[name]]
    return after - target_unit if name in _BACKWARD else target_unit - after


def jump_target(name: str, op_unit: int, arg: int) -> int:
    after = op_unit + 1 + CACHE_ENTRIES[_opcode.opmap[name]]
    return after - arg if name in _BACKWARD else after + arg


def _varint_be(value: int, first: bool) -> bytes:
    """Exception-table varint: 6-bit groups, most significant first, 0x40 = more follow."""
    groups = [value & 63]
    value >>= 6
    while value:
        groups.append(value & 63)
        value >>= 6
    groups.reverse()
    out = bytearray(g | (0x40 if i < len(groups) - 1 else 0) for i, g in enumerate(groups))
    if first:
        out[0] |= 0x80
    return bytes(out)


def encode_exception_table(entries) -> bytes:
    """``entries``: (start, end, target, depth, lasti) in code units, end exclusive."""
    out = bytearray()
    for start, end, target, depth, lasti in entries:
        out += _varint_be(start, True) + _varint_be(end - start, False) + \
            _varint_be(target, False) + _varint_be((depth << 1) | int(lasti), False)
    return bytes(out)


def decode_exception_table(table: bytes) -> list:
    entries, it = [], iter(table)

    def read():
        b = next(it)
        val = b & 63
        while b & 64:
            b = next(it)
            val = (val << 6) | (b & 63)
        return val
    try:
        while True:
            start = read()
            end = start + read()
            target = read()
            dl = read()
            entries.append((start, end, target, dl >> 1, bool(dl & 1)))
    except StopIteration:
        return entries


def _varint_le(value: int) -> bytes:
    out = bytearray()
    while value >= 64:
        out.append(0x40 | (value & 63))
        value >>= 6
    out.append(value)
    return bytes(out)


def _svarint(value: int) -> bytes:
    return _varint_le(((-value) << 1) | 1 if value < 0 else value << 1)


def encode_line_table(spans, first_line: int) -> bytes:
    """``spans``: (code units, (line, end_line, col, end_col)) in order; None parts allowed."""
    out, prev = bytearray(), first_line
    for units, pos in spans:
        line, end_line, col, end_col = pos
        while units > 0:
            n = min(units, 8)
            units -= n
            if line is None:
                out.append(0x80 | (15 << 3) | (n - 1))
                continue
            if col is None or end_col is None or end_line is None:
                out.append(0x80 | (13 << 3) | (n - 1))
                out += _svarint(line - prev)
            else:
                out.append(0x80 | (14 << 3) | (n - 1))
                out += _svarint(line - prev) + _varint_le(end_line - line) + \
                    _varint_le(col + 1) + _varint_le(end_col + 1)
            prev = line
    return bytes(out)


def inseparable(prev: str, name: str) -> bool:
    """Pairs 3.11's specialising interpreter executes as one (nothing may be put between them):
    a specialised PRECALL skips the CALL after it, and COMPARE_OP's *_JUMP forms take the
    conditional jump that follows."""
    return (prev == "PRECALL" and name == "CALL") or \
        (prev == "COMPARE_OP" and name.startswith("POP_JUMP_"))
