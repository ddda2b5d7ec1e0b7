"""Indexing with first-class dimensions: ``t[i, j]``, packs ``t[(i, j), k]``, dim lists, ``...``,
and dims or first-class tensors used as index tensors (``w[ids[b, s], f]``, ``a[i - 1]``), plus
``index(self, positions, dims)`` behind ``Tensor.index``.

A dim that appears once and is not yet a level of the tensor *binds* its positional axis (a view:
only the levels change, and the dim takes the axis' size or raises ``DimensionBindError``).
Anything else that is tensor-valued indexes: all index tensors, and ``arange`` along each
first-class dim the tensor already has, are aligned by dim identity and passed to ember's advanced
indexing in one call.

Example:
    >>> import ember
    >>> from ember.functorch.dim import dims
    >>> i, j = dims()
    >>> a = ember.arange(12.).reshape(3, 4)
    >>> a[i, i].order(i)                    # the diagonal
    tensor([ 0.,  5., 10.])
    >>> a.index(1, j).dims, j.size
    ((j,), 4)
"""
from __future__ import annotations

from ... import _creation
from ..._tensor import Tensor as _Plain
from ._first_class import (DimList, DimensionBindError, _Tensor, align, index_of, is_dim, levels_of,
                           order, wrap)

__all__ = ["getitem", "index"]


def _is_pack(e) -> bool:
    return type(e) in (tuple, list) and len(e) > 0 and all(is_dim(d) or isinstance(d, DimList) for d in e)


def _expand_entries(entries: list, npos: int) -> list:
    """``...`` and an unbound DimList take the positional dims the other entries leave."""
    var = [k for k, e in enumerate(entries) if e is Ellipsis or (isinstance(e, DimList) and not e.is_bound)]
    if len(var) > 1:
        raise DimensionBindError(f"at most one ... or unbound dimension list can exist in indexing "
                                 f"list but found {len(var)} at offsets {' and '.join(map(str, var))}")
    used = sum(0 if e is None else len(e) if isinstance(e, DimList) else 1
               for k, e in enumerate(entries) if k not in var)
    if used > npos:
        raise ValueError(f"at least {used} indices were supplied but the tensor only has {npos} "
                         f"dimensions")
    out = []
    for k, e in enumerate(entries):
        if k in var:
            if e is Ellipsis:
                out += [slice(None)] * (npos - used)
            else:
                e.bind_len(npos - used)
                out += list(e)
        elif isinstance(e, DimList):
            out += list(e)
        else:
            out.append(e)
    return out


def _bind_pack(pack: list, size: int) -> list:
    dims = []
    for d in pack:
        dims.extend(d if isinstance(d, DimList) else [d])
    unbound = [d for d in dims if not d.is_bound]
    known = 1
    for d in dims:
        if d.is_bound:
            known *= d.size
    if len(unbound) > 1:
        raise DimensionBindError(f"cannot infer the sizes of two dimensions at once {unbound[0]} and "
                                 f"{unbound[1]}")
    if unbound:
        if known == 0 or size % known:
            raise DimensionBindError(f"Dimension sizes do not match ({size} is not a multiple of "
                                     f"{known}) when matching dimension pack {tuple(dims)}")
        unbound[0].size = size // known
    elif known != size:
        raise DimensionBindError(f"Dimension sizes do not match ({size} != {known}) when matching "
                                 f"dimension pack {tuple(dims)}")
    return dims


def _split_packs(t, levels, per_rank: list):
    """Reshape each axis indexed by a pack into one axis per dim of the pack."""
    if not any(_is_pack(e) for e in per_rank):
        return t, list(levels), per_rank
    shape, new_levels, new_entries, rank = [], [], [], 0
    for a, lv in enumerate(levels):
        if type(lv) is not int:
            shape.append(t.shape[a])
            new_levels.append(lv)
            continue
        e = per_rank[rank]
        rank += 1
        if _is_pack(e):
            dims = _bind_pack(e, t.shape[a])
            shape += [d.size for d in dims]
            new_levels += [0] * len(dims)
            new_entries += dims
        else:
            shape.append(t.shape[a])
            new_levels.append(0)
            new_entries.append(e)
    return t.reshape(shape), new_levels, new_entries


def _basic(t, levels, per_rank: list, nones: dict):
    """Apply the int/slice/None entries; other entries keep their axis. Returns the view, its levels
    and, for each kept non-basic entry, its axis in the view."""
    index, new_levels, kept, rank = [], [], [], 0
    for a, lv in enumerate(levels):
        if type(lv) is not int:
            index.append(slice(None))
            new_levels.append(lv)
            continue
        for _ in range(nones.get(rank, 0)):
            index.append(None)
            new_levels.append(0)
        e = per_rank[rank]
        rank += 1
        if e is None or isinstance(e, slice) or (isinstance(e, int) and not isinstance(e, bool)):
            index.append(e)
            if not isinstance(e, int):
                new_levels.append(0)
        else:
            index.append(slice(None))
            kept.append((len(new_levels), e))
            new_levels.append(0)
    for _ in range(nones.get(rank, 0)):
        index.append(None)
        new_levels.append(0)
    if any(not (isinstance(i, slice) and i == slice(None)) for i in index):
        t = t[tuple(index)]
    return t, new_levels, kept


def _as_index(e):
    if isinstance(e, (_Tensor, _Plain)):
        return e
    return _creation.tensor(e)


