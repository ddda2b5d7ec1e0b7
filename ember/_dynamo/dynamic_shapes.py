"""Dynamic dims: ``mark_dynamic`` ahead of time, and automatic dynamic after a size-only recompile.

A dynamic dim is left out of the input's guard (any size but 0: empty tensors stay specialised;
the input must be contiguous) and becomes a size symbol (``s0``: see ``symbolic_shapes`` and
``shape_rules``). Sizes read into Python are symbolic; a dim the capture needs as a fixed value (a
size used as a plain int, or one an op accepts only at its current value, like a conv's channels)
is dropped and the frame captured again (``Respecialize``). As a last check the frame is traced a
second time with the remaining dims one larger, and the graph code, the return/side-effect code
and the guards must be identical (else the dims stay static). Only arguments (``L['x']``,
``L['args'][0]``) become dynamic.

Example:
    >>> import ember
    >>> from ember._dynamo.testing import CompileCounter
    >>> cnt = CompileCounter()
    >>> f = ember.compile(lambda x: (x * 2).relu(), backend=cnt)
    >>> for n in range(1, 6):
    ...     _ = f(ember.ones(n, 3))
    >>> cnt.frame_count
    2
"""
from __future__ import annotations

import re

_TOP = re.compile(r"^L\['([^']+)'\](?:\[(\d+)\])?$")   # L['x'] or L['args'][0] (*args)
_PREFIX = "type(___t := "


class NotSizeGeneric(Exception):
    """The graph traced with other sizes differs: the dims cannot be dynamic."""


class Respecialize(Exception):
    """The capture needed some dynamic dims as fixed sizes: ``dims`` {source: dims} to drop."""

    def __init__(self, dims: dict):
        super().__init__(f"sizes used as fixed values: {dims}")
        self.dims = dims


def without(dynamic: dict, dims: dict) -> dict:
    """``dynamic`` minus ``dims`` (both {source: set of dims})."""
    out = {s: set(d) - set(dims.get(s, ())) for s, d in dynamic.items()}
    return {s: d for s, d in out.items() if d}


def _dims(t, name):
    dims = getattr(t, name, None)
    if dims is None:
        dims = set()
        setattr(t, name, dims)
    return dims


def mark_dynamic(t, index, *, min=None, max=None) -> None:
    """Treat ``t``'s dim(s) ``index`` as dynamic from the first compile (one graph for all sizes)."""
    for i in ([index] if isinstance(index, int) else index):
        _dims(t, "_ember_dynamic_dims").add(i + t.dim() if i < 0 else i)


def maybe_mark_dynamic(t, index) -> None:
    """Like ``mark_dynamic`` (ember never errors when the dim turns out static)."""
    mark_dynamic(t, index)


def mark_static(t, index=None) -> None:
    """Never make ``t``'s dim ``index`` (all dims when None) dynamic."""
    dims = range(t.dim()) if index is None else ([index] if isinstance(index, int) else index)
    _dims(t, "_ember_static_dims").update(dims)
    dyn = getattr(t, "_ember_dynamic_dims", None)
    if dyn:
        dyn.difference_update(dims)


def _is_tensor(v) -> bool:
    return hasattr(v, "_data") and hasattr(v, "shape") and hasattr(v, "is_contiguous")


def input_meta(og) -> dict:
    """{source: (type, dtype, requires_grad, shape)} of a capture's top-level tensor inputs."""
    return {src: (type(ex), ex.dtype, ex.requires_grad, tuple(ex.shape))
            for src, ex in og.inputs if _TOP.match(src) and _is_tensor(ex)}


def _lookup(L: dict, src: str):
    m = _TOP.match(src)
    if m is None or m.group(1) not in L:
        return None
    v = L[m.group(1)]
    if m.group(2) is not None:
        k = int(m.group(2))
        v = v[k] if isinstance(v, tuple) and k < len(v) else None
    return v


def _replace(L: dict, src: str, new) -> None:
    m = _TOP.match(src)
    name = m.group(1)
    if m.group(2) is None:
        L[name] = new
    else:
        k = int(m.group(2))
        L[name] = L[name][:k] + (new,) + L[name][k + 1:]


def is_argument(L: dict, src: str) -> bool:
    """``src`` names a tensor argument of this call (a source dynamic dims may use)."""
    return _is_tensor(_lookup(L, src))


def _arguments(L: dict):
    for name, v in L.items():
        if isinstance(v, tuple):
            for k, item in enumerate(v):
                yield f"L[{name!r}][{k}]", item
        else:
            yield f"L[{name!r}]", v


def requested(L: dict, everything: bool) -> dict:
    """{source: dims} marked on the arguments (``everything``: every dim, as ``dynamic=True``)."""
    out = {}
    for src, v in _arguments(L):
        if not _is_tensor(v):
            continue
        dims = set(range(v.dim())) if everything else set(getattr(v, "_ember_dynamic_dims", ()))
        dims -= getattr(v, "_ember_static_dims", set())
        dims = {i for i in dims if v.shape[i] != 0}
        if dims:
            out[src] = dims
    return out


def size_only_change(meta: dict, bad_lines: list, L: dict) -> dict | None:
    """{source: dims} when every failed guard is a top-level tensor whose sizes alone changed."""
    changed = {}
    for line in bad_lines:
        if not line.startswith(_PREFIX):
            return None
        src = line[len(_PREFIX):line.index(")")]
        v = _lookup(L, src)
        if v is None or src not in meta or not _is_tensor(v):
            return None
        typ, dtype, rg, shape = meta[src]
        if type(v) is not typ or v.dtype is not dtype or v.requires_grad != rg or v.dim() != len(shape):
            return None
        dims = {i for i, (a, b) in enumerate(zip(shape, v.shape)) if a != b}
        if not dims or any(shape[i] == 0 or v.shape[i] == 0 for i in dims) \
                or dims & getattr(v, "_ember_static_dims", set()):
            return None
        changed[src] = dims
    return changed or None


def generic_check(fn, L: dict, dynamic: dict, trace):
    """A ``check`` for ``convert_frame``: trace again with the dynamic dims one larger and
    demand the same graph, return/side-effect code and guards."""
    def check(og, gm, ret_expr, se_lines):
        if og.specialized:
            fixed: dict = {}
            for name in og.specialized:
                src, dim = og.symbol_dims[name]
                fixed.setdefault(src, set()).add(dim)
            raise Respecialize(fixed)
        L2 = dict(L)
        for src, dims in dynamic.items():
            t = _lookup(L, src)
            shape = [n + 1 if i in dims else n for i, n in enumerate(t.shape)]
            _replace(L2, src, t.new_zeros(shape).requires_grad_(t.requires_grad))
        try:
            og2, gm2, ret2, se2 = trace(fn, L2, dynamic)
        except Exception as e:  # other sizes break the code (a size checked against a constant)
            raise NotSizeGeneric(f"{fn.__name__} fails at other sizes of {sorted(dynamic)}: {e}")
        if (gm2.code, ret2, se2, og2.guards.lines) != (gm.code, ret_expr, se_lines, og.guards.lines):
            raise NotSizeGeneric(f"graph of {fn.__name__} depends on the sizes of {sorted(dynamic)}")
    return check
