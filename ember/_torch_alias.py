"""The opt-in ``import torch`` -> ember alias (``ember.install_as_torch()``, ``python -m ember.run``).

After ``install_as_torch()``, ``import torch`` anywhere in the process (the user's script and every
library it imports) returns the ``ember`` module itself, and ``import torch.X.Y`` returns the module
object ``ember.X.Y`` (the same object, so ``torch.nn.Module is ember.nn.Module``). A ``torch.X`` that
ember does not provide raises ModuleNotFoundError naming it; nothing falls through to a real torch.

Child processes inherit the alias: ``EMBER_AS_TORCH=1`` is set and ``PYTHONPATH`` gains a directory
holding a one-line ``torch`` package that installs the alias on import, so DataLoader workers started
with spawn/forkserver, ``multiprocessing`` children and subprocesses running Python get ember too.

``importlib.metadata.version("torch")`` answers ember's torch API version whether or not a real
torch is installed, so libraries that check it keep working.

Example:
    >>> import subprocess, sys
    >>> code = "import ember; ember.install_as_torch(); import torch.nn as nn; print(nn.Linear.__module__)"
    >>> subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
    'ember.nn.modules.linear'
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import os
import sys
from pathlib import Path

__all__ = ["install_as_torch", "is_installed", "SHIM_DIR"]

SHIM_DIR = str(Path(__file__).resolve().parent / "_alias_path")  # holds torch/__init__.py
_ENV = "EMBER_AS_TORCH"


def _torch_to_ember(fullname: str) -> str:
    if fullname.split(".")[0] == "functorch":  # torch's sibling package, served by ember.functorch
        return "ember." + fullname
    return "ember" + fullname[len("torch"):]


class _TorchFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every ``torch`` / ``torch.*`` import from the matching ``ember`` module object."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in ("torch", "functorch"):
            return None
        target_name = _torch_to_ember(fullname)
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and e.name.startswith(target_name):
                raise ModuleNotFoundError(f"No module named '{fullname}' (ember, serving 'torch', has "
                                          f"no module '{target_name}')", name=fullname) from None
            raise
        spec = importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(module, "__path__"))
        spec.loader_state = (module, module.__spec__)
        return spec

    def create_module(self, spec):
        return spec.loader_state[0]

    def exec_module(self, module):
        # the import system stamped the torch.* spec on ember's module: give it back its own
        own_spec = module.__spec__.loader_state[1]
        module.__spec__ = own_spec


class _TorchDistribution(importlib.metadata.Distribution):
    """Metadata of the 'torch' distribution as ember serves it (name and the API version)."""

    def read_text(self, filename):
        if filename in ("METADATA", "PKG-INFO"):
            from .torch_version import internal_version
            return (f"Metadata-Version: 2.1\nName: torch\nVersion: {internal_version}\n"
                    "Summary: served by ember (import torch -> ember alias)\n")
        return None

    def locate_file(self, path):
        return Path(__file__).resolve().parent / path


class _MetadataFinder(importlib.abc.MetaPathFinder):
    """Answers ``importlib.metadata`` queries for 'torch' with ember's distribution."""

    def find_spec(self, fullname, path=None, target=None):
        return None

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        if context.name is not None and context.name.lower().replace("-", "_") == "torch":
            return iter([_TorchDistribution()])
        return iter(())


def is_installed() -> bool:
    """True when ``import torch`` in this process gives ember."""
    return any(isinstance(f, _TorchFinder) for f in sys.meta_path)


def _real_torch_loaded() -> bool:
    mod = sys.modules.get("torch")
    if mod is None:
        return False
    import ember
    return mod is not ember and not getattr(mod, "__ember_alias_shim__", False)


def install_as_torch() -> None:
    """Make ``import torch`` (here and in child processes) return ember; idempotent.

    Raises:
        RuntimeError: when the real torch is already imported in this process.
    """
    import ember
    if _real_torch_loaded():
        raise RuntimeError("ember.install_as_torch(): the real torch is already imported in this "
                           "process; install the alias before anything imports torch (or run the "
                           "program with `python -m ember.run script.py`)")
    if not is_installed():
        sys.meta_path.insert(0, _TorchFinder())
        sys.meta_path.insert(0, _MetadataFinder())
    from .torch_version import __version__
    ember.__version__ = __version__  # torch.__version__ compares with "2.0" and (2, 0) as torch's
    sys.modules["torch"] = ember
    for name, mod in list(sys.modules.items()):  # ember modules imported so far, under torch's names
        if name.startswith("ember."):
            sys.modules.setdefault("torch" + name[len("ember"):], mod)
    os.environ[_ENV] = "1"
    if SHIM_DIR not in sys.path:  # multiprocessing's spawn hands the parent's sys.path to children
        sys.path.insert(0, SHIM_DIR)
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if SHIM_DIR not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([SHIM_DIR] + [p for p in paths if p])
