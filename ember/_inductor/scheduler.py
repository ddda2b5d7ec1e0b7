"""Greedy fusion of lowered buffers into kernels, in a schedule the wrapper runs in order (L7).

A ``FusedGroup`` is one generated kernel over a row space ``(R, C)``: ``F`` is its full shape and
``k`` the trailing dims its reductions reduce (``C = prod(F[-k:])``; ``None`` while it has none, and
then a pure pointwise group runs as one flat loop when its inputs allow). Its members are *full*
nodes (shape ``F``), *reductions* (full -> row) and *row* nodes (one value per row). Greedy rules:

* a pointwise or reduction node joins the latest compatible group placed after everything it reads
  from outside the group (read-after-write order holds by construction: a group runs where it sits,
  and a node joins only a group placed after its producers);
* compatibility: a full node reads members at the same index, or row members broadcast along the
  row; a row node reads row members of its own shape; a reduction's input has the group's shape;
* vertical (producer -> consumer), prologue (pointwise -> reduction), epilogue (reduction ->
  pointwise) and horizontal (independent nodes of one space) fusion all follow from the rule, so a
  row softmax or a layer norm is one kernel;
* realize-or-recompute: a member is stored only when something outside its kernel reads it (or a
  later pass of its own kernel, which then reads it back); values used only inside stay in
  registers;
* the transcendental rule: a full-size exp/log/tanh/sigmoid/erf node (at least
  ``config.transcendental_min_numel`` elements) becomes a NumPy ufunc call of its own unless
  ``config.fuse_transcendentals`` says to fuse; by default (``"auto"``) float32 exp/tanh/sigmoid/erf
  fuse, as SIMD helpers (``codegen.vector_math``) measured faster fused than a ufunc pass.

Graphs are functional (AOT autograd functionalises mutation), so the only write-after-read hazard is
buffer reuse, which the wrapper does only for a dead buffer's last reader.

Example:
    >>> import numpy as np
    >>> from .ir import Buffer
    >>> f32 = np.dtype("float32")
    >>> x = Buffer("input", (4, 8), f32, [])
    >>> m = Buffer("reduction", (4, 1), f32, [x], reduce_op="max", k=1)
    >>> y = Buffer("pointwise", (4, 8), f32, [x, m], expr="({0} - {1})")
    >>> [type(i).__name__ for i in schedule([x, m, y])]
    ['FusedGroup']
"""
from __future__ import annotations

from . import config
from .codegen.vector_math import VECTOR_NAMES
from .ir import Buffer, numel

__all__ = ["FusedGroup", "schedule", "fuse_transcendentals_now"]


def fuse_transcendentals_now() -> bool:
    mode = config.fuse_transcendentals
    if mode == "auto":
        try:
            import numba
            return bool(getattr(numba.config, "USING_SVML", False))
        except ImportError:
            return False
    return bool(mode)


class FusedGroup:
    """One kernel: ``members`` in order with their ``role`` (full / row / red)."""

    def __init__(self, F: tuple, index: int) -> None:
        self.F = F
        self.k = None
        self.index = index
        self.members: list = []
        self.role: dict = {}
        self.recomputed: set = set()  # cheap members copied in from an earlier group

    def row_shapes(self) -> tuple:
        if self.k is None:
            return ()
        lead = self.F[:len(self.F) - self.k]
        return (lead + (1,) * self.k, lead)

    def keepdim_row(self) -> tuple:
        return self.F[:len(self.F) - self.k] + (1,) * self.k

    def role_for(self, b: Buffer):
        """The role ``b`` would take here, or None if it cannot join."""
        if b.kind == "reduction":
            inp = b.inputs[0]
            if inp.shape != self.F or (self.k is not None and self.k != b.k):
                return None
            if inp in self.role and self.role[inp] != "full":
                return None
            if self.k is None and any(r != "full" for r in self.role.values()):
                return None
            return "red"
        if b.shape == self.F and (self.k is None or b.shape not in self.row_shapes()
                                  or self.k == 0):
            for d in b.inputs:
                r = self.role.get(d)
                if r in ("row", "red") and d.shape != self.keepdim_row() and d.shape != self.F:
                    return None
            return "full"
        if self.k is not None and b.shape in self.row_shapes():
            for d in b.inputs:
                r = self.role.get(d)
                if r == "full" or (r in ("row", "red") and d.shape != b.shape):
                    return None
            return "row"
        return None

    def add(self, b: Buffer, role: str) -> None:
        if role == "red" and self.k is None:
            self.k = b.k
        self.members.append(b)
        self.role[b] = role
        b.group = self

    def __repr__(self) -> str:
        return f"<FusedGroup F={self.F} k={self.k} {[m.name for m in self.members]}>"


