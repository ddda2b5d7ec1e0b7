"""First-class dimensions: ``Dim``, ``DimList``, the first-class ``Tensor`` and how ops run on them.

A first-class tensor is a plain ember tensor plus its *levels*: one entry per axis of that tensor, a
``Dim`` for an axis bound to a first-class dimension, or a negative int ``-n..-1`` for the n
positional axes (in order). Every op aligns the levels of its operands (permute, reshape with
size-1 axes, expand) and calls the ordinary ember op on plain tensors, so autograd, dtypes and
errors are ember's own:

- pointwise ops broadcast by dim identity (rule 1);
- a ``Dim`` passed where an op takes ``dim`` (``x.sum(i)``, ``softmax(x, dim=i)``) names that
  dimension (rule 2): it is moved behind the positional axes and the op runs over it;
- a ``Dim`` used as a tensor is ``arange(size)`` along itself (rule 3);
- matmul-like ops batch over the dims; any other op runs once per combination of the dims'
  indices and the results are stacked (the loop the semantics describe).

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

import functools
import inspect
import itertools

from ... import _creation
from ..._tensor import Tensor as _Plain
from ..._primitives._registry import REGISTRY
from ..._tensor_methods.linalg import einsum
from ..._tensor_methods.shape_copy import stack

__all__ = ["DimensionBindError", "DimensionMismatchError", "Dim", "DimList", "Tensor", "levels_of",
           "wrap", "align", "is_dim", "order", "call", "index_of"]


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
    """What ``Dim`` and first-class ``Tensor`` share: tensor-like behaviour over ``_tensor``/``_levels``."""

    __slots__ = ()
    __hash__ = object.__hash__

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return call(func, args, kwargs or {})

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

    def __getattr__(self, name):
        # the rest of Tensor's methods and properties, batched over the first-class dims
        if name.startswith("_"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        attr = getattr(_Plain, name, None)
        if attr is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if isinstance(attr, property):
            return call(_property_getter(name), (self,), {})
        return functools.partial(_method, attr, self)

    def __repr__(self):
        n = self.ndim
        shown = tuple(lv + n if type(lv) is int else lv for lv in self._levels)
        return f"{self._tensor!r}\nwith dims={shown} sizes={tuple(self._tensor.shape)}"


def _method(fn, self, *args, **kwargs):
    return call(fn, (self,) + args, kwargs)


@functools.lru_cache(maxsize=None)
def _property_getter(name):
    def get(t):
        return getattr(t, name)
    get.__name__ = name
    return get


def _dunder(name):
    fn = getattr(_Plain, name)

    def op(self, *args):
        return call(fn, (self,) + args, {})
    op.__name__ = name
    return op


_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor", "lshift",
           "rshift")
for _n in _BINARY:
    for _name in (f"__{_n}__", f"__r{_n}__"):
        if hasattr(_Plain, _name):
            setattr(_Tensor, _name, _dunder(_name))
for _name in ("__matmul__", "__rmatmul__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
              "__neg__", "__pos__", "__abs__", "__invert__"):
    setattr(_Tensor, _name, _dunder(_name))


class Tensor(_Tensor):
    """A tensor with first-class dimensions: ``_tensor`` (a plain tensor) and its ``_levels``.

    ``ndim``/``shape`` describe the positional dimensions only; ``dims`` lists the first-class ones.
    """

    __slots__ = ("_tensor", "_levels")

    def __init__(self, tensor, levels):
        self._tensor = tensor
        self._levels = tuple(levels)


class _Product(Tensor):
    """``a * b`` over first-class dims, kept as its two factors until its value is needed: a
    following ``.sum(dims)`` is one ``einsum`` contraction (a matmul, never the product tensor)."""

    __slots__ = ("_factors", "_func", "_value")

    def __init__(self, func, a, b, levels):
        self._func, self._factors, self._levels, self._value = func, (a, b), tuple(levels), None

    @property
    def _tensor(self):
        if self._value is None:
            dims = [lv for lv in self._levels if type(lv) is not int]
            npos = len(self._levels) - len(dims)
            self._value = self._func(*(align(f, dims, npos) if isinstance(f, _Tensor) else f
                                       for f in self._factors))
        return self._value


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

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return call(func, args, kwargs or {})  # so that ``t[dimlist, ...]`` reaches the dims' getitem

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


# ------------------------------------------------------------------ running ops
_POINTWISE = {n for n, op in REGISTRY.items() if op.kind == "pointwise"} | {
    f"__{n}__" for n in _BINARY} | {f"__r{n}__" for n in _BINARY} | {
    "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__neg__", "__pos__", "__abs__",
    "__invert__", "true_divide", "divide", "multiply", "subtract", "negative", "floor_divide", "square",
    "clip", "gelu", "silu", "mish", "elu", "selu", "celu", "leaky_relu", "relu6", "hardsigmoid",
    "softsign", "tanhshrink", "logsigmoid", "dropout", "alpha_dropout", "float", "double", "half",
    "bfloat16", "long", "int", "short", "bool", "byte", "char", "to", "type", "type_as", "detach",
    "clone", "contiguous", "masked_fill", "real", "imag", "conj", "positive", "absolute", "fix",
    "arccos", "arcsin", "arctan", "arctan2", "float_power", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "isclose", "sigmoid", "exp", "log", "rsub", "erf", "sqrt"}
_MATMUL = {"matmul", "__matmul__", "__rmatmul__", "mm", "mv", "dot", "bmm", "inner", "vdot"}


def _flat_fc(obj, out: list) -> None:
    if isinstance(obj, _Tensor):
        out.append(obj)
    elif type(obj) in (list, tuple):
        for o in obj:
            _flat_fc(o, out)


def _tree_map(fn, obj):
    if isinstance(obj, _Tensor) or isinstance(obj, _Plain):
        return fn(obj)
    if type(obj) in (list, tuple):
        return type(obj)(_tree_map(fn, o) for o in obj)
    if isinstance(obj, tuple):
        return _rebuild(obj, [_tree_map(fn, o) for o in obj])
    return obj


def _rebuild(like: tuple, items: list):
    """A tuple of ``like``'s type (torch.return_types take one sequence, namedtuples fields)."""
    try:
        return type(like)(items)
    except TypeError:
        return type(like)(*items)


