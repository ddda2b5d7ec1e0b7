"""The symbolic executor: runs a code object's normalised instructions over trackers.

State is explicit (``ip`` the index of the next instruction, ``stack``, ``locals``, ``cells``) so
that a later stage can turn the state at a break into a continuation. One handler per opcode;
calls, attributes and operators on trackers live in ``call_rules.CallRules``. Anything a handler
cannot express raises ``Unsupported`` with the reason; the caller runs the frame eagerly.

Example:
    >>> import ember
    >>> from ember._dynamo.symbolic_convert import trace_function
    >>> og, ret = trace_function(lambda x: ember.relu(x) * 2, {'x': ember.ones(2)})
    >>> [n.op for n in og.graph.nodes]
    ['placeholder', 'call_function', 'call_function']
"""
from __future__ import annotations

import builtins
import operator

from . import config
from .bytecode import normalize
from .bytecode.py311 import GENERATOR_FLAGS
from .call_rules import CallRules, CtxExitLike, BINARY_OPS, COMPARE_OPS, items_of
from .exc import Unsupported
from .output_graph import OutputGraph
from .variables import (NULL, CellVT, ConstVT, CtxVT, DictVT, IteratorVT, ListVT, NestedFunctionVT,
                        ObjectVT, SetVT, SliceVT, TupleVT, VT)

_DONE = object()
_STOPPED = object()   # run() reached ``stop_at`` (the start of a graph break)
_CODE_CACHE = {}


def instructions_of(code):
    ins = _CODE_CACHE.get(code)
    if ins is None:
        ins = _CODE_CACHE[code] = normalize(code)
    return ins


