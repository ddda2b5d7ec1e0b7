"""First-class dimensions: ``Dim``, ``DimList``, the first-class ``Tensor`` and their levels.

A first-class tensor is a plain ember tensor plus its *levels*: one entry per axis of that tensor, a
``Dim`` for an axis bound to a first-class dimension, or a negative int ``-n..-1`` for the n
positional axes (in order). Ops align the levels of their operands and call ordinary ember ops on
the plain tensors (``_ops.py``, which also gives these classes their ``__torch_function__``,
operators and Tensor's other methods), so autograd, dtypes and errors are ember's own.

Example:
    >>> import ember
    >>> from ember.functorch.dim import dims
    >>> i, j = dims()
    >>> x = ember.arange(6.).reshape(2, 3)[i, j]
    >>> (x + j).order(i, j)
    tensor([[0., 2., 4.],
            [3., 5., 7.]])
"""
from __future__ import annotations

from ... import _creation

__all__ = ["DimensionBindError", "DimensionMismatchError", "Dim", "DimList", "Tensor", "levels_of",
           "wrap", "align", "is_dim", "order", "index_of"]


class DimensionMismatchError(Exception):
    """Operands' first-class dimensions disagree."""


class DimensionBindError(Exception):
    """A dimension (or dim list) cannot take the size (length) it is bound to."""


def is_dim(x) -> bool:
    return type(x) is Dim


def index_of(levels, d) -> int:
    """Position of ``d`` in ``levels`` by identity (``==`` on dims builds a tensor), or -1."""
    for k, lv in enumerate(levels):
        if lv is d:
            return k
    return -1


class _Tensor:
    """What ``Dim`` and first-class ``Tensor`` share: tensor-like behaviour over ``_tensor``/``_levels``
    (``_ops`` adds ``__torch_function__``, the operators and ``__getattr__`` for Tensor's methods)."""

    __slots__ = ()
    __hash__ = object.__hash__

    @property
    def dims(self) -> tuple:
        """The first-class dimensions, in the order of the underlying tensor's axes."""
        return tuple(lv for lv in self._levels if type(lv) is not int)

    @property
    def ndim(self) -> int:
        """The number of positional dimensions."""
        return sum(1 for lv in self._levels if type(lv) is int)

    def dim(self) -> int:
        return self.ndim

    @property
    def shape(self) -> tuple:
        """The sizes of the positional dimensions."""
        t = self._tensor
        return tuple(s for s, lv in zip(t.shape, self._levels) if type(lv) is int)

    def size(self, dim=None):
        shape = self.shape
        return shape if dim is None else shape[dim]

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def dtype(self):
        return self._tensor.dtype

    @property
    def device(self):
        return self._tensor.device

    @property
    def requires_grad(self) -> bool:
        return self._tensor.requires_grad

    def order(self, *dims):
        """Turn first-class dims (or positional indices, or tuples of them: flattened into one
        axis) into leading positional dimensions, in the given order."""
        return order(self, *dims)

    def __len__(self):
        if not self.ndim:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __bool__(self):
        raise RuntimeError(f"Boolean value of a tensor with first-class dimensions {self.dims} is "
                           f"ambiguous (it would differ across their indices)")

    def __repr__(self):
        n = self.ndim
        shown = tuple(lv + n if type(lv) is int else lv for lv in self._levels)
        return f"{self._tensor!r}\nwith dims={shown} sizes={tuple(self._tensor.shape)}"



class Tensor(_Tensor):
    """A tensor with first-class dimensions: ``_tensor`` (a plain tensor) and its ``_levels``.

    ``ndim``/``shape`` describe the positional dimensions only; ``dims`` lists the first-class ones.
    """

    __slots__ = ("_tensor", "_levels")

    def __init__(self, tensor, levels):
        self._tensor = tensor
        self._levels = tuple(levels)


class Dim(_Tensor):
    """A first-class dimension: a name and a size, bound on first use (or set directly).

    Used as a tensor it is ``arange(size)`` along itself (int64, no positional dimension).

    Example:
        >>> from ember.functorch.dim import Dim
        >>> d = Dim("d", 3)
        >>> d.size, d.is_bound, (d * 2).order(d)
        (3, True, tensor([0, 2, 4]))
    """

    __slots__ = ("_name", "_size", "_range")

    def __init__(self, name: str, size: int | None = None):
        self._name = name
        self._size = None
        self._range = None
        if size is not None:
            self.size = size

    @property
    def size(self) -> int:
        if self._size is None:
            raise ValueError(f"dimension {self._name} is unbound")
        return self._size

    @size.setter
    def size(self, size) -> None:
        if isinstance(size, bool) or not hasattr(size, "__index__"):
            raise TypeError(f"Dim '{self._name}': size must be an int, got {type(size).__name__}")
        size = size.__index__()
        if self._size is None:
            if size < 0:
                raise DimensionBindError(f"Dim '{self._name}' cannot bind to a negative size {size}")
            self._size = size
        elif self._size != size:
            raise DimensionBindError(f"Dim '{self._name}' previously bound to a dimension of size "
                                     f"{self._size} cannot bind to a dimension of size {size}")

    @property
    def is_bound(self) -> bool:
        return self._size is not None

    @property
    def _tensor(self):
        if self._range is None:
            self._range = _creation.arange(self.size)
        return self._range

    @property
    def _levels(self) -> tuple:
        return (self,)

    def __repr__(self):
        return self._name

    __str__ = __repr__


