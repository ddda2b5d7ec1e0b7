"""``python -m ember.run script.py args...`` / ``python -m ember.run -m module args...``.

Runs a program with ``import torch`` served by ember (see ``ember._torch_alias``): the script and
every library it imports get ember, unedited; child processes inherit the alias.

This is also where process-wide settings that must precede NumPy's import are made: on a CPU that
lists ``avx512f`` in ``/proc/cpuinfo``, OpenBLAS is told to use its SkylakeX (AVX-512) kernels
(``OPENBLAS_CORETYPE``, unless the user set it), about 1.8x faster sgemm than the AVX2 kernels it
picks on its own on some AMD EPYC parts. The variable only acts before NumPy loads, so when NumPy is
already imported (``-m ember.run`` imports ember first) the program is re-executed once with it set.

Example:
    >>> import subprocess, sys, tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "t.py")
    >>> _ = open(p, "w").write("import torch, sys; print(torch.ones(2).sum().item(), sys.argv[1:])")
    >>> r = subprocess.run([sys.executable, "-m", "ember.run", p, "a"], capture_output=True, text=True)
    >>> r.stdout.strip()
    "2.0 ['a']"
"""
from __future__ import annotations

import os
import runpy
import sys

from ember._blas_env import blas_env

USAGE = "usage: python -m ember.run (script.py | -m module) [args ...]"
_REEXEC = "EMBER_RUN_REEXEC"


def _wants_avx512_blas() -> bool:
    return "OPENBLAS_CORETYPE" not in os.environ and "OPENBLAS_CORETYPE" in blas_env()


def main(argv=None) -> None:
    """Parse ``argv`` (default ``sys.argv[1:]``), install the alias and run the program as __main__."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        raise SystemExit(0 if argv else 2)
    if _wants_avx512_blas() and os.environ.get(_REEXEC) != "1":
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
        os.environ[_REEXEC] = "1"
        os.execv(sys.executable, [sys.executable, "-m", "ember.run", *argv])
    from ember._torch_alias import install_as_torch
    install_as_torch()
    if argv[0] == "-m":
        if len(argv) < 2:
            raise SystemExit(USAGE)
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
