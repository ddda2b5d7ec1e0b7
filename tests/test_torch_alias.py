"""The opt-in import alias: ``import torch`` served by ember in the process and in its children.

Each check runs in a fresh interpreter (the alias changes ``sys.modules`` for good).
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run_py(code, *args, timeout=120):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True,
                       text=True, env=ENV, timeout=timeout, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_same_module_objects():
    out = run_py("""
        import ember; ember.install_as_torch()
        import torch, torch.nn.functional as F
        from torch.utils.data import DataLoader
        import torch.nn.modules.module as M
        import importlib.metadata as md
        print(torch is ember, F is ember.nn.functional, DataLoader is ember.utils.data.DataLoader,
              M.Module is ember.nn.Module, torch.nn.__spec__.name, md.version("torch"),
              torch.__version__ >= "2.0", torch.__version__ >= (2, 13), torch.version.cuda)
    """)
    assert out.split() == ["True", "True", "True", "True", "ember.nn", "2.13.0+ember", "True", "True",
                           "None"]


def test_missing_submodule_names_itself():
    out = run_py("""
        import ember; ember.install_as_torch()
        try:
            import torch.no_such_module
        except ModuleNotFoundError as e:
            print(type(e).__name__, e.name)
    """)
    assert out.split() == ["ModuleNotFoundError", "torch.no_such_module"]


def test_refuses_when_real_torch_is_imported():
    out = run_py("""
        import torch, ember
        try:
            ember.install_as_torch()
        except RuntimeError as e:
            print("refused:", "already imported" in str(e))
    """)
    assert out.strip() == "refused: True"


def test_children_inherit_the_alias(tmp_path):
    # a spawned multiprocessing child and a plain subprocess both import torch -> ember
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing as mp, subprocess, sys, json
        import torch

        def probe(q):
            import torch
            q.put(torch.__name__)

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            q = ctx.Queue(); p = ctx.Process(target=probe, args=(q,)); p.start()
            child = q.get(timeout=60); p.join(60)
            sub = subprocess.run([sys.executable, "-c", "import torch; print(torch.__name__)"],
                                 capture_output=True, text=True, timeout=60).stdout.strip()
            print(json.dumps([torch.__name__, child, sub]))
    """))
    r = subprocess.run([sys.executable, "-m", "ember.run", str(script)], capture_output=True,
                       text=True, env=ENV, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1]) == ["ember", "ember", "ember"]


def test_run_module_form_and_argv(tmp_path):
    (tmp_path / "prog_mod.py").write_text("import sys, torch\nprint(torch.__name__, sys.argv[1:])\n")
    env = {**ENV, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}
    r = subprocess.run([sys.executable, "-m", "ember.run", "-m", "prog_mod", "x", "--y"],
                       capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ember ['x', '--y']"


def test_nothing_reaches_real_torch():
    # real torch made unimportable by a meta-path blocker installed before the alias
    out = run_py("""
        import sys
        class Blocker:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError(f"real torch is blocked: {name}")
        sys.meta_path.insert(0, Blocker())
        import ember; ember.install_as_torch()
        import torch, torch.nn as nn, torch.optim, torch.utils.data, torch.fx, torch.distributions
        m = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
        torch.optim.SGD(m.parameters(), lr=0.1)
        m(torch.ones(1, 3)).sum().backward()
        bad = [n for n, mod in sys.modules.items() if n.split(".")[0] == "torch"
               and not getattr(mod, "__name__", "").startswith("ember")]
        print(len(bad), sorted(bad)[:3])
    """)
    assert out.strip() == "0 []"
