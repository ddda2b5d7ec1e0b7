"""Run in a subprocess by test_bytecode.py: swap every function's code in json, argparse,
dataclasses, collections, functools and typing for a re-assembled copy (as is, then with a NOP
before every instruction) and check that behaviour is unchanged."""
import sys

sys.modules["_json"] = None  # the pure-Python json paths, so the rebuilt code really runs

import argparse  # noqa: E402
import collections  # noqa: E402
import dataclasses  # noqa: E402
import functools  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import json.decoder  # noqa: E402
import json.encoder  # noqa: E402
import json.scanner  # noqa: E402
import types  # noqa: E402
import typing  # noqa: E402
from contextlib import redirect_stderr  # noqa: E402

from ember._dynamo.bytecode.assembler import Instr, assemble, disassemble  # noqa: E402
from ember._dynamo.bytecode.py311 import inseparable  # noqa: E402

MODULES = [json, json.decoder, json.encoder, json.scanner, argparse, dataclasses, collections,
           functools, typing]


def behaviour() -> list:
    out = []
    data = {"b": [1, 2.5, None, True, {"x": "é\n"}], "a": (3, "q\"uote")}
    s = json.dumps(data, indent=2, sort_keys=True)
    out += [s, json.loads(s), json.loads('[1, {"k": [2, 3e2]}, "\\u00e9"]')]
    try:
        json.loads('{"a": 1,, }')
    except json.JSONDecodeError as e:
        out.append(str(e))
    p = argparse.ArgumentParser(prog="tool", description="demo")
    p.add_argument("n", type=int)
    p.add_argument("--flag", action="store_true")
    p.add_argument("--choice", choices=["a", "b"], default="a")
    sub = p.add_subparsers(dest="cmd")
    s1 = sub.add_parser("run")
    s1.add_argument("--times", type=int, default=1, nargs="?")
    out += [vars(p.parse_args(["3", "--flag", "run", "--times", "4"])), p.format_help()]
    err = io.StringIO()
    with redirect_stderr(err):
        try:
            p.parse_args(["x"])
        except SystemExit as e:
            out.append((e.code, err.getvalue()))

    @dataclasses.dataclass(order=True, frozen=True)
    class Point:
        x: int
        y: int = 0
        tags: tuple = dataclasses.field(default_factory=tuple, compare=False)
    a, b = Point(1, 2), Point(1, 3, ("t",))
    out += [repr(a), a < b, a == Point(1, 2), dataclasses.asdict(b), dataclasses.replace(a, y=9)]
    try:
        a.x = 5
    except dataclasses.FrozenInstanceError as e:
        out.append(type(e).__name__)
    Pair = collections.namedtuple("Pair", "left right", defaults=[0])
    pr = Pair(1)
    c = collections.Counter("abracadabra")
    od = collections.OrderedDict.fromkeys("xyz")
    od.move_to_end("x")
    cm = collections.ChainMap({"a": 1}, {"a": 2, "b": 3})
    out += [pr, pr._replace(right=5)._asdict(), c.most_common(2), list(od), dict(cm),
            list(collections.deque(range(5), maxlen=3)), collections.UserList([3, 1]) + [2]]

    @functools.total_ordering
    class V:
        def __init__(self, v):
            self.v = v

        def __eq__(self, o):
            return self.v == o.v

        def __lt__(self, o):
            return self.v < o.v

    @functools.singledispatch
    def kind(x):
        return "obj"

    @kind.register
    def _(x: int):
        return "int"

    @functools.lru_cache(maxsize=None)
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)
    out += [V(1) >= V(0), kind(3), kind("s"), fib(30), functools.reduce(lambda u, w: u * w, range(1, 8)),
            sorted([3, 1, 2], key=functools.cmp_to_key(lambda u, w: w - u)),
            functools.partial(int, base=2)("101")]

    T = typing.TypeVar("T")

    class Box(typing.Generic[T]):
        item: typing.Optional[typing.List[T]]

    class TD(typing.TypedDict, total=False):
        a: int

    class NT(typing.NamedTuple):
        a: int
        b: str = "z"

    @typing.runtime_checkable
    class Sized(typing.Protocol):
        def __len__(self) -> int: ...
    out += [repr(typing.Union[int, str, None]), repr(typing.get_type_hints(Box)), TD.__optional_keys__,
            NT(1), isinstance([], Sized), repr(typing.Callable[[int], str]), typing.get_args(typing.Dict[str, int])]
    return [repr(o) for o in out]


def functions(module):
    seen = set()

    def visit(obj, depth=0):
        if id(obj) in seen or depth > 3:
            return
        seen.add(id(obj))
        if isinstance(obj, types.FunctionType) and obj.__module__ == module.__name__:
            yield obj
        elif isinstance(obj, (staticmethod, classmethod)):
            yield from visit(obj.__func__, depth + 1)
        elif isinstance(obj, property):
            for f in (obj.fget, obj.fset, obj.fdel):
                if f is not None:
                    yield from visit(f, depth + 1)
        elif isinstance(obj, type) and obj.__module__ == module.__name__:
            for v in list(vars(obj).values()):
                yield from visit(v, depth + 1)
        elif isinstance(obj, functools._lru_cache_wrapper if hasattr(functools, "_lru_cache_wrapper") else ()):
            yield from visit(getattr(obj, "__wrapped__", None), depth + 1)
    for v in list(vars(module).values()):
        yield from visit(v)


def with_nops(code):
    """Every instruction preceded by a NOP (offsets, EXTENDED_ARGs and tables all move)."""
    instrs, handlers = disassemble(code)
    out, prev = [], None
    for ins in instrs:
        if ins.name not in ("RESUME", "RETURN_GENERATOR", "MAKE_CELL", "COPY_FREE_VARS") and \
                not (prev is not None and inseparable(prev, ins.name)):
            out.append(Instr("NOP", positions=ins.positions))
        out.append(ins)
        prev = ins.name
    consts = tuple(with_nops(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return assemble(out, handlers, code.replace(co_consts=consts))


def as_is(code):
    consts = tuple(as_is(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return assemble(*disassemble(code), code.replace(co_consts=consts))


def main():
    expected = behaviour()
    originals = {}
    for mod in MODULES:
        for f in functions(mod):
            originals[f] = f.__code__
    for transform in (as_is, with_nops):
        for f, code in originals.items():
            f.__code__ = transform(code)
        got = behaviour()
        assert got == expected, [(a, b) for a, b in zip(got, expected) if a != b][:3]
    print(f"OK {len(originals)} functions")


if __name__ == "__main__":
    main()
