"""Bytecode tools: the version adapter (``py311``) turns a code object into normalised instructions
for the symbolic executor, and ``assembler`` round-trips code objects (disassemble -> edit -> assemble).
"""
import sys

if sys.version_info[:2] != (3, 11):  # one adapter per minor version; 3.12 gets py312.py
    raise ImportError(f"ember._dynamo supports CPython 3.11 bytecode, not {sys.version.split()[0]}")

from .py311 import Instruction, normalize  # noqa: E402

__all__ = ["Instruction", "normalize"]
