"""Lowering rules: aten overloads to ``ir.Buffer`` values (``graph.GraphLowering`` walks a graph).

Each call is lowered by the rule registered for
its aten overload (``@register_lowering("aten.mul.Tensor")``): pointwise ops become expression
templates, reductions over trailing dims become ``reduction`` buffers, softmax / log-softmax /
layer norm (and their backward ops) become the pointwise and reduction nodes they are made of (the
scheduler fuses each back into one row kernel), views become NumPy views, matmuls call BLAS. An op
with no rule, or with dtypes the kernels do not cover (anything but float32/float64/bool), runs as
an *extern*: the eager op on the arrays, so every graph runs.

Example:
    >>> import ember
    >>> from ember._functorch.aot_autograd import aot_function
    >>> graphs = []
    >>> f = aot_function(lambda x: (x * 2).relu(), lambda gm, ex: graphs.append(gm) or gm)
    >>> _ = f(ember.randn(3))
    >>> from .graph import GraphLowering
    >>> [b.kind for b in GraphLowering(graphs[0]).run().buffers]
    ['input', 'pointwise', 'pointwise']
"""
from __future__ import annotations

import numpy as np

from .ir import FUSABLE_DTYPES, Buffer, const_str

__all__ = ["register_lowering", "LOWERINGS", "Unsupported"]

LOWERINGS: dict = {}


def register_lowering(*names):
    def deco(fn):
        for n in names:
            LOWERINGS[n] = fn
        return fn
    return deco


class Unsupported(Exception):
    """A lowering rule declines this call (it becomes an extern)."""


# ------------------------------------------------------------------------------ helpers for rules
def _binary(L, a, b, fmt: str, dtype=None, out_dtype=None):
    """``fmt`` over operands a, b (buffers or scalars), computed in ``dtype``."""
    cdt = dtype or L.dtype()
    ins, texts = [], []
    for v in (a, b):
        if isinstance(v, Buffer):
            if v.kind == "const":
                texts.append(const_str(v.value, cdt))
                continue
            texts.append("{%d}" % len(ins))
            ins.append(v)
        else:
            if isinstance(v, bool) and cdt.kind == "f":
                v = float(v)
            texts.append(const_str(v, cdt))
    return L.pointwise(fmt.format(*texts), ins, dtype=out_dtype)


def _compute_dtype(L, *vals) -> np.dtype:
    """The dtype the maths runs in: the node's for arithmetic; the tensors' for comparisons."""
    for v in vals:
        if isinstance(v, Buffer) and v.dtype is not None and v.dtype.kind == "f":
            return v.dtype
    return L.dtype()


# ------------------------------------------------------------------------------ pointwise rules
def _with_alpha(L, a, x, y, sym):
    """``x sym alpha * y`` (add, sub, rsub): alpha folded away when it is 1."""
    al = a.get("alpha", 1)
    fmt = "({} %s {})" % sym if al == 1 else "({} %s %s * {})" % (sym, const_str(al, L.dtype()))
    return _binary(L, x, y, fmt)


@register_lowering("aten.add.Tensor", "aten.add.Scalar")
def _add(L, a):
    return _with_alpha(L, a, a["self"], a["other"], "+")


@register_lowering("aten.sub.Tensor", "aten.sub.Scalar")
def _sub(L, a):
    return _with_alpha(L, a, a["self"], a["other"], "-")


