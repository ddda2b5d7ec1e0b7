"""How ops run on first-class tensors, and the op-running half of ``_Tensor`` (its
``__torch_function__``, operators and Tensor's other methods), installed on the classes here.

- pointwise ops align every operand's levels (dims by identity, positional dims right-aligned) and
  broadcast (rule 1); ``a * b`` stays lazy so that a following ``.sum(dims)`` is one einsum;
- a ``Dim`` where an op takes ``dim`` names that dimension (rule 2): it moves behind the positional
  axes, the first-class dims not named go in front, and the op runs once;
- matmul-like, shape ops and ``linear``/``layer_norm``/``embedding`` take the dims as leading batch
  axes;
- any other op runs on the positional slices for every index of the dims, and the results are
  stacked (the loop the semantics describe: correct for every op, slow for big dims).

Example:
    >>> import ember
    >>> from ember.functorch.dim import dims
    >>> b, f = dims()
    >>> x = ember.arange(6.).reshape(2, 3)
    >>> (x[b, f] - x[b, f].mean(f)).order(b, f)
    tensor([[-1.,  0.,  1.],
            [-1.,  0.,  1.]])
"""
from __future__ import annotations

import functools
import inspect
import itertools

from ..._primitives._registry import REGISTRY
from ..._tensor import Tensor as _Plain
from ..._tensor_methods.linalg import einsum
from ..._tensor_methods.shape_copy import stack
from ._first_class import (Dim, DimList, Tensor, _Tensor, _npos, _pos_axes, _union, align, index_of,
                           is_dim, levels_of, order, wrap)

__all__ = ["call"]


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


def _getattr(self, name):
    """The rest of Tensor's methods and properties, batched over the first-class dims."""
    if name.startswith("_"):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    attr = getattr(_Plain, name, None)
    if attr is None:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    if isinstance(attr, property):
        return call(_property_getter(name), (self,), {})
    return functools.partial(_method, attr, self)


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
_REDUCE_ALL = {"sum", "mean", "nansum", "amax", "amin", "logsumexp", "std", "var"}
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
def _params(func) -> tuple:
    try:
        return tuple(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return ()


def _dim_param(func):
    """Position of ``func``'s ``dim`` parameter, or None."""
    names = _params(func)
    return names.index("dim") if "dim" in names else None


def _keepdim(func, args, kwargs) -> bool:
    names = _params(func)
    if "keepdim" in kwargs:
        return kwargs["keepdim"] is True
    k = names.index("keepdim") if "keepdim" in names else None
    return k is not None and len(args) > k and args[k] is True


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
        rest = args[1:k] + args[k + 1:]  # the arguments besides input and dim
        others = []
        _flat_fc(rest, others)
        _flat_fc(tuple(v for key, v in kwargs.items() if key != "dim"), others)
        plain_tensors = any(isinstance(a, _Plain) for a in rest)
        if _has_dims(spec) and (others or plain_tensors):
            return _dim_op_several(func, args, kwargs, k, spec)
        if _has_dims(spec) or (spec is not None and not others and not plain_tensors):
            return _dim_op(func, args, kwargs, k, spec)
        if spec is None and name in _REDUCE_ALL and args[0].ndim and not others and not plain_tensors:
            # no dim: every positional dim (the first-class ones stay), in one call
            return _dim_op(func, args, kwargs, k, tuple(range(args[0].ndim)))
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
    if named and _keepdim(func, args, kwargs):
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
    if "dim" in kwargs or len(args) <= k:
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


def _dim_op_several(func, args, kwargs, k, spec):
    """A Dim as ``dim`` with several tensor arguments (``cosine_similarity(a, b, dim=i)``): the
    named dims become leading positional dims of every first-class argument, the op runs batched
    over the other dims, and named dims it keeps are bound again."""
    named = [d for d in _spec_entries(spec) if is_dim(d)]
    m = len(named)

    def move(a):
        if isinstance(a, _Plain):
            raise ValueError(f"{getattr(func, '__name__', func)}: a plain tensor argument has no "
                             f"first-class dims {named}")
        return order(a, *named) if isinstance(a, _Tensor) else a
    n = args[0].ndim
    new = tuple(index_of(named, e) if is_dim(e) else (e + m if e >= 0 else e) for e in _spec_entries(spec))
    new_spec = new if type(spec) in (tuple, list) or isinstance(spec, DimList) else new[0]
    args = [_tree_map(move, a) for a in args]
    kwargs = {key: _tree_map(move, v) for key, v in kwargs.items()}
    if "dim" in kwargs or len(args) <= k:
        kwargs["dim"] = new_spec
    else:
        args[k] = new_spec
    out = call(func, tuple(args), kwargs)

    def rebind(r):
        if isinstance(r, (_Tensor, _Plain)) and r.dim() == n + m:
            return r.index(tuple(range(m)), tuple(named))
        return r
    return _tree_map(rebind, out)


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


def _torch_function(cls, func, types, args=(), kwargs=None):
    return call(func, args, kwargs or {})


def _install() -> None:
    _Tensor.__torch_function__ = classmethod(_torch_function)
    DimList.__torch_function__ = classmethod(_torch_function)  # ``t[dimlist, ...]`` reaches getitem
    _Tensor.__getattr__ = _getattr
    for n in _BINARY:
        for name in (f"__{n}__", f"__r{n}__"):
            if hasattr(_Plain, name):
                setattr(_Tensor, name, _dunder(name))
    for name in ("__matmul__", "__rmatmul__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
                 "__neg__", "__pos__", "__abs__", "__invert__"):
        setattr(_Tensor, name, _dunder(name))


_install()