def getitem(x, index):
    """``x[index]`` for a tensor (plain or first-class) and an index holding first-class dims."""
    t, levels = levels_of(x)
    entries = list(index) if type(index) is tuple else [index]
    npos = sum(1 for lv in levels if type(lv) is int)
    entries = _expand_entries(entries, npos)
    nones, per_rank = {}, []
    for e in entries:
        if e is None:
            nones[len(per_rank)] = nones.get(len(per_rank), 0) + 1
        else:
            per_rank.append(e)
    per_rank += [slice(None)] * (npos - len(per_rank))
    if any(_is_pack(e) for e in per_rank):
        shift = {}  # None positions count ranks; packs add ranks
        extra = 0
        for r, e in enumerate(per_rank):
            if r in nones:
                shift[r + extra] = nones[r]
            if _is_pack(e):
                extra += sum(len(d) if isinstance(d, DimList) else 1 for d in e) - 1
        if len(per_rank) in nones:
            shift[len(per_rank) + extra] = nones[len(per_rank)]
        t, levels, per_rank = _split_packs(t, levels, per_rank)
        nones = shift
    # dims seen once and new to the tensor bind their axis; the others index like arange tensors
    counts = {}
    for e in per_rank:
        if is_dim(e):
            counts[id(e)] = counts.get(id(e), 0) + 1
    levels = list(levels)
    pos_axes = [a for a, lv in enumerate(levels) if type(lv) is int]
    seen = set()
    for r, e in enumerate(per_rank):
        if not is_dim(e) or id(e) in seen:
            continue
        seen.add(id(e))
        a = pos_axes[r]
        if index_of(levels, e) < 0:
            e.size = t.shape[a]  # binds, or raises DimensionBindError on a different size
            if counts[id(e)] == 1:
                levels[a] = e
                per_rank[r] = slice(None)
    t, levels, kept = _basic(t, levels, per_rank, nones)
    kept = [(a, e) for a, e in kept if not (isinstance(e, slice))]
    if not kept:
        return wrap(t, levels)
    return _advanced(t, levels, kept)


def _advanced(t, levels, kept):
    batch_axes = [a for a, lv in enumerate(levels) if type(lv) is not int]
    pos_axes = [a for a, lv in enumerate(levels) if type(lv) is int]
    perm = batch_axes + pos_axes
    if perm != list(range(len(perm))):
        t = t.permute(perm)
    where = {pos_axes.index(a) + len(batch_axes): _as_index(e) for a, e in kept}
    dims = [levels[a] for a in batch_axes]
    for e in where.values():
        if isinstance(e, _Tensor):
            for lv in e._levels:
                if type(lv) is not int and index_of(dims, lv) < 0:
                    dims.append(lv)
    maxp = max(e.ndim if isinstance(e, _Tensor) else e.dim() for e in where.values())
    index = []
    for b, d in enumerate(dims[:len(batch_axes)]):
        shape = [1] * (len(dims) + maxp)
        shape[b] = d.size
        index.append(_creation.arange(d.size).reshape(shape))
    for a in range(len(batch_axes), t.dim()):
        e = where.get(a)
        index.append(slice(None) if e is None else align(e, dims, maxp))
    r = t[tuple(index)]
    adv = list(range(len(batch_axes))) + sorted(where)
    contiguous = adv == list(range(adv[0], adv[0] + len(adv)))
    at = adv[0] if contiguous else 0
    block = len(dims) + maxp
    new_levels = [0] * at + dims + [0] * maxp + [0] * (r.dim() - at - block)
    return wrap(r, new_levels)


def index(self, positions, dims):
    """Bind (or index) the given positions of ``self`` with ``dims``: ``t.index(0, i)`` is
    ``t[i]``; a first-class dim of ``self`` as a position is indexed, ``x.index(i, 0)``.

    Args:
        positions: an int (positional dim) or Dim of ``self``, or a tuple/list of them.
        dims: what to index each position with (Dim, pack of dims, int, tensor...), one per position.

    Example:
        >>> import ember
        >>> from ember.functorch.dim import dims
        >>> i, j = dims()
        >>> x = ember.arange(24.).reshape(2, 3, 4).index((0, 2), (i, j))
        >>> x.dims, x.shape
        ((i, j), (3,))
        >>> x.index(i, 1).order(j)
        tensor([[12., 16., 20.],
                [13., 17., 21.],
                [14., 18., 22.],
                [15., 19., 23.]])
    """
    single = not isinstance(positions, (tuple, list))
    positions = (positions,) if single else tuple(positions)
    dims = (dims,) if single or not isinstance(dims, (tuple, list)) else tuple(dims)
    if len(positions) != len(dims):
        raise ValueError(f"index: expected one dim per position, got {len(positions)} positions and "
                         f"{len(dims)} dims")
    named = [p for p in positions if is_dim(p)]
    x = order(self, *named) if named else self
    _, levels = levels_of(x)
    n = sum(1 for lv in levels if type(lv) is int)
    orig = n - len(named)
    entries = [slice(None)] * n
    taken = set()
    for p, d in zip(positions, dims):
        if is_dim(p):
            r = index_of(named, p)
        else:
            if not -orig <= p < orig:
                raise IndexError(f"index: position {p} out of range for a tensor with {orig} "
                                 f"positional dimensions")
            r = len(named) + (p + orig if p < 0 else p)
        if r in taken:
            raise ValueError(f"index: position {p} given twice")
        taken.add(r)
        entries[r] = d
    return getitem(x, tuple(entries))