@register_lowering("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(L, a):
    return _with_alpha(L, a, a["other"], a["self"], "-")


@register_lowering("aten.mul.Tensor", "aten.mul.Scalar")
def _mul(L, a):
    return _binary(L, a["self"], a["other"], "({} * {})")


@register_lowering("aten.div.Tensor", "aten.div.Scalar")
def _div(L, a):
    if L.dtype().kind != "f":
        raise Unsupported
    return _binary(L, a["self"], a["other"], "({} / {})")


@register_lowering("aten.maximum.default")
def _maximum(L, a):
    return _binary(L, a["self"], a["other"], "maxnan({}, {})")


@register_lowering("aten.minimum.default")
def _minimum(L, a):
    return _binary(L, a["self"], a["other"], "minnan({}, {})")


def _unary(template, transcendental=False, float_only=True):
    def rule(L, a):
        x = a["self"]
        if not isinstance(x, Buffer) or (float_only and (L.dtype().kind != "f"
                                                         or x.dtype != L.dtype())):
            raise Unsupported
        return L.pointwise(template, [x], transcendental=transcendental)
    return rule


for _name, _tmpl, _tr in [
        ("neg", "(-{0})", False), ("abs", "np.abs({0})", False),
        ("sqrt", "np.sqrt({0})", False),
        ("log", "np.log({0})", True),
        ("sin", "np.sin({0})", True),
        ("cos", "np.cos({0})", True), ("log1p", "np.log1p({0})", True),
        ("expm1", "np.expm1({0})", True)]:
    register_lowering(f"aten.{_name}.default")(_unary(_tmpl, _tr))


def exp_text(dt) -> str:
    """The exp template for ``dt``: float32 has a vectorised Numba helper (``vector_math``)."""
    return "exp_float32({0})" if np.dtype(dt) == np.float32 else "np.exp({0})"


def _unary_vec(name: str):
    """exp / tanh: the float32 helper (fused, SIMD) or the NumPy name for float64."""
    def rule(L, a):
        x = a["self"]
        if not isinstance(x, Buffer) or L.dtype().kind != "f" or x.dtype != L.dtype():
            raise Unsupported
        tmpl = f"{name}_float32({{0}})" if L.dtype() == np.float32 else f"np.{name}({{0}})"
        return L.pointwise(tmpl, [x], transcendental=True)
    return rule


register_lowering("aten.exp.default")(_unary_vec("exp"))
register_lowering("aten.tanh.default")(_unary_vec("tanh"))


def _one(L, tmpl: str) -> str:
    return tmpl.replace("ONE", const_str(1, L.dtype())).replace("ZERO", const_str(0, L.dtype()))


# rsqrt/reciprocal use ONE: re-register with the constant filled in for the node's dtype
def _unary_one(template, transcendental=False):
    def rule(L, a):
        x = a["self"]
        if not isinstance(x, Buffer) or L.dtype().kind != "f" or x.dtype != L.dtype():
            raise Unsupported
        tmpl = _one(L, template).replace("DT", L.dtype().name)
        return L.pointwise(tmpl, [x], transcendental=transcendental)
    return rule


register_lowering("aten.sigmoid.default")(_unary_one("sigmoid_DT({0})", True))
# erf stays fused: float32 as a vectorised helper, float64 via libm (faster here than scipy's)
register_lowering("aten.erf.default")(_unary_one("erf_DT({0})"))


register_lowering("aten.relu.default")(_unary_one("where({0} <= ZERO, ZERO, {0})"))
register_lowering("aten.rsqrt.default")(_unary_one("(ONE / np.sqrt({0}))"))
register_lowering("aten.reciprocal.default")(_unary_one("(ONE / {0})"))


@register_lowering("aten.threshold_backward.default")
def _threshold_backward(L, a):
    g, y, t = a["grad_output"], a["self"], a["threshold"]
    if not isinstance(g, Buffer) or not isinstance(y, Buffer):
        raise Unsupported
    dt = L.dtype()
    return L.pointwise(f"where({{1}} <= {const_str(t, y.dtype)}, {const_str(0, dt)}, {{0}})",
                       [g, y])


@register_lowering("aten.tanh_backward.default")
def _tanh_backward(L, a):
    one = const_str(1, L.dtype())
    return L.pointwise(f"({{0}} * ({one} - {{1}} * {{1}}))", [a["grad_output"], a["output"]])


@register_lowering("aten.sigmoid_backward.default")
def _sigmoid_backward(L, a):
    one = const_str(1, L.dtype())
    return L.pointwise(f"({{0}} * {{1}} * ({one} - {{1}}))", [a["grad_output"], a["output"]])


@register_lowering("aten.where.self")
def _where(L, a):
    c, x, y = a["condition"], a["self"], a["other"]
    if not isinstance(c, Buffer) or c.dtype != np.bool_:
        raise Unsupported
    ins, texts = [c], ["{0}"]
    for v in (x, y):
        if isinstance(v, Buffer):
            if v.dtype != L.dtype():
                raise Unsupported
            texts.append("{%d}" % len(ins))
            ins.append(v)
        else:
            texts.append(const_str(v, L.dtype()))
    return L.pointwise("where(%s, %s, %s)" % tuple(texts), ins)


@register_lowering("aten.masked_fill.Scalar")
def _masked_fill(L, a):
    x, mask, v = a["self"], a["mask"], a["value"]
    if not isinstance(x, Buffer) or not isinstance(mask, Buffer) or mask.dtype != np.bool_ \
            or x.dtype != L.dtype() or isinstance(v, Buffer):
        raise Unsupported
    return L.pointwise(f"where({{0}}, {const_str(v, x.dtype)}, {{1}})", [mask, x])


@register_lowering("aten.pow.Tensor_Scalar")
def _pow(L, a):
    x, e = a["self"], a["exponent"]
    if not isinstance(x, Buffer) or L.dtype().kind != "f" or x.dtype != L.dtype():
        raise Unsupported
    one = const_str(1, L.dtype())
    table = {0: f"({one} + {{0}} * {const_str(0, L.dtype())})", 1: "({0} * {one})".replace(
        "{one}", one), 2: "({0} * {0})", 3: "({0} * {0} * {0})", 0.5: "np.sqrt({0})",
        -1: f"({one} / {{0}})", -2: f"({one} / ({{0}} * {{0}}))"}
    if e in table:
        return L.pointwise(table[e], [x])
    return L.pointwise(f"({{0}} ** {const_str(e, L.dtype())})", [x], transcendental=True)


@register_lowering("aten.clamp.default")
def _clamp(L, a):
    x, lo, hi = a["self"], a["min"], a["max"]
    if not isinstance(x, Buffer) or isinstance(lo, Buffer) or isinstance(hi, Buffer):
        raise Unsupported
    e = "{0}"
    if lo is not None:
        e = f"maxnan({e}, {const_str(lo, L.dtype())})"
    if hi is not None:
        e = f"minnan({e}, {const_str(hi, L.dtype())})"
    return L.pointwise(e, [x])


@register_lowering("aten.clamp_min.default")
def _clamp_min(L, a):
    return _clamp(L, {"self": a["self"], "min": a["min"], "max": None})


@register_lowering("aten.clamp_max.default")
def _clamp_max(L, a):
    return _clamp(L, {"self": a["self"], "min": None, "max": a["max"]})


def _compare(op):
    def rule(L, a):
        x, y = a["self"], a["other"]
        cdt = _compute_dtype(L, x, y)
        if cdt.kind != "f":
            raise Unsupported
        return _binary(L, x, y, "({} %s {})" % op, dtype=cdt)
    return rule


for _name, _op in [("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                   ("ge", ">=")]:
    register_lowering(f"aten.{_name}.Tensor", f"aten.{_name}.Scalar")(_compare(_op))


@register_lowering("aten._to_copy.default")
def _to_copy(L, a):
    x = a["self"]
    if a.get("layout") not in (None,) or a.get("memory_format") not in (None,):
        raise Unsupported
    if x.dtype not in FUSABLE_DTYPES:
        raise Unsupported
    return L.pointwise(f"np.{L.dtype().name}({{0}})" if L.dtype() != np.bool_
                       else "({0} != 0)", [x])


@register_lowering("aten.clone.default")
def _clone(L, a):
    return L.pointwise("{0}", [a["self"]])


# ------------------------------------------------------------------------------ reductions
def _trailing_k(shape, dims) -> int:
    """k when ``dims`` are exactly the last k dims of ``shape`` (else raise Unsupported)."""
    nd = len(shape)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return nd
    if isinstance(dims, int):
        dims = [dims]
    ds = sorted({d % nd for d in dims}) if nd else []
    k = len(ds)
    if ds != list(range(nd - k, nd)):
        raise Unsupported
    return k


_NP_REDUCE = {"sum": "np.add.reduce", "mean": "np.mean", "max": "np.maximum.reduce",
              "min": "np.minimum.reduce"}


def _reduce(op):
    def rule(L, a):
        x = a["self"]
        if not isinstance(x, Buffer) or a.get("dtype") is not None or \
                x.dtype not in FUSABLE_DTYPES[:2]:
            raise Unsupported
        keep = bool(a.get("keepdim", False))
        try:
            k = _trailing_k(x.shape, a.get("dim"))
        except Unsupported:  # leading dims (bias gradients): one NumPy reduction
            nd = len(x.shape)
            dims = a["dim"] if isinstance(a["dim"], (list, tuple)) else [a["dim"]]
            axes = tuple(sorted({d % nd for d in dims}))
            if any(x.shape[d] == 0 for d in axes):
                raise
            return L.extern(None, [x], code=f"{_NP_REDUCE[op]}({{0}}, axis={axes!r}, "
                                            f"keepdims={keep})")
        return L.reduction(op, x, k, keep)
    return rule


register_lowering("aten.sum.dim_IntList", "aten.sum.default")(_reduce("sum"))
register_lowering("aten.mean.dim", "aten.mean.default")(_reduce("mean"))
register_lowering("aten.amax.default")(_reduce("max"))
register_lowering("aten.amin.default")(_reduce("min"))


def _last_dim(x: Buffer, dim) -> None:
    if not isinstance(x, Buffer) or not x.shape or dim % len(x.shape) != len(x.shape) - 1 \
            or x.dtype.kind != "f":
        raise Unsupported


def _shifted_exp_sum(L, a):
    """``(t, e, s)`` of a last-dim (log-)softmax: ``t = x - rowmax``, ``e = exp(t)``, ``s = rowsum(e)``."""
    x = a["self"]
    _last_dim(x, a["dim"])
    if a.get("half_to_float"):
        raise Unsupported
    # NaN-ignoring max: a NaN (or an inf - inf) still reaches every output through the sum
    m = L.reduction("maxnum", x, 1, True)
    t = L.pointwise("({0} - {1})", [x, m])
    e = L.pointwise(exp_text(x.dtype), [t], transcendental=True)
    return t, e, L.reduction("sum", e, 1, True)


@register_lowering("aten._softmax.default")
def _softmax(L, a):
    _, e, s = _shifted_exp_sum(L, a)
    return L.pointwise("({0} / {1})", [e, s])


@register_lowering("aten._log_softmax.default")
def _log_softmax(L, a):
    t, _, s = _shifted_exp_sum(L, a)
    ls = L.pointwise("np.log({0})", [s], shape=s.shape, transcendental=True)
    return L.pointwise("({0} - {1})", [t, ls])


@register_lowering("aten._softmax_backward_data.default")
def _softmax_backward(L, a):
    g, y = a["grad_output"], a["output"]
    _last_dim(y, a["dim"])
    if g.dtype != y.dtype or g.shape != y.shape or y.dtype != L.dtype():
        raise Unsupported
    gy = L.pointwise("({0} * {1})", [g, y])
    s = L.reduction("sum", gy, 1, True)
    return L.pointwise("({0} - {1} * {2})", [gy, y, s])


@register_lowering("aten._log_softmax_backward_data.default")
def _log_softmax_backward(L, a):
    g, y = a["grad_output"], a["output"]
    _last_dim(y, a["dim"])
    if g.dtype != y.dtype or g.shape != y.shape or y.dtype != L.dtype():
        raise Unsupported
    s = L.reduction("sum", g, 1, True)
    e = L.pointwise(exp_text(y.dtype), [y], transcendental=True)
    return L.pointwise("({0} - {1} * {2})", [g, e, s])


@register_lowering("aten.native_layer_norm.default")
def _layer_norm(L, a):
    x, w, b = a["input"], a["weight"], a["bias"]
    k = len(a["normalized_shape"])
    if not isinstance(x, Buffer) or x.dtype.kind != "f" or k == 0:
        raise Unsupported
    for t in (w, b):
        if t is not None and (not isinstance(t, Buffer) or t.dtype != x.dtype):
            raise Unsupported
    dt = x.dtype
    stat_shape = x.shape[:len(x.shape) - k] + (1,) * k
    mean = L.reduction("mean", x, k, True)
    xc = L.pointwise("({0} - {1})", [x, mean], shape=x.shape, dtype=dt)
    sq = L.pointwise("({0} * {0})", [xc], shape=x.shape, dtype=dt)
    var = L.reduction("mean", sq, k, True)
    rstd = L.pointwise(f"({const_str(1, dt)} / np.sqrt({{0}} + {const_str(a['eps'], dt)}))",
                       [var], shape=stat_shape, dtype=dt)
    ins, e = [xc, rstd], "({0} * {1})"
    if w is not None:
        e = f"({e} * {{{len(ins)}}})"
        ins.append(w)
    if b is not None:
        e = f"({e} + {{{len(ins)}}})"
        ins.append(b)
    out = L.pointwise(e, ins, shape=x.shape, dtype=dt)
    return (out, mean, rstd)


# ------------------------------------------------------------------------------ views
@register_lowering("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
def _view(L, a):
    x = a["self"]
    return L.view(f"{{0}}.reshape({tuple(L.shape())!r})", x)


@register_lowering("aten.expand.default")
def _expand(L, a):
    return L.view(f"np.broadcast_to({{0}}, {tuple(L.shape())!r})", a["self"])


@register_lowering("aten.transpose.int")
def _transpose(L, a):
    x = a["self"]
    nd = max(len(x.shape), 1)
    if len(x.shape) == 0:
        return L.view("{0}", x)
    # ndarray methods, not np.swapaxes/np.transpose: those add a Python-level dispatch (~3 us)
    return L.view(f"{{0}}.swapaxes({a['dim0'] % nd}, {a['dim1'] % nd})", x)


@register_lowering("aten.t.default")
def _t(L, a):
    return L.view("{0}.T", a["self"])


@register_lowering("aten.permute.default")
def _permute(L, a):
    x = a["self"]
    nd = len(x.shape)
    dims = tuple(d % nd for d in a["dims"]) if nd else ()
    return L.view(f"{{0}}.transpose({dims!r})", x)


@register_lowering("aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.dims",
                   "aten.squeeze.default", "aten.alias.default", "aten.detach.default")
def _reshape_like(L, a):
    return L.view(f"{{0}}.reshape({tuple(L.shape())!r})", a["self"])


@register_lowering("aten.slice.Tensor")
def _slice(L, a):
    x = a["self"]
    nd = len(x.shape)
    d = a["dim"] % nd
    start, end, step = a["start"], a["end"], a["step"]
    idx = ", ".join([":"] * d + [f"{'' if start is None else start}:"
                                 f"{'' if end is None or end >= 2**62 else end}:{step}"])
    return L.view(f"{{0}}[{idx}]", x)


@register_lowering("aten.select.int")
def _select(L, a):
    x = a["self"]
    d = a["dim"] % len(x.shape)
    idx = ", ".join([":"] * d + [str(int(a["index"]))])
    return L.view(f"{{0}}[{idx}]", x)


# ------------------------------------------------------------------------------ BLAS externs
def _float(x) -> bool:
    return isinstance(x, Buffer) and x.dtype in FUSABLE_DTYPES[:2]


@register_lowering("aten.mm.default", "aten.bmm.default")
def _mm(L, a):
    x, y = a["self"], a["mat2"]
    if not (_float(x) and _float(y)) or x.dtype != y.dtype or len(x.shape) < 2 \
            or len(y.shape) < 2:
        raise Unsupported
    return L.extern(None, [x, y], code="np.matmul({0}, {1})")


@register_lowering("aten.matmul.default")
def _matmul(L, a):
    x, y = a["self"], a["other"]
    if not (_float(x) and _float(y)) or x.dtype != y.dtype or not x.shape or not y.shape:
        raise Unsupported
    return L.extern(None, [x, y], code="np.matmul({0}, {1})")


@register_lowering("aten.addmm.default")
def _addmm(L, a):
    bias, x, y = a["self"], a["mat1"], a["mat2"]
    if not (_float(x) and _float(y) and _float(bias)) or len({x.dtype, y.dtype, bias.dtype}) != 1:
        raise Unsupported
    mm = L.extern(None, [x, y], code="np.matmul({0}, {1})")
    beta, alpha = a["beta"], a["alpha"]
    dt = L.dtype()
    e = "{0}" if alpha == 1 else f"({const_str(alpha, dt)} * {{0}})"
    if beta != 0:
        e = f"({e} + {{1}})" if beta == 1 else f"({e} + {const_str(beta, dt)} * {{1}})"
        return L.pointwise(e, [mm, bias])
    return L.pointwise(e, [mm])
