"""``ember.ops.aten``: built once from ``_aten_table.TABLE``, plus the primitive -> aten lookup.

Each table line gives a schema and a target; a generic rule adapts the schema's arguments to the
target (see ``_aten_table``), so no overload has a hand-written wrapper except the few in
``_aten_adapters``. The reverse direction, for graphs recorded at the primitive level (make_fx, AOT
autograd): ``aten_overloads(opdef)`` lists the overloads that stand for a primitive and
``to_aten_call(opdef, args, params)`` rewrites one primitive call as an overload call.

Example:
    >>> import ember
    >>> from ember._primitives import REGISTRY
    >>> params = {"dim": (1,), "keepdim": False}
    >>> ov, args, kwargs = to_aten_call(REGISTRY["sum"], (ember.ones(2, 3),), params)
    >>> str(ov), ov(*args, **kwargs).tolist()
    ('aten.sum.dim_IntList', [3.0, 3.0])
"""
from __future__ import annotations

import ast
import inspect
import sys
from functools import reduce

from .._dispatch import dispatch
from .._primitives import REGISTRY, OpDef
from .._tensor_base import TensorBase
from . import _aten_adapters
from ._aten_table import TABLE
from ._overload import OpNamespace, OpOverload
from ._schema import FunctionSchema, parse_schema

__all__ = ["aten", "aten_overloads", "to_aten_call", "PRIMITIVES_WITHOUT_ATEN"]

# params a primitive carries for ember's own bookkeeping, which no aten schema has
_INTERNAL_PARAMS = {"as_strided": ("input_geometry",), "cat": ("sizes",), "to_dtype": ("copy",),
                    "random": ("low", "high", "dtype"), "random_to": ("low", "dtype"),
                    "random_from_to": ("dtype",)}
# schema arguments a primitive implies (its name already says them)
_IMPLIED = {"div_floor": {"rounding_mode": "floor"}, "div_trunc": {"rounding_mode": "trunc"},
            "div": {"rounding_mode": None}}

# primitive name -> [(OpOverload, input positions, fixed args, param renames), ...] in table order
_BY_PRIM: dict = {}

# primitives with no aten overload standing for them, and why (graphs keep them as ember primitives)
PRIMITIVES_WITHOUT_ATEN = {
    "histogramdd": "returns every dim's edges concatenated in one tensor (a primitive has a fixed "
                   "number of outputs); torch.histogramdd splits them into aten's Tensor[] bin_edges",
    "_cross_entropy": "F.cross_entropy's common case fused in eager mode (log_softmax + nll_loss; second "
                      "output: per-row logsumexp); aten has none (under make_fx's mode, "
                      "cross_entropy runs the log_softmax + nll_loss composite)",
    "_cross_entropy_backward": "the fused cross_entropy's input gradient (log_softmax_backward of "
                               "nll_loss_backward in one pass)",
    "binary_cross_entropy": "the elementwise (unweighted, unreduced) loss; aten.binary_cross_entropy "
                            "takes weight and reduction, and its table entry composes this primitive",
    "binary_cross_entropy_with_logits": "the elementwise (unweighted, unreduced) loss with a flagged "
                                        "pos_weight placeholder; aten's takes weight and reduction, and "
                                        "its table entry calls the public function",
    "adaptive_avg_pool_backward": "takes the input's shape; aten's pool backward overloads take the "
                                  "input tensor itself",
    "avg_pool_backward": "takes the input's shape; aten's pool backward overloads take the input",
    "max_pool_backward": "scatters by saved indices given the input's shape; aten's "
                         "max_pool*_with_indices_backward also takes the input and window",
    "as_strided_backward": "as_strided's backward from geometry alone (no base tensor)",
    "convolution_weight": "the weight gradient alone; aten.convolution_backward returns all three",
    "cumsum_reverse": "suffix sums (cumsum's backward); aten spells it flip, cumsum, flip",
    "index_mask": "one-hot mask of an index along a dim (max/min/median backward)",
    "resample_dim": "ember's interpolation kernel along one dim; aten has one upsample op per mode",
    "resample_dim_backward": "backward of resample_dim",
    "lstm_cell_pointwise": "fused LSTM cell step; aten's _thnn_fused_lstm_cell has another contract",
    "lstm_cell_pointwise_backward": "backward of lstm_cell_pointwise",
    "lstm_layer": "one LSTM layer over a sequence (eager only; graph capture sees per-step ops)",
    "lstm_layer_backward": "backward of lstm_layer",
    "gru_cell_pointwise": "fused GRU cell step; aten's _thnn_fused_gru_cell has another contract",
    "gru_cell_pointwise_backward": "backward of gru_cell_pointwise",
    "rnn_cat": "concatenation that records every piece's size (RNN steps)",
    "rnn_split_steps": "split into per-step copies (RNN steps)",
    "native_layer_norm_backward": "aten's takes bias and an output mask and gives None per masked "
                                  "gradient (the table's entry for direct calls adapts)",
    "nll_loss_backward": "takes the input's shape; aten's takes the input and the total weight "
                         "(the table's entry for direct calls adapts)",
    "clamp_tensor": "clamp with tensor bounds; a missing bound is a placeholder flagged by has_min/"
                    "has_max (aten.clamp.Tensor's table entry calls the public clamp)",
    "tri_indices": "one primitive for tril_indices/triu_indices (an ``upper`` flag); both aten "
                   "forms are in the table for direct calls",
    # quantization (issue 28): not yet mapped onto aten's overloads
    "fake_quantize_per_tensor_affine": "aten's overloads take float or tensor qparams as arguments; "
                                       "ember's primitive takes them as params (not yet in the table)",
    "fake_quantize_per_channel_affine": "aten's takes scale/zero_point tensors and axis; not yet in "
                                        "the table",
    "_fake_quantize_per_tensor_mask": "the straight-through mask of fake quantization (its backward)",
    "_fake_quantize_per_channel_mask": "the straight-through mask of fake quantization (its backward)",
}


