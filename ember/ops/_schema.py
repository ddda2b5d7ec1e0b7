"""Operator schemas as torch prints them, e.g.
``add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor``.

``parse_schema(text, namespace)`` gives a ``FunctionSchema`` whose ``str()`` is torch's text and
whose ``arguments`` say, per argument, its name, type, default and whether it is keyword-only; ``bind``
turns a call's ``(*args, **kwargs)`` into one value per argument.

Example:
    >>> s = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "aten")
    >>> str(s)
    'aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor'
    >>> s.name, s.overload_name, [a.name for a in s.arguments]
    ('aten::add', 'Tensor', ['self', 'other', 'alpha'])
    >>> s.bind((1, 2), {})
    [1, 2, 1]
    >>> m = parse_schema("max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)", "aten")
    >>> [(r.name, r.type) for r in m.returns]
    [('values', 'Tensor'), ('indices', 'Tensor')]
"""
from __future__ import annotations

from .. import _dtype as D

__all__ = ["Argument", "FunctionSchema", "parse_schema"]

_NO_DEFAULT = object()
# torch's ScalarType codes, as schema defaults print them (``ScalarType? dtype=4`` is int64)
_SCALAR_TYPES = {0: D.uint8, 1: D.int8, 2: D.int16, 3: D.int32, 4: D.int64, 5: D.float16,
                 6: D.float32, 7: D.float64, 9: D.complex64, 10: D.complex128, 11: D.bool,
                 15: D.bfloat16}
# non-literal defaults torch prints (reduction enums and memory formats)
_NAMED_DEFAULTS = {"None": None, "True": True, "False": False, "Mean": 1, "Sum": 2,
                   "contiguous_format": "contiguous", "inf": float("inf"), "-inf": float("-inf")}


class Argument:
    """One schema argument: ``name``, ``type`` (text), ``default``, ``kwarg_only``."""

    __slots__ = ("name", "type", "default_value", "kwarg_only", "is_tensor", "is_tensor_list",
                 "optional", "mutable")

    def __init__(self, name: str, type_: str, default, kwarg_only: bool):
        if type_.startswith("ScalarType") and type(default) is int:  # torch prints the enum's code
            default = _SCALAR_TYPES[default]
        self.name, self.type, self.default_value, self.kwarg_only = name, type_, default, kwarg_only
        base = type_.split("(")[0]
        self.mutable = "!" in type_
        self.is_tensor_list = base.startswith("Tensor") and type_.endswith("]")
        self.is_tensor = base.startswith("Tensor") and not self.is_tensor_list
        self.optional = "?" in type_

    def has_default_value(self) -> bool:
        return self.default_value is not _NO_DEFAULT

    @property
    def default(self):
        return None if self.default_value is _NO_DEFAULT else self.default_value

    def __repr__(self) -> str:
        return f"Argument({self.type} {self.name})"


class FunctionSchema:
    """A parsed schema; ``str()`` reproduces torch's text, ``name`` is ``ns::op``."""

    def __init__(self, text: str, namespace: str, name: str, overload: str, arguments: list,
                 returns: str):
        self._text = f"{namespace}::{text}"
        self.name = f"{namespace}::{name}"
        self.overload_name = "" if overload == "default" else overload
        self.arguments = arguments
        self.returns_text = returns
        self.returns = _parse_returns(returns)
        self.is_mutable = any(a.mutable for a in arguments)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return self._text

    def bind(self, args: tuple, kwargs: dict) -> list:
        """One value per argument (defaults filled); TypeError names the op on a bad call."""
        arguments = self.arguments
        if len(args) > len(arguments) or any(a.kwarg_only for a in arguments[:len(args)]):
            npos = sum(1 for a in arguments if not a.kwarg_only)
            raise TypeError(f"{self.name}() expected at most {npos} positional argument(s) but "
                            f"received {len(args)}")
        values = list(args)
        for a in arguments[len(args):]:
            if a.name in kwargs:
                values.append(kwargs[a.name])
            elif a.default_value is not _NO_DEFAULT:
                values.append(a.default_value)
            else:
                raise TypeError(f"{self.name}() is missing value for argument '{a.name}'. "
                                f"Declaration: {self._text}")
        extra = set(kwargs) - {a.name for a in arguments[len(args):]}
        if extra:
            raise TypeError(f"{self.name}() got an unexpected keyword argument '{sorted(extra)[0]}'")
        return values


def _split_top(text: str) -> list:
    """Split on commas outside brackets and parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _parse_returns(text: str) -> list:
    """``Tensor`` / ``(Tensor values, Tensor indices)`` / ``()`` -> one Argument per result."""
    inner = text[1:-1] if text.startswith("(") else text
    out = []
    for part in _split_top(inner):
        type_, _, name = part.rpartition(" ") if " " in part else (part, "", "")
        out.append(Argument(name, type_, _NO_DEFAULT, False))
    return out


def _default(text: str):
    if text in _NAMED_DEFAULTS:
        return _NAMED_DEFAULTS[text]
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_default(x.strip()) for x in inner.split(",")] if inner else []
    if text[:1] in "\"'":
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_schema(text: str, namespace: str) -> FunctionSchema:
    """Parse ``name[.overload](args) -> returns`` (torch's printed form, without ``ns::``)."""
    head, _, rest = text.partition("(")
    name, _, overload = head.partition(".")
    depth, i = 1, 0
    while depth:
        depth += {"(": 1, ")": -1}.get(rest[i], 0)
        i += 1
    arg_text, returns = rest[:i - 1], rest[i:].partition("->")[2].strip()
    arguments, kwarg_only = [], False
    for part in _split_top(arg_text):
        if part == "*":
            kwarg_only = True
            continue
        decl, eq, default = part.partition("=")
        type_, _, arg_name = decl.strip().rpartition(" ")
        arguments.append(Argument(arg_name, type_, _default(default.strip()) if eq else _NO_DEFAULT,
                                  kwarg_only))
    return FunctionSchema(text, namespace, name, overload or "default", arguments, returns)