class Translator(CallRules):
    """Executes one frame (the compiled function, or an inlined callee) symbolically."""

    stop_at = None   # root only: stop before this instruction index (a graph break's start)

    def __init__(self, code, f_locals: dict, cells: dict, output: OutputGraph, f_globals: dict,
                 globals_source: str, parent=None):
        self.code, self.output = code, output
        self.instructions = instructions_of(code)
        self.ip = 0
        self.stack: list = []
        self.locals = dict(f_locals)
        self.cells = dict(cells)
        self.f_globals, self.globals_source = f_globals, globals_source
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.kw_names = None
        self.current = None
        self.return_value = None
        self.yielded = [] if code.co_flags & GENERATOR_FLAGS else None
        self.ctx_stack = []
        if self.depth > config.inline_depth_limit:
            raise Unsupported("inlining went deeper than config.inline_depth_limit (recursion?)")

    # ------------------------------------------------------------------ driver
    def root(self):
        return self if self.parent is None else self.parent.root()

    def where(self) -> str:
        ins = self.current
        line = ins.lineno if ins is not None else self.code.co_firstlineno
        return f"{self.code.co_filename}:{line} in {self.code.co_name}"

    def run(self):
        counter = self.root()
        while True:
            if self.ip == self.stop_at:
                return _STOPPED
            ins = self.instructions[self.ip]
            self.ip += 1
            self.current = ins
            counter.steps = getattr(counter, "steps", 0) + 1
            if counter.steps > config.inline_instruction_limit:
                raise Unsupported("capture exceeded config.inline_instruction_limit instructions")
            handler = getattr(self, ins.opname, None)
            if handler is None:
                raise Unsupported(f"bytecode {ins.opname} is not supported")
            try:
                if handler(ins) is _DONE:
                    return self.return_value
            except Unsupported as e:
                if not getattr(e, "located", False):
                    e.located = True
                    e.msg_where = self.where()
                    e.args = (f"{e.msg} (at {self.where()})",)
                if self.parent is None and not hasattr(e, "break_index"):
                    e.break_index = self.ip - 1   # the root frame's instruction that broke
                raise

    def push(self, v):
        self.stack.append(v)

    def pop(self):
        return self.stack.pop()

    def popn(self, n):
        if n == 0:
            return []
        out = self.stack[-n:]
        del self.stack[-n:]
        return out

    # ------------------------------------------------------------------ no-ops and stack
    def NOP(self, ins):
        pass

    RESUME = NOP
    COPY_FREE_VARS = NOP   # cells of free variables are installed before the frame runs

    def POP_TOP(self, ins):
        self.pop()

    def PUSH_NULL(self, ins):
        self.push(NULL)

    def COPY(self, ins):
        self.push(self.stack[-ins.arg])

    def SWAP(self, ins):
        i = ins.arg
        self.stack[-1], self.stack[-i] = self.stack[-i], self.stack[-1]

    # ------------------------------------------------------------------ loads and stores
    def LOAD_CONST(self, ins):
        v = ins.argval
        self.push(ObjectVT(v) if type(v).__name__ == "code" else ConstVT(v))

    def LOAD_FAST(self, ins):
        if ins.argval not in self.locals:
            raise Unsupported(f"local variable '{ins.argval}' referenced before assignment")
        self.push(self.locals[ins.argval])

    def STORE_FAST(self, ins):
        self.locals[ins.argval] = self.pop()

    def DELETE_FAST(self, ins):
        self.locals.pop(ins.argval, None)

    def MAKE_CELL(self, ins):
        name = ins.argval
        if name not in self.cells:
            self.cells[name] = CellVT(self.locals.get(name))

    def LOAD_CLOSURE(self, ins):
        self.push(self.cells[ins.argval])

    def LOAD_DEREF(self, ins):
        cell = self.cells.get(ins.argval)
        if cell is None or cell.contents is None:
            raise Unsupported(f"free variable '{ins.argval}' is empty")
        self.push(cell.contents)

    def STORE_DEREF(self, ins):
        cell = self.cells.get(ins.argval)
        if cell is None:
            cell = self.cells[ins.argval] = CellVT()
        cell.contents = self.pop()
        if cell.real is not None:
            self.output.side_effects.append(("cell", cell, None, None))

    def LOAD_GLOBAL(self, ins):
        if ins.push_null:
            self.push(NULL)
        self.push(self.load_global(ins.argval))

    def load_global(self, name):
        pending = self.output.pending_globals.get((id(self.f_globals), name))
        if pending is not None:
            return pending
        if name in self.f_globals:
            return self.output.wrap(self.f_globals[name], f"{self.globals_source}[{name!r}]")
        if hasattr(builtins, name):
            # a global of that name defined later would shadow the builtin
            self.output.guards.add(f"{name!r} not in {self.globals_source}", kind="id")
            return ObjectVT(getattr(builtins, name))
        raise Unsupported(f"name '{name}' is not defined")

    def STORE_GLOBAL(self, ins):
        v = self.pop()
        self.output.pending_globals[(id(self.f_globals), ins.argval)] = v
        self.output.side_effects.append(("global", (self.f_globals, self.globals_source), ins.argval, v))

    def LOAD_ATTR(self, ins):
        self.push(self.get_attr(self.pop(), ins.argval))

    def LOAD_METHOD(self, ins):
        obj = self.pop()
        self.push(NULL)
        self.push(self.get_attr(obj, ins.argval))

    def STORE_ATTR(self, ins):
        obj, value = self.pop(), self.pop()
        self.store_attr(obj, ins.argval, value)

    def BINARY_SUBSCR(self, ins):
        idx, obj = self.pop(), self.pop()
        self.push(self.getitem(obj, idx))

    def STORE_SUBSCR(self, ins):
        idx, obj, value = self.pop(), self.pop(), self.pop()
        self.setitem(obj, idx, value)

    def DELETE_SUBSCR(self, ins):
        idx, obj = self.pop(), self.pop()
        if isinstance(obj, DictVT) and idx.is_const():
            del obj.items[idx.as_python_constant()]
            self.mark_mutated(obj)
        elif isinstance(obj, ListVT) and idx.is_const():
            del obj.items[idx.as_python_constant()]
            self.mark_mutated(obj)
        else:
            raise Unsupported(f"del on {obj}")

    # ------------------------------------------------------------------ operators
    def BINARY_OP(self, ins):
        b, a = self.pop(), self.pop()
        self.push(self.binary(BINARY_OPS[ins.argval], a, b, ins.argval))

    def COMPARE_OP(self, ins):
        b, a = self.pop(), self.pop()
        self.push(self.binary(COMPARE_OPS[ins.argval], a, b, ins.argval))

    def IS_OP(self, ins):
        b, a = self.pop(), self.pop()
        same = self.is_same(a, b)
        self.push(ConstVT(same != bool(ins.arg)))

    def CONTAINS_OP(self, ins):
        container, item = self.pop(), self.pop()
        self.push(ConstVT(self.contains(container, item) != bool(ins.arg)))

    def UNARY_NOT(self, ins):
        self.push(ConstVT(not self.truth(self.pop())))

    def UNARY_NEGATIVE(self, ins):
        self.push(self.unary(operator.neg, self.pop()))

    def UNARY_POSITIVE(self, ins):
        self.push(self.unary(operator.pos, self.pop()))

    def UNARY_INVERT(self, ins):
        self.push(self.unary(operator.invert, self.pop()))

    # ------------------------------------------------------------------ containers
    def BUILD_TUPLE(self, ins):
        self.push(TupleVT(self.popn(ins.arg)))

    def BUILD_LIST(self, ins):
        self.push(ListVT(self.popn(ins.arg)))

    def BUILD_SET(self, ins):
        self.push(SetVT(self.popn(ins.arg)))

    def BUILD_MAP(self, ins):
        flat = self.popn(2 * ins.arg)
        self.push(DictVT({self.const(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}))

    def BUILD_CONST_KEY_MAP(self, ins):
        keys = self.const(self.pop())
        values = self.popn(ins.arg)
        self.push(DictVT(dict(zip(keys, values))))

    def BUILD_STRING(self, ins):
        parts = self.popn(ins.arg)
        self.push(ConstVT("".join(self.const(p) for p in parts)))

    def BUILD_SLICE(self, ins):
        parts = self.popn(ins.arg)
        parts += [ConstVT(None)] * (3 - len(parts))
        if all(p.is_const() for p in parts):
            self.push(ConstVT(slice(*(p.as_python_constant() for p in parts))))
        else:
            self.push(SliceVT(*parts))

    def LIST_APPEND(self, ins):
        v = self.pop()
        self.stack[-ins.arg].items.append(v)

    def LIST_EXTEND(self, ins):
        v = self.pop()
        self.stack[-ins.arg].items.extend(items_of(self, v))

    def SET_ADD(self, ins):
        v = self.pop()
        self.stack[-ins.arg].items.append(v)

    def LIST_TO_TUPLE(self, ins):
        self.push(TupleVT(items_of(self, self.pop())))

    def MAP_ADD(self, ins):
        value, key = self.pop(), self.pop()
        self.stack[-ins.arg].items[self.const(key)] = value

    def DICT_UPDATE(self, ins):
        other = self.pop()
        if not isinstance(other, DictVT):
            raise Unsupported(f"dict update from {other}")
        self.stack[-ins.arg].items.update(other.items)

    DICT_MERGE = DICT_UPDATE

    def UNPACK_SEQUENCE(self, ins):
        items = items_of(self, self.pop())
        if len(items) != ins.arg:
            raise Unsupported(f"unpacking {len(items)} values into {ins.arg}")
        for v in reversed(items):
            self.push(v)

    def UNPACK_EX(self, ins):
        items = items_of(self, self.pop())
        before, after = ins.arg & 0xFF, ins.arg >> 8
        if len(items) < before + after:
            raise Unsupported("not enough values to unpack")
        for v in reversed(items[len(items) - after:]):
            self.push(v)
        self.push(ListVT(items[before:len(items) - after]))
        for v in reversed(items[:before]):
            self.push(v)

    def FORMAT_VALUE(self, ins):
        spec = self.const(self.pop()) if ins.arg & 0x04 else ""
        value = self.pop()
        if not value.is_const():
            raise Unsupported(f"f-string formatting of {value} (only constants are folded)")
        v = value.as_python_constant()
        v = (v, str(v), repr(v), ascii(v))[ins.arg & 0x03]
        self.push(ConstVT(format(v, spec)))

    # ------------------------------------------------------------------ control flow
    def JUMP(self, ins):
        self.ip = ins.target

    def POP_JUMP_IF_TRUE(self, ins):
        if self.truth(self.pop()):
            self.ip = ins.target

    def POP_JUMP_IF_FALSE(self, ins):
        if not self.truth(self.pop()):
            self.ip = ins.target

    def POP_JUMP_IF_NONE(self, ins):
        if self.is_none(self.pop()):
            self.ip = ins.target

    def POP_JUMP_IF_NOT_NONE(self, ins):
        if not self.is_none(self.pop()):
            self.ip = ins.target

    def JUMP_IF_TRUE_OR_POP(self, ins):
        if self.truth(self.stack[-1]):
            self.ip = ins.target
        else:
            self.pop()

    def JUMP_IF_FALSE_OR_POP(self, ins):
        if not self.truth(self.stack[-1]):
            self.ip = ins.target
        else:
            self.pop()

    def GET_ITER(self, ins):
        self.push(self.get_iter(self.pop()))

    def FOR_ITER(self, ins):
        it = self.stack[-1]
        if not isinstance(it, IteratorVT):
            raise Unsupported(f"iteration over {it}")
        v = it.next()
        if v is None:
            self.pop()
            self.ip = ins.target
        else:
            self.push(v)

    def RETURN_VALUE(self, ins):
        self.return_value = self.pop()
        return _DONE

    # generators (a generator expression consumed at once): collect the yields
    def RETURN_GENERATOR(self, ins):
        if self.yielded is None:
            raise Unsupported("generator")
        self.push(ConstVT(None))

    def YIELD_VALUE(self, ins):
        if self.yielded is None:
            raise Unsupported("yield outside an inlined generator")
        self.yielded.append(self.pop())
        self.push(ConstVT(None))

    # ------------------------------------------------------------------ with blocks
    def BEFORE_WITH(self, ins):
        ctx = self.pop()
        if not isinstance(ctx, CtxVT):
            raise Unsupported(f"`with` over {ctx} (only grad-mode and autocast contexts are captured)")
        self.enter_ctx(ctx)
        self.push(ExitVT(ctx))
        self.push(ctx if ctx.kind == "autocast" else ConstVT(None))

    # ------------------------------------------------------------------ calls
    def KW_NAMES(self, ins):
        self.kw_names = ins.argval

    def CALL(self, ins):
        args = self.popn(ins.arg)
        kwargs = {}
        if self.kw_names:
            n = len(self.kw_names)
            kwargs = dict(zip(self.kw_names, args[len(args) - n:]))
            args = args[:len(args) - n]
            self.kw_names = None
        b, a = self.pop(), self.pop()
        if a is NULL:
            fn = b
        else:
            fn, args = a, [b] + args
        self.push(self.call(fn, args, kwargs))

    def CALL_FUNCTION_EX(self, ins):
        kwargs = self.pop() if ins.arg & 1 else DictVT({})
        args = self.pop()
        fn = self.pop()
        if self.stack and self.stack[-1] is NULL:
            self.pop()
        if not isinstance(kwargs, DictVT):
            raise Unsupported(f"**{kwargs}")
        self.push(self.call(fn, items_of(self, args), dict(kwargs.items)))

    def MAKE_FUNCTION(self, ins):
        code = self.pop().value
        closure = self.pop() if ins.arg & 0x08 else None
        if ins.arg & 0x04:
            self.pop()
        kwdefaults = self.pop() if ins.arg & 0x02 else None
        defaults = self.pop() if ins.arg & 0x01 else None
        self.push(NestedFunctionVT(code, self.f_globals, defaults, kwdefaults,
                                   closure.items if closure is not None else (), code.co_qualname))

    def IMPORT_NAME(self, ins):
        fromlist, level = self.const(self.pop()), self.const(self.pop())
        mod = __import__(ins.argval, self.f_globals, None, fromlist, level)
        self.push(ObjectVT(mod))

    def IMPORT_FROM(self, ins):
        self.push(self.get_attr(self.stack[-1], ins.argval))

    def LOAD_ASSERTION_ERROR(self, ins):
        raise Unsupported("assertion failed during capture")

    def RAISE_VARARGS(self, ins):
        raise Unsupported("raise inside a captured frame")


class ExitVT(VT, CtxExitLike):
    """The ``__exit__`` that BEFORE_WITH pushes for a captured context."""

    def __init__(self, ctx):
        self.ctx = ctx


def trace_function(fn, f_locals: dict, *, output: OutputGraph | None = None, stop_at=None):
    """Trace ``fn``'s code with ``f_locals`` (real values, wrapped with ``L[...]`` sources).

    Returns (output graph, tracker of the return value); with ``stop_at`` (an instruction index)
    tracing stops before that instruction and the second item is the translator (its state).
    """
    code = fn.__code__
    output = output or OutputGraph(fn.__globals__, fn.__closure__)
    locals_vt = {k: output.wrap(v, f"L[{k!r}]") for k, v in f_locals.items()}
    cells = {}
    for i, name in enumerate(code.co_freevars):
        cell = fn.__closure__[i]
        cells[name] = output.wrap(cell, f"C[{i}]")
    tx = Translator(code, locals_vt, cells, output, fn.__globals__, "G")
    tx.stop_at = stop_at
    ret = tx.run()
    if stop_at is not None:
        if ret is not _STOPPED:
            raise Unsupported("the frame returned before reaching its graph break")
        return output, tx
    return output, ret
