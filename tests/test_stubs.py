"""The generated files are current: ``tools/make_stubs.py`` regenerates ``ember/_exports.py`` (the
namespace's explicit re-exports) and the type stubs ``ember/__init__.pyi`` / ``ember/_tensor.pyi``
into a temporary directory, and each must equal the checked-in file."""
from __future__ import annotations

import ast
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import ember

ROOT = pathlib.Path(__file__).resolve().parents[1]
PUBLIC_NAMES = """
import json, types, ember
print(json.dumps([n for n, v in vars(ember).items() if not n.startswith("_") or (
    callable(v) and not isinstance(v, (type, types.ModuleType)) and not n.startswith("__"))]))
"""


def _fresh(*args) -> str:
    """Run in a new interpreter: the stubs describe ``import ember`` as it starts, not a namespace
    other tests have grown (lazily loaded subpackages become attributes)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120,
                          check=True, cwd=str(ROOT)).stdout


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("stubs")
    _fresh(str(ROOT / "tools" / "make_stubs.py"), "--out", str(out))
    return out


@pytest.mark.parametrize("rel", ["_exports.py", "__init__.pyi", "_tensor.pyi"])
def test_checked_in_file_is_current(generated, rel):
    fresh = (generated / rel).read_text()
    assert (ROOT / "ember" / rel).read_text() == fresh, (
        f"ember/{rel} is out of date: run `python tools/make_stubs.py`")
    ast.parse(fresh)  # valid Python / stub syntax


def test_exports_bind_every_table_name_by_name():
    text = (ROOT / "ember" / "_exports.py").read_text()
    assert re.search(r'^exp = _m_pointwise\.FUNCTIONS\["exp"\]$', text, re.M)  # grep finds ember.exp
    assert ember.exp is ember.Tensor.exp
    import ember._exports as ex
    for name in ex.__all__:
        public = getattr(ember, name)  # or the wrapper showing TorchFunctionModes its calls (aliases)
        assert public is getattr(ex, name) or public.__wrapped__ is getattr(ex, name), name


def test_init_stub_names_every_public_name():
    stub = (ROOT / "ember" / "__init__.pyi").read_text()
    declared = set()
    for node in ast.parse(stub).body:
        if isinstance(node, ast.FunctionDef):
            declared.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            declared.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.AnnAssign):
            declared.add(node.target.id)
        elif isinstance(node, ast.Assign):
            declared.update(t.id for t in node.targets)
    public = set(json.loads(_fresh("-c", PUBLIC_NAMES)))
    assert public - declared == set()
    assert "exp = Tensor.exp" in stub  # the method's signature, in _tensor.pyi
    assert "def exp(input, *, out=...) -> Any: ..." in (ROOT / "ember" / "_tensor.pyi").read_text()


def test_tensor_stub_has_every_public_method():
    stub = (ROOT / "ember" / "_tensor.pyi").read_text()
    cls = next(n for n in ast.parse(stub).body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    declared = {n.name if isinstance(n, ast.FunctionDef) else n.target.id for n in cls.body}
    public = {n for n in dir(ember.Tensor) if not n.startswith("_")}
    assert public - declared == set()