class DimList:
    """A list of first-class dimensions whose length is bound on first use (``dimlists()``).

    Example:
        >>> import ember
        >>> from ember.functorch.dim import dimlists, dims
        >>> batch = dimlists(1)
        >>> c = dims(1)
        >>> x = ember.zeros(2, 3, 4)[batch, c]
        >>> len(batch), x.dims
        (2, (batch0, batch1, c))
    """

    def __init__(self, len_or_dims=None, name: str | None = None):
        self._name = name
        self._dims = None
        if isinstance(len_or_dims, int):
            self.bind_len(len_or_dims)
        elif len_or_dims is not None:
            self._dims = list(len_or_dims)

    @property
    def is_bound(self) -> bool:
        return self._dims is not None

    def bind_len(self, size: int) -> None:
        """Bind the list's length: ``size`` new dims named ``<name>0, <name>1...``."""
        if self._dims is None:
            base = self._name or "d"
            self._dims = [Dim(f"{base}{k}") for k in range(size)]
        elif len(self._dims) != size:
            raise DimensionBindError(f"Dimlist has size {len(self._dims)} but it is being bound to "
                                     f"size {size}")

    def bind(self, sizes) -> None:
        """Bind the length and each dim's size."""
        sizes = list(sizes)
        self.bind_len(len(sizes))
        for d, s in zip(self._dims, sizes):
            d.size = s

    def _bound(self) -> list:
        if self._dims is None:
            raise DimensionBindError("DimList not bound")
        return self._dims

    def __len__(self):
        return len(self._bound())

    def __getitem__(self, k):
        return self._bound()[k]

    def __iter__(self):
        return iter(self._bound())

    def __repr__(self):
        if self._dims is None:
            return f"*{self._name}" if self._name else "<unbound_dimlist>"
        return repr(tuple(self._dims))


# ------------------------------------------------------------------ levels: wrap, align, order
def levels_of(x):
    """``(plain tensor, levels)`` of a first-class tensor, a Dim or a plain tensor."""
    if isinstance(x, _Tensor):
        return x._tensor, x._levels
    n = x.dim()
    return x, tuple(range(-n, 0))


def wrap(tensor, levels):
    """A first-class ``Tensor`` over ``tensor``; positional entries of ``levels`` (any ints) are
    renumbered ``-n..-1`` in order; with no first-class dim left, the plain tensor itself."""
    levels = list(levels)
    pos = [k for k, lv in enumerate(levels) if type(lv) is int]
    if len(pos) == len(levels):
        return tensor
    for rank, k in enumerate(pos):
        levels[k] = rank - len(pos)
    return Tensor(tensor, levels)


def _npos(levels) -> int:
    return sum(1 for lv in levels if type(lv) is int)


def align(x, dims: list, npos: int):
    """``x``'s plain tensor laid out as ``dims`` (size 1 where ``x`` lacks one) followed by ``npos``
    positional axes (size-1 axes in front of its own): ready to broadcast with others."""
    t, levels = levels_of(x)
    perm, shape = [], []
    for d in dims:
        k = index_of(levels, d)
        if k >= 0:
            perm.append(k)
            shape.append(t.shape[k])
        else:
            shape.append(1)
    own = [k for k, lv in enumerate(levels) if type(lv) is int]
    if len(perm) + len(own) != len(levels):
        missing = [lv for lv in levels if type(lv) is not int and index_of(dims, lv) < 0]
        raise DimensionMismatchError(f"tensor has dims {missing} that are not in {dims}")
    if len(own) > npos:
        raise DimensionMismatchError(f"tensor has {len(own)} positional dims, more than {npos}")
    perm += own
    shape += [1] * (npos - len(own)) + [t.shape[k] for k in own]
    if perm != list(range(len(perm))):
        t = t.permute(perm)
    if len(shape) != t.dim():
        t = t.reshape(shape)
    return t


def _union(objs) -> list:
    dims = []
    for o in objs:
        for lv in o._levels:
            if type(lv) is not int and index_of(dims, lv) < 0:
                dims.append(lv)
    return dims


def _pos_axes(levels) -> list:
    return [k for k, lv in enumerate(levels) if type(lv) is int]


def order(x, *specs):
    """``x.order(*specs)``: the named dims (Dim, positional int, a tuple/list of them flattened
    into one axis, a DimList) become the leading positional dimensions, in order."""
    t, levels = levels_of(x)
    pos = _pos_axes(levels)
    groups, used = [], set()

    def axis(spec) -> int:
        if type(spec) is Dim:
            k = index_of(levels, spec)
        elif isinstance(spec, int) and not isinstance(spec, bool):
            n = len(pos)
            if not -n <= spec < n:
                raise IndexError(f"order: positional dimension {spec} out of range for a tensor "
                                 f"with {n} positional dimensions")
            k = pos[spec]
        else:
            raise TypeError(f"order: expected a Dim, an int or a tuple of them, got {type(spec).__name__}")
        if k < 0 or k in used:
            raise ValueError(f"tensor does not contain dim {spec} or it was specified twice")
        used.add(k)
        return k

    for spec in specs:
        if isinstance(spec, DimList):
            groups.extend([axis(d)] for d in spec)
        elif isinstance(spec, (tuple, list)):
            flat = []
            for s in spec:
                flat.extend(s if isinstance(s, DimList) else [s])
            groups.append([axis(s) for s in flat])
        else:
            groups.append([axis(spec)])
    rest = [k for k in range(len(levels)) if k not in used]
    perm = [k for g in groups for k in g] + rest
    if perm != list(range(len(perm))):
        t = t.permute(perm)
    base = levels_of(x)[0].shape
    shape = []
    for g in groups:
        n = 1
        for k in g:
            n *= base[k]
        shape.append(n)
    if any(len(g) != 1 for g in groups):
        t = t.reshape(shape + [base[k] for k in rest])
    new_levels = [0] * len(groups) + [1 if type(levels[k]) is int else levels[k] for k in rest]
    return wrap(t, new_levels)