@functools.lru_cache(maxsize=None)
def _dim_param(func):
    """Position of ``func``'s ``dim`` parameter, or None."""
    try:
        names = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return None
    return names.index("dim") if "dim" in names else None


def _has_dims(spec) -> bool:
    if type(spec) is Dim or isinstance(spec, DimList):
        return True
    return type(spec) in (tuple, list) and any(type(s) is Dim or isinstance(s, DimList) for s in spec)


def call(func, args, kwargs):
    """Run ``func`` (a torch-style function or Tensor method) on arguments holding first-class tensors."""
    if func is _Plain.__getitem__:  # a plain tensor indexed with dims: the getitem attached in __init__
        return _Tensor.__getitem__(*args)
    name = getattr(func, "__name__", "")
    if type(args[0] if args else None) is _Product and name == "sum" and len(args) <= 2 \
            and set(kwargs) <= {"dim"}:
        spec = kwargs["dim"] if kwargs else args[1] if len(args) == 2 else None
        if spec is not None and all(is_dim(d) for d in _spec_entries(spec)):
            return _contract(args[0], spec)
    k = _dim_param(func)
    if k is not None and args and isinstance(args[0], _Tensor):
        spec = kwargs["dim"] if "dim" in kwargs else args[k] if len(args) > k else None
        others = []
        _flat_fc(args[1:], others)
        _flat_fc(tuple(v for key, v in kwargs.items() if key != "dim"), others)
        plain_tensors = any(isinstance(a, _Plain) for a in args[1:])
        if _has_dims(spec) or (spec is not None and not others and not plain_tensors):
            return _dim_op(func, args, kwargs, k, spec)
    if name in _POINTWISE:
        return _pointwise(func, args, kwargs)
    if name in _LEADING and args and isinstance(args[0], _Tensor):
        rest = []
        _flat_fc((args[1:], tuple(kwargs.values())), rest)
        if not rest:
            return _leading(name, func, args, kwargs)
    if name in _MATMUL and not kwargs:
        return _matmul(name, func, args)
    return _loop(func, args, kwargs)


_MUL = {"mul", "__mul__", "__rmul__", "multiply"}


def _lazy_product(func, args, dims, npos):
    """A ``_Product`` when ``args`` are two same-dtype floating tensors whose positional shapes
    need no broadcasting (einsum's subscripts cannot express it), else None."""
    a, b = args
    if not (isinstance(a, (_Tensor, _Plain)) and isinstance(b, (_Tensor, _Plain))):
        return None
    if a.dtype != b.dtype or not a.dtype.is_floating_point:
        return None
    sa, sb = tuple(a.shape), tuple(b.shape)
    if sa and sb and sa != sb:
        return None
    return _Product(func, a, b, dims + [0] * npos)