def _kernel_params(op: OpDef) -> set:
    sig = inspect.signature(op.kernel)
    return {p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY}


def _required_inputs(op: OpDef) -> int:
    sig = inspect.signature(op.kernel)
    return sum(1 for p in sig.parameters.values()
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def _input_positions(schema: FunctionSchema, op: OpDef) -> tuple:
    """Which schema arguments feed the primitive's positional inputs: the Tensor ones in order,
    then (while the kernel needs more) the leading non-Tensor positional ones; kept in schema order."""
    args = schema.arguments
    chosen = [i for i, a in enumerate(args) if a.is_tensor or a.is_tensor_list]
    chosen = chosen[:len(op.input_names)]
    need = _required_inputs(op)
    for i, a in enumerate(args):
        if len(chosen) >= need:
            break
        if i not in chosen and not a.kwarg_only:
            chosen.append(i)
    return tuple(sorted(chosen))


def _as_param(v):
    return tuple(v) if type(v) is list else v


def _prim_impl(schema: FunctionSchema, op: OpDef, drop: set, fixed: dict, rename: dict):
    positions = _input_positions(schema, op)
    kparams = _kernel_params(op)
    arg_to_param = {v: k for k, v in rename.items()}
    plan = []  # (schema index, param name or None to drop, required value or None)
    for i, a in enumerate(schema.arguments):
        if i in positions:
            continue
        if a.name in fixed:
            plan.append((i, None, fixed[a.name]))
        elif a.name in drop:
            continue
        elif arg_to_param.get(a.name, a.name) in kparams:
            plan.append((i, arg_to_param.get(a.name, a.name), None))
        else:
            raise TypeError(f"aten table: {schema} has argument '{a.name}' that primitive "
                            f"{op.name} does not take (drop or fix it)")

    def impl(*args, **kwargs):
        values = schema.bind(args, kwargs)
        params = {}
        for i, name, want in plan:
            v = values[i]
            if name is None:
                if v != want:
                    raise NotImplementedError(f"{schema.name}: ember supports only "
                                              f"{schema.arguments[i].name}={want!r}, got {v!r}")
            elif v is not None or not schema.arguments[i].optional:  # None: the kernel's default
                params[name] = _as_param(v)
        inputs = [values[i] for i in positions]
        d = params.get("dim")
        if type(d) is int and d < 0:  # primitives take wrapped dims, aten accepts negative ones
            sizes = params.get("input_sizes")
            params["dim"] = d + (len(sizes) if sizes is not None else inputs[0].dim())
        return dispatch(op, *inputs, **params)
    return impl, positions


def _resolve_public(path: str):
    return reduce(getattr, path.split("."), sys.modules["ember"])


def _call_impl(schema: FunctionSchema, fn_of, drop: set, fixed: dict):
    """Call ``fn_of()`` with the schema's positional arguments by position, keyword-only by name."""
    args = schema.arguments
    n_pos = sum(1 for a in args if not a.kwarg_only)
    checks = [(i, fixed[a.name]) for i, a in enumerate(args) if a.name in fixed]
    # ``alpha`` is keyword-only in every Python signature, positional in some schemas (add.Scalar)
    keep_pos = [i for i in range(n_pos) if args[i].name not in drop and args[i].name not in fixed
                and args[i].name != "alpha"]
    keep_kw = [(i, args[i].name) for i in range(len(args))
               if (i >= n_pos or args[i].name == "alpha") and args[i].name not in drop
               and args[i].name not in fixed]
    target = []

    def impl(*a, **kw):
        values = schema.bind(a, kw)
        for i, want in checks:
            if values[i] != want:
                raise NotImplementedError(f"{schema.name}: ember supports only "
                                          f"{args[i].name}={want!r}, got {values[i]!r}")
        if not target:
            target.append(fn_of())
        out = target[0](*(values[i] for i in keep_pos), **{n: values[i] for i, n in keep_kw})
        return None if returns_nothing else out
    returns_nothing = schema.returns_text == "()"
    return impl


def _options(words: list) -> tuple:
    prims, drop, fixed, rename = (), set(), {}, {}
    for w in words:
        key, _, val = w.partition("=")
        if key == "prim":
            prims = tuple(val.split(","))
        elif key == "drop":
            drop = set(val.split(","))
        elif key == "rn":  # rn=param:arg, a primitive's param named differently in the schema
            rename = dict(item.split(":") for item in val.split(","))
        elif key == "fixed":
            for item in val.split(","):
                k, _, v = item.partition(":")
                fixed[k] = ast.literal_eval(v)
        else:
            raise ValueError(f"aten table: unknown option {w!r}")
    return prims, drop, fixed, rename


def _build() -> OpNamespace:
    ns = OpNamespace("aten")
    for line in TABLE.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        schema_text, _, rest = line.partition("  ")
        target, *words = rest.split()
        schema = parse_schema(schema_text, "aten")
        prims, drop, fixed, rename = _options(words)
        if target.startswith("="):
            op = REGISTRY[target[1:]]
            impl, _ = _prim_impl(schema, op, drop, fixed, rename)
            prims = prims or (op.name,)
        elif target.startswith(":"):
            impl = _call_impl(schema, (lambda name=target[1:]: getattr(_aten_adapters, name)),
                              drop, fixed)
        else:
            impl = _call_impl(schema, (lambda path=target: _resolve_public(path)), drop, fixed)
        overload = OpOverload(schema, impl)
        ns._add(overload)
        for p in prims:
            _BY_PRIM.setdefault(p, []).append(
                (overload, _input_positions(schema, REGISTRY[p]), fixed, rename))
    return ns


aten = _build()


def aten_overloads(op: OpDef) -> list:
    """The aten overloads standing for primitive ``op`` (table order; empty when it has none); for a
    custom operator's OpDef, its own ``ops.<ns>.<op>`` overload."""
    custom = getattr(op, "overload", None)
    if custom is not None:
        return [custom]
    return [entry[0] for entry in _BY_PRIM.get(op.name, ())]


def _fits(value, arg) -> bool:
    if arg.is_tensor:
        return isinstance(value, TensorBase) or (arg.optional and value is None)
    if arg.is_tensor_list:
        return type(value) in (list, tuple)
    return not isinstance(value, TensorBase)


def to_aten_call(op: OpDef, args: tuple, params: dict):
    """Rewrite ``dispatch(op, *args, **params)`` as ``(overload, args, kwargs)`` such that
    ``overload(*args, **kwargs)`` computes the same; raises LookupError when no overload fits."""
    custom = getattr(op, "overload", None)
    if custom is not None:  # an ember.library operator: its OpDef takes the schema's arguments
        return custom, tuple(args), {}
    internal = _INTERNAL_PARAMS.get(op.name, ())
    implied = _IMPLIED.get(op.name, {})
    defaults = op.param_defaults
    for overload, positions, fixed, rename in _BY_PRIM.get(op.name, ()):
        if rename:
            params = {rename.get(k, k): v for k, v in params.items()}
        schema = overload._schema
        sargs = schema.arguments
        if len(args) > len(positions):
            continue
        names = {sargs[i].name for i in range(len(sargs)) if i not in positions}
        if any(k not in names and k not in internal and v != defaults.get(k, object())
               for k, v in params.items()):
            continue
        if any(k not in names and v is not None for k, v in implied.items()):
            continue
        values, ok = [], True
        given = dict(zip(positions, args))
        for i, a in enumerate(sargs):
            if i in given:
                v = given[i]
                if not _fits(v, a):
                    ok = False
                    break
            elif a.name in params:
                v = params[a.name]
            elif a.name in implied:
                v = implied[a.name]
            elif a.name in fixed:
                v = fixed[a.name]
            elif i in positions and a.optional:
                v = None
            elif a.has_default_value():
                v = a.default
            elif a.type == "ScalarType" and a.name == "input_dtype" and args:
                v = args[0].dtype  # backward kernels: the dtype ember computed the input in
            else:
                ok = False
                break
            values.append(list(v) if type(v) is tuple and not a.is_tensor_list else v)
        if not ok:
            continue
        pos = tuple(v for v, a in zip(values, sargs) if not a.kwarg_only)
        kw = {a.name: v for v, a in zip(values, sargs) if a.kwarg_only}
        return overload, pos, kw
    raise LookupError(f"no aten overload stands for primitive {op.name} called with "
                      f"params {sorted(params)}")
