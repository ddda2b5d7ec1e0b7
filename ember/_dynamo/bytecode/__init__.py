"""Bytecode tools: the version adapter (``py311``) turns a code object into normalised instructions
for the symbolic executor, and ``assembler`` round-trips code objects (disassemble -> edit -> assemble).
"""
import sys

from .py311 import Instruction  # noqa: E402
from .py311 import normalize as _normalize_311

# one adapter per minor version (py312.py follows); elsewhere every frame runs eagerly
SUPPORTED = sys.version_info[:2] == (3, 11)


def normalize(code) -> list:
    """Normalised instructions of ``code`` for this interpreter's bytecode."""
    if not SUPPORTED:
        from ..exc import Unsupported
        raise Unsupported(f"CPython {sys.version.split()[0]} bytecode is not supported yet (3.11 is)")
    return _normalize_311(code)


__all__ = ["Instruction", "normalize", "SUPPORTED"]