def _contract(prod, spec):
    """``prod.sum(spec)`` for a lazy product and a spec of first-class dims: one einsum."""
    named = _spec_entries(spec)
    for d in named:
        if index_of(prod._levels, d) < 0:
            raise ValueError(f"Tensor with dimensions {[str(lv) for lv in prod._levels]} does not "
                             f"contain {d}")
    letters, npos = {}, _npos(prod._levels)
    for lv in prod._levels:
        if type(lv) is not int:
            letters[id(lv)] = chr(ord("a") + len(letters))
    pos_letters = [chr(ord("A") + k) for k in range(npos)]

    def subscripts(f):
        _, levels = levels_of(f)
        return "".join(letters[id(lv)] if type(lv) is not int else pos_letters[npos + lv]
                       for lv in levels)
    a, b = prod._factors
    keep = [lv for lv in prod._levels if type(lv) is not int and index_of(named, lv) < 0]
    out = "".join(letters[id(d)] for d in keep) + "".join(pos_letters)
    r = einsum(f"{subscripts(a)},{subscripts(b)}->{out}", levels_of(a)[0], levels_of(b)[0])
    return wrap(r, keep + [0] * npos)


def _pointwise(func, args, kwargs):
    fcs = []
    _flat_fc(args, fcs)
    _flat_fc(tuple(kwargs.values()), fcs)
    dims = _union(fcs)
    npos = max([_npos(f._levels) for f in fcs] +
               [a.dim() for a in itertools.chain(args, kwargs.values()) if isinstance(a, _Plain)])

    if getattr(func, "__name__", "") in _MUL and len(args) == 2 and not kwargs:
        prod = _lazy_product(func, args, dims, npos)
        if prod is not None:
            return prod

    def sub(a):
        return align(a, dims, npos) if isinstance(a, _Tensor) else a
    out = func(*(sub(a) for a in args), **{key: sub(v) for key, v in kwargs.items()})
    return _tree_map(lambda r: wrap(r, dims + [0] * (r.dim() - len(dims))), out)


def _spec_entries(spec) -> list:
    if type(spec) in (tuple, list):
        out = []
        for s in spec:
            out.extend(s if isinstance(s, DimList) else [s])
        return out
    return list(spec) if isinstance(spec, DimList) else [spec]


def _dim_op(func, args, kwargs, k, spec):
    x = args[0]
    t, levels = levels_of(x)
    entries = _spec_entries(spec)
    named = [d for d in entries if type(d) is Dim]
    for d in named:
        if index_of(levels, d) < 0:
            shown = [str(lv) for lv in levels]
            raise ValueError(f"Tensor with dimensions {shown} does not contain {d}")
    if named and kwargs.get("keepdim", len(args) > k + 1 and args[k + 1] is True) is True:
        raise ValueError("cannot preserve first-class dimensions with keepdim=True")
    batch = [lv for lv in levels if type(lv) is not int and index_of(named, lv) < 0]
    n = _npos(levels)
    B = len(batch)
    t = align(x, batch + named, n) if not named else _batch_pos_named(t, levels, batch, named)
    new = []
    for e in entries:
        if type(e) is Dim:
            new.append(B + n + index_of(named, e))
        elif named:
            if not -n <= e < n:
                raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                                 f"but got {e})")
            new.append(B + (e + n if e < 0 else e))
        else:
            new.append(B + e if e >= 0 else e)
    new_spec = tuple(new) if type(spec) in (tuple, list) or isinstance(spec, DimList) else new[0]
    args = list(args)
    args[0] = t
    if "dim" in kwargs:
        kwargs = dict(kwargs, dim=new_spec)
    else:
        args[k] = new_spec
    out = func(*args, **kwargs)

    def relabel(r):
        kept = r.dim() - B
        if named and kept == n + len(named):
            return wrap(r, batch + [0] * n + named)
        return wrap(r, batch + [0] * kept)
    return _tree_map(relabel, out)


def _batch_pos_named(t, levels, batch, named):
    perm = [index_of(levels, d) for d in batch] + _pos_axes(levels) + [index_of(levels, d) for d in named]
    return t.permute(perm) if perm != list(range(len(perm))) else t