def _vectorised(b: Buffer) -> bool:
    """Whether ``b``'s transcendentals all have SIMD Numba helpers (``codegen.vector_math``)."""
    text = b.expr or ""
    for name in VECTOR_NAMES:
        text = text.replace(name + "(", "")
    return "np." not in text and "_float64(" not in text


def _is_ufunc(b: Buffer, fuse: bool) -> bool:
    return (b.kind == "pointwise" and b.transcendental and not fuse
            and numel(b.shape) >= config.transcendental_min_numel
            and not (config.fuse_transcendentals == "auto" and _vectorised(b)))


def schedule(buffers: list) -> list:
    """The buffers as a run order of ``FusedGroup`` kernels and single buffers (externs, views,
    ufunc calls); inputs and constants are left out."""
    fuse = fuse_transcendentals_now()
    items: list = []
    where: dict = {}
    for b in buffers:
        if b.kind in ("input", "const"):
            where[b] = -1
            continue
        if not b.fusable:
            items.append(b)
            where[b] = len(items) - 1
            continue
        dep_pos = max((where[d] for d in b.inputs), default=-1)
        placed = None
        for i in range(len(items) - 1, -1, -1):
            g = items[i]
            if i < dep_pos:
                break
            if not isinstance(g, FusedGroup):
                continue
            if any(where[d] >= i and g.role.get(d) is None for d in b.inputs):
                continue
            role = g.role_for(b)
            if role is None:
                continue
            if role == "full" and _is_ufunc(b, fuse):
                continue
            placed = (g, role)
            break
        if placed is None and _is_ufunc(b, fuse):
            b.kind = "ufunc"
            items.append(b)
            where[b] = len(items) - 1
            continue
        if placed is None:
            F = b.inputs[0].shape if b.kind == "reduction" else b.shape
            g = FusedGroup(F, len(items))
            items.append(g)
            role = g.role_for(b)
            placed = (g, role)
        g, role = placed
        g.add(b, role)
        where[b] = g.index
    _recompute(items)
    return items


def _recompute(items: list) -> None:
    """Realize-or-recompute: a cheap full-size pointwise member (no transcendental) whose inputs
    are all stored values (graph inputs, externs, views, ufunc results) is copied into each later
    kernel of its shape that reads it, so those kernels recompute it instead of loading it; the
    wrapper then stores it only for readers outside kernels (and skips a kernel left with
    nothing to store)."""
    for g in items:
        if not isinstance(g, FusedGroup):
            continue
        for m in list(g.members):
            if (g.role[m] != "full" or m.kind != "pointwise" or m.transcendental
                    or "erf_" in (m.expr or "")
                    or any(d.kind in ("pointwise", "reduction") for d in m.inputs)):
                continue
            for u in m.users:
                h = getattr(u, "group", None)
                if (h is None or h is g or m in h.role or h.F != m.shape
                        or h.role.get(u) not in ("full", "red")):
                    continue
                h.members.insert(0, m)
                h.role[m] = "full"
                h.recomputed.add(m)
