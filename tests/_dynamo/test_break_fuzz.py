"""Bytecode fuzzer for graph breaks: random small functions (loops, branches, comprehensions,
try/with, natural breaks) traced with forced breaks at pseudo-random root instructions must give
CPython's results (the break is resumed where possible, else the frame runs eagerly)."""
import random
import zlib

import numpy as np
import pytest

import ember
from ember._dynamo import symbolic_convert
from ember._dynamo.exc import Unsupported
from ember._dynamo.testing import CompileCounter

_STATEMENTS = [
    "a = a * 2 + x",
    "for i in range(n):\n    a = a + i",
    "if n > 1:\n    a = a - 1\nelse:\n    a = a + 1",
    "lst = [a * k for k in range(n)]\na = sum(lst) / (n + 1)",
    "try:\n    a = a + 1\nexcept ValueError:\n    a = a - 1",
    "with ember.no_grad():\n    a = a * 3",
    "b = (a, n)\na = b[0] + b[1]",
    "d = {'k': a}\na = d['k'].relu() - 0.5",
    "s = a.sum().item()\na = a + s / 10",
    "if a.sum() > 0:\n    a = a * 0.5\nelse:\n    a = a + 0.25",
    "k = 0\nwhile k < n:\n    a = a + 1\n    k += 1",
    "a = a.tanh() if n % 2 else a.sin()",
]
_OPS = ("CALL", "LOAD_ATTR", "LOAD_METHOD", "BINARY_OP", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE",
        "GET_ITER", "FOR_ITER", "BUILD_TUPLE", "LOAD_GLOBAL",
        "COMPARE_OP", "BINARY_SUBSCR", "BEFORE_WITH")


def _make(rng, idx):
    body = [rng.choice(_STATEMENTS) for _ in range(rng.randint(2, 5))]
    src = f"def fuzz_{idx}(x, n):\n    a = x + 0\n"
    src += "".join("    " + line + "\n" for stmt in body for line in stmt.split("\n"))
    src += "    return a * 1.0, n\n"
    ns = {"ember": ember}
    exec(compile(src, f"<fuzz {idx}>", "exec"), ns)
    return ns[f"fuzz_{idx}"], src


@pytest.fixture
def forced_breaks(monkeypatch):
    seed = [0]

    def wrap(name, orig):
        def handler(self, ins):
            if self.parent is None and \
                    zlib.crc32(f"{seed[0]}:{self.code.co_name}:{ins.offset}".encode()) % 7 == 0:
                raise Unsupported(f"fuzz break at {name}")
            return orig(self, ins)
        return handler
    for name in _OPS:
        monkeypatch.setattr(symbolic_convert.Translator, name,
                            wrap(name, getattr(symbolic_convert.Translator, name)))
    return seed


def test_random_functions_with_random_breaks_match_cpython(forced_breaks):
    rng = random.Random(1234)
    resumed = 0
    for idx in range(80):
        fn, src = _make(rng, idx)
        forced_breaks[0] = idx
        cnt = CompileCounter()
        cf = ember.compile(fn, backend=cnt)
        for n in (2, 3):
            for x in (ember.linspace(-1, 1, 4), -ember.ones(4) * 3):
                got, got_n = cf(x, n)
                want, want_n = fn(x, n)
                assert got_n == want_n
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6,
                                           err_msg=src)
        resumed += cnt.frame_count > 1
    assert resumed >= 30, resumed   # many functions really ran as several graphs