def _sizes(args) -> list:
    return list(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else list(args)


def _shift(d, B):
    return d + B if d >= 0 else d


def _flatten(t, B, n, args, kw):
    start = args[0] if args else kw.get("start_dim", 0)
    end = args[1] if len(args) > 1 else kw.get("end_dim", -1)
    return t.flatten(_shift(start, B), _shift(end, B)) if n else t.reshape(list(t.shape) + [1])


# ops that treat leading axes as a batch once their int dims are shifted past the first-class dims:
# (plain tensor laid out dims-first, number of dims, positional count, other args, kwargs) -> result
_SHAPE_OPS = {
    "reshape": lambda t, B, n, a, kw: t.reshape(list(t.shape[:B]) + _sizes(a)),
    "view": lambda t, B, n, a, kw: t.view(list(t.shape[:B]) + _sizes(a)),
    "transpose": lambda t, B, n, a, kw: t.transpose(_shift(a[0], B), _shift(a[1], B)),
    "swapaxes": lambda t, B, n, a, kw: t.transpose(_shift(a[0], B), _shift(a[1], B)),
    "permute": lambda t, B, n, a, kw: t.permute(list(range(B)) + [B + d % n for d in _sizes(a)]),
    "t": lambda t, B, n, a, kw: t.transpose(-2, -1) if n == 2 else t,
    "T": lambda t, B, n, a, kw: t.permute(list(range(B)) + list(range(B + n - 1, B - 1, -1))),
    "mT": lambda t, B, n, a, kw: t.transpose(-2, -1),
    "flatten": _flatten,
}
_BATCH_FIRST = {"linear", "layer_norm", "embedding"}  # their other arguments are plain tensors
_LEADING = set(_SHAPE_OPS) | _BATCH_FIRST | {"expand"}


def _leading(name, func, args, kwargs):
    x = args[0]
    dims = [lv for lv in x._levels if type(lv) is not int]
    n = x.ndim
    if n < 2 and name in ("transpose", "swapaxes", "mT") or n == 0 and name in ("permute", "flatten"):
        return _loop(func, args, kwargs)  # the op's own handling of 0-d/1-d inputs
    if name == "expand":
        sizes = _sizes(args[1:])
        r = align(x, dims, len(sizes)).expand([d.size for d in dims] + sizes)
    elif name in _BATCH_FIRST:
        r = func(align(x, dims, n), *args[1:], **kwargs)
    else:
        r = _SHAPE_OPS[name](align(x, dims, n), len(dims), n, args[1:], kwargs)
    return wrap(r, dims + [0] * (r.dim() - len(dims)))


def _matmul(name, func, args):
    a, b = args[0], args[1]
    if name == "__rmatmul__":
        a, b = b, a
    na = a.ndim if isinstance(a, _Tensor) else a.dim()
    nb = b.ndim if isinstance(b, _Tensor) else b.dim()
    ok = {"mm": (2, 2), "mv": (2, 1), "dot": (1, 1), "bmm": (3, 3), "vdot": (1, 1)}.get(name)
    if (ok is not None and (na, nb) != ok) or na == 0 or nb == 0 or name == "inner" \
            or (name == "vdot" and a.dtype.is_complex):
        return _loop(func, args, {})
    fcs = [o for o in (a, b) if isinstance(o, _Tensor)]
    dims = _union(fcs)
    npos = max(na, nb, 2)
    ta = align(a, dims, max(na, 2) if na >= 2 else 1)
    tb = align(b, dims, max(nb, 2) if nb >= 2 else 1)
    if na == 1:
        ta = ta.unsqueeze(-2)
    if nb == 1:
        tb = tb.unsqueeze(-1)
    ta = ta.reshape(list(ta.shape[:len(dims)]) + [1] * (npos - ta.dim() + len(dims)) + list(ta.shape[len(dims):]))
    tb = tb.reshape(list(tb.shape[:len(dims)]) + [1] * (npos - tb.dim() + len(dims)) + list(tb.shape[len(dims):]))
    r = ta @ tb
    if nb == 1:
        r = r.squeeze(-1)
    if na == 1:
        r = r.squeeze(-1 if nb == 1 else -2)
    keep = npos - 2 + (na >= 2) + (nb >= 2)
    return wrap(r, dims + [0] * keep)


def _loop(func, args, kwargs):
    """Any other op: run it on the positional slices for every index of the dims, then stack."""
    fcs = []
    _flat_fc(args, fcs)
    _flat_fc(tuple(kwargs.values()), fcs)
    dims = _union(fcs)
    sizes = [d.size for d in dims]
    if 0 in sizes:
        raise RuntimeError(f"{getattr(func, '__name__', func)}: cannot run on first-class dims of "
                           f"size 0 {dims}")

    def slicer(idx):
        def sl(a):
            if not isinstance(a, _Tensor):
                return a
            t, levels = a._tensor, a._levels
            index = tuple(idx[index_of(dims, lv)] if type(lv) is not int else slice(None) for lv in levels)
            return t[index]
        return sl

    outs = []
    for idx in itertools.product(*(range(s) for s in sizes)):
        sl = slicer(idx)
        outs.append(func(*_tree_map(sl, list(args)), **{key: _tree_map(sl, v) for key, v in kwargs.items()}))
    return _stack_results(outs, dims, sizes, getattr(func, "__name__", "op"))


def _stack_results(outs, dims, sizes, name):
    first = outs[0]
    if isinstance(first, _Plain):
        r = stack(outs, 0).reshape(sizes + list(first.shape))
        return wrap(r, dims + [0] * first.dim())
    if isinstance(first, tuple):
        parts = [_stack_results([o[k] for o in outs], dims, sizes, name) for k in range(len(first))]
        return _rebuild(first, parts)
    if all(o == first for o in outs):
        return first
    raise RuntimeError(f"{name}: the result is not a tensor and differs across the first-class "
                       f"dims {dims}")
