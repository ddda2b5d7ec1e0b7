"""The primitive registry (layer L1): one ``OpDef`` per primitive holds kernel, meta rule and derivative.

A primitive is declared once, in its family's file::

    @primitive("mul", kind="pointwise", expr="a * b")
    def mul(a, b):                 # kernel: arrays (and Python scalars) in, array out
        return np.multiply(a, b)

    @mul.derivative
    def _(grad, a, b):             # Tensors in, Tensors out, written in ember ops
        return grad * b.conj(), grad * a.conj()

What a derivative saves for backward is read from its signature: parameters named like kernel inputs
save those inputs, ``out`` saves the (first) output, ``out1``, ``out2``... only that output (say the
indices of a max or the statistics of a norm, so the values output stays writable in place, as in
torch), ``outs`` every output; keyword-only parameters
receive the op's params. The registry sums gradients over broadcast dims and casts them to the input's
dtype, so derivatives state only the maths.

``reads`` declares which saved values each input's gradient reads, when one input's gradient reads
only OTHER inputs (torch saves, and version-checks at backward, only what the needed gradients read)::

    @mul.derivative(reads={"a": ("b",), "b": ("a",)})
    def _(grad, a, b): ...

Every input is named; a saved input that no input requiring grad reads is then kept without a version
check (writing it in place before backward is no error, as in torch) and the derivative still receives
its value (the gradient computed from it is dropped). Without ``reads`` every gradient reads every
saved value: each is version-checked. Saved outputs (``out``...) are always checked.

A derivative that takes the keyword ``K`` is written against an ops namespace instead of Tensor
methods (``K.mul(grad, b)``, ``K.sum(g, dim=(0,), keepdim=True, dtype=None)``): its one definition
runs on Tensors (``TENSOR_K``: every call dispatches, so it is differentiable again) and, when no
graph of the backward is needed, on the raw NumPy arrays (``ARRAY_K``: the primitives' own kernels,
so both executions give the same bits)::

    @mul.derivative
    def _(grad, a, b, *, K):
        return K.mul(grad, b), K.mul(grad, a)
"""
from __future__ import annotations

import inspect
from typing import Callable

import numpy as _np

__all__ = ["OpDef", "primitive", "REGISTRY", "TensorMeta", "SlowPath", "set_dispatcher", "TENSOR_K",
           "ARRAY_K", "OBSERVED"]

REGISTRY: dict = {}
_DISPATCH = None  # ember._dispatch.dispatch: layer L1 cannot import it, so L2 hands it in once
# ``OBSERVED[0]()``: whether something watches primitive calls (a dispatch mode, the general-path
# switch), so backward must dispatch each op of a derivative; handed in with the dispatcher
OBSERVED = [lambda: False]


def set_dispatcher(fn: Callable, observed: Callable | None = None) -> None:
    """Install ``fn(op, *args, **params)`` as what calling an ``OpDef`` runs (``ember._dispatch``),
    and ``observed()`` as the check that a dispatch mode watches primitive calls."""
    global _DISPATCH
    _DISPATCH = fn
    if observed is not None:
        OBSERVED[0] = observed

# type-promotion kinds of pointwise ops (torch's ELEMENTWISE_TYPE_PROMOTION_KIND)
PROMOTIONS = ("default", "int_to_float", "always_bool", "compare", "complex_to_float", "none")


class SlowPath(ValueError):
    """Raised by a kernel (or in-place writer) that does not handle its inputs: they are invalid, or
    outside the case it is fast for. Dispatch then re-runs the op's meta rule, which raises torch's
    error with torch's message (an in-place writer's caller takes the ordinary path instead)."""


class TensorMeta:
    """What a meta rule returns: shape, dtype and optionally strides and storage offset."""

    __slots__ = ("shape", "dtype", "strides", "offset")

    def __init__(self, shape, dtype, strides=None, offset=0):
        self.shape, self.dtype, self.strides, self.offset = tuple(shape), dtype, strides, offset


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


class OpDef:
    """A primitive: ``kernel(*arrays, **params)``, ``meta(*tensors, **params)``, derivative, family."""

    def __init__(self, name: str, kernel: Callable, kind: str, *, promotion: str = "default",
                 expr: str | None = None, node_name: str | None = None, num_outputs: int = 1,
                 differentiable_outputs: tuple | None = None, promote_args: tuple | None = None,
                 array_ufunc=None):
        assert kind in ("pointwise", "reduction", "view", "other", "foreach", "random", "creation")
        assert promotion in PROMOTIONS
        self.name = name
        self.kernel = kernel
        self.kind = kind
        self.is_view = kind == "view"
        self.simple_out = num_outputs == 1 and kind not in ("view", "foreach")  # dispatch's fast wrap
        self.promotion = promotion if kind == "pointwise" else "none"
        self.expr = expr
        self.promote_args = promote_args  # which positional args take part in promotion (None: all)
        self.ufunc = None  # the in-place writer (see inplace_writer): x.op_(...) writes with out=
        self.ufunc_params = False  # the writer also takes the op's params
        # the NumPy ufunc the kernel amounts to on float32/float64 arrays in the compute dtype and real
        # Python scalars, with default params (dispatch's fast path calls it without the kernel's frame)
        self.array_ufunc = array_ufunc
        self.num_outputs = num_outputs
        self.differentiable_outputs = differentiable_outputs
        self.input_names = tuple(p.name for p in inspect.signature(kernel).parameters.values()
                                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        self.node_name = node_name or f"{_camel(name)}Backward0"
        # whether calls may pass params (keyword arguments): else nodes need no ``params`` slot
        self.takes_params = any(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD)
                                for p in inspect.signature(kernel).parameters.values())
        # defaults of the kernel's keyword-only params, so derivatives see every param
        self.param_defaults = {p.name: p.default for p in inspect.signature(kernel).parameters.values()
                               if p.kind == p.KEYWORD_ONLY and p.default is not p.empty}
        self.meta_rule: Callable | None = None
        self.backward: Callable | None = None
        self.save_inputs: tuple = ()
        self.save_order: tuple = ()
        self.save_plan: tuple = ()
        self.save_out = False
        self.save_outs = False
        self.backward_params: tuple | None = ()
        self.backward_shapes: tuple = ()
        self.backward_needs = False
        self.backward_k = False
        # per save_plan entry, the inputs whose gradient reads it (``derivative(reads=...)``): a saved
        # input that no input requiring grad reads is kept without a version check (None: undeclared)
        self.save_readers = None
        self.node_class = None  # filled by the autograd layer (one Node subclass per op, torch's name)
        # dispatch's fast path, generated from this definition on first call (``_dispatch.fast_path``):
        # None = not generated yet, False = the op always takes the general path
        self.fast = None
        self.recorder = None  # autograd's recorders specialised for this op (generated on first use)
        REGISTRY[name] = self
        _KERNELS[name] = kernel

    def __reduce__(self):  # by name: graphs that record primitives (node.meta) pickle
        return (_registered, (self.name,))

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"

    def __call__(self, *args, **params):
        """Run the op through the dispatcher (derivatives call other primitives this way; a dispatch
        mode's ``func(*args, **kwargs)`` too)."""
        return _DISPATCH(self, *args, **params)

    def derivative(self, fn: Callable | None = None, *, reads: dict | None = None):
        """Register ``fn(grad, <saved inputs/out>, *, <params>)`` returning one grad per input; as
        ``@op.derivative`` or ``@op.derivative(reads={...})`` (the module doc: which saved inputs
        each input's gradient reads)."""
        if fn is None:
            return lambda f: self.derivative(f, reads=reads)
        sig = inspect.signature(fn)
        positional, keyword, var_kw = [], [], False
        for p in list(sig.parameters.values())[1:]:
            if p.kind == p.KEYWORD_ONLY:
                keyword.append(p.name)
            elif p.kind == p.VAR_KEYWORD:
                var_kw = True
            else:
                positional.append(p.name)
        if any(_output_index(n) is not None or n == "outs" for n in self.input_names):
            raise TypeError(f"primitive {self.name}: an input may not be named 'out'/'out<k>'/'outs' "
                            "(those names mean the primitive's own outputs in a derivative)")
        for n in positional:
            k = _output_index(n)
            if k is not None and k >= self.num_outputs:
                raise TypeError(f"derivative of {self.name}: '{n}' names no output (the primitive "
                                f"has {self.num_outputs})")
            if n not in self.input_names and n != "outs" and k is None:
                raise TypeError(f"derivative of {self.name}: '{n}' names no input of the kernel "
                                f"{self.input_names}")
        readers = self._readers(reads, positional)
        self.save_inputs = tuple(self.input_names.index(n) for n in positional
                                 if n in self.input_names)
        self.save_order = tuple(positional)
        # (0, input index) | (1, k) for ``out``/``out<k>`` | (2, 0) for ``outs``: what _record saves
        self.save_plan = tuple((1, _output_index(n)) if _output_index(n) is not None
                               else (2, 0) if n == "outs" else (0, self.input_names.index(n))
                               for n in positional)
        self.save_out = "out" in positional
        self.save_outs = "outs" in positional
        # ``needs_input_grad`` (a tuple of bools, one per input) lets a derivative skip unneeded work
        self.backward_needs = "needs_input_grad" in keyword
        # ``K``: written against an ops namespace, so it also runs on raw arrays (module doc)
        self.backward_k = "K" in keyword
        keyword = [k for k in keyword if k != "needs_input_grad" and k != "K"]
        self.backward_params = None if var_kw else tuple(k for k in keyword if not self._is_shape_kw(k))
        # keyword-only ``<input>_shape`` parameters receive that input's shape (no tensor is saved)
        self.backward_shapes = tuple((k, self.input_names.index(k[:-6])) for k in keyword
                                     if self._is_shape_kw(k))
        self.save_readers = readers
        self.backward = fn
        self.node_class = self.recorder = None  # regenerated from the new save plan on next use
        return fn

    def _readers(self, reads: dict | None, saved: list):
        """Per saved name (``saved``, in order): the indices of the inputs whose gradient reads that
        saved input, or None when it is version-checked whenever anything is recorded (an output, an
        input every gradient reads). None overall without ``reads``."""
        if reads is None:
            return None
        names = self.input_names
        if set(reads) != set(names):
            raise TypeError(f"derivative of {self.name}: reads= must name every input {names}, got "
                            f"{tuple(reads)}")
        for key, vals in reads.items():
            if isinstance(vals, str) or any(v not in saved for v in vals):
                raise TypeError(f"derivative of {self.name}: reads[{key!r}] = {vals!r} must be a tuple "
                                f"of saved names {tuple(saved)}")
        out = []
        for saved_name in saved:
            by = tuple(j for j, n in enumerate(names) if saved_name in reads[n])
            out.append(by if saved_name in names and len(by) < len(names) else None)
        return tuple(out)

    def _is_shape_kw(self, k: str) -> bool:
        return k.endswith("_shape") and k[:-6] in self.input_names

    def inplace_writer(self, fn: Callable | None = None, *, takes_params: bool = False):
        """Declare ``fn(*operands, out=array)`` (a NumPy ufunc or a function), computing exactly what the
        kernel computes but into ``out``: outside autograd, ``x.op_(...)`` with operands already in x's
        dtype then writes straight into x's memory. ``takes_params``: ``fn`` also takes the op's
        params. Use as ``mul.inplace_writer(np.multiply)`` or ``@add.inplace_writer(takes_params=True)``
        right below the kernel; a writer raising ``SlowPath`` (or ``ValueError``) sends the call to the
        ordinary path."""
        def register(writer: Callable) -> Callable:
            self.ufunc, self.ufunc_params = writer, takes_params
            return writer
        return register if fn is None else register(fn)

    def meta(self, fn: Callable) -> Callable:
        """Register the meta rule: ``fn(*inputs, **params) -> TensorMeta`` (or a tuple of them)."""
        self.meta_rule = fn
        return fn


class _OpsNamespace:
    """``K.<primitive>(...)``: the primitive's kernel on arrays (``raw``) or the primitive through
    dispatch on Tensors, looked up by name on first use; plus the few non-primitive helpers below."""

    def __init__(self, raw: bool, helpers: dict):
        self.raw = raw
        self.__dict__.update(helpers)

    def __getattr__(self, name: str):
        op = REGISTRY.get(name)
        if op is None:
            raise AttributeError(f"no primitive named {name!r} for a derivative's K namespace")
        fn = _KERNELS[name] if self.raw else op
        setattr(self, name, fn)
        return fn


_ndarray = _np.ndarray
_KERNELS: dict = {}  # name -> the kernel an op was registered with (what ``ARRAY_K`` binds)


def _array_sum_to_size(a, shape):
    """``sum_to_size`` on an array: the sum kernel over the broadcast dims, as the Tensor method
    (the same reduction, so the same bits)."""
    have = a.shape
    lead = len(have) - len(shape)
    if lead < 0:
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(have)}}}.")
    inner = []
    for i, s in enumerate(shape):
        n = have[lead + i]
        if s != n:
            if s != 1:
                raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(have)}}}.")
            inner.append(lead + i)
    sum_kernel = _KERNELS["sum"]
    if not inner:  # only leading dims (a bias): no keepdim and no reshape needed
        if not lead:
            return a
        out = sum_kernel(a, dim=tuple(range(lead)), keepdim=False, dtype=None)
        return out if type(out) is _ndarray else _np.asarray(out)  # a 0-d sum is a NumPy scalar
    out = sum_kernel(a, dim=tuple(range(lead)) + tuple(inner), keepdim=True, dtype=None)
    return out.reshape(shape) if lead else out


def _array_expand(a, *, size):
    """``expand``'s kernel on an array (a read-only broadcast view of ``a``), made with one ndarray
    constructor when ``a`` is contiguous: ``np.broadcast_to``'s Python-level setup costs about 2 us,
    a large part of a reduction's raw backward on small tensors. Anything else takes the kernel."""
    if type(a) is _ndarray and a.size and a.flags.c_contiguous:
        lead = len(size) - a.ndim
        if lead >= 0:
            strides = [0] * lead
            for have, want, step in zip(a.shape, size[lead:], a.strides):
                if have == want:
                    strides.append(step)
                elif have == 1:
                    strides.append(0)
                else:
                    break  # not expandable: the kernel raises
            else:
                out = _ndarray(size, a.dtype, a, 0, strides)
                out.flags.writeable = False
                return out
    return _KERNELS["expand"](a, size=size)


def _tensor_sum_to_size(t, shape):
    return t.sum_to_size(shape)


def _tensor_reshape(t, shape):
    return t.reshape(shape)


def _array_reshape(a, shape):
    return a.reshape(shape)  # a view when the layout allows, else a copy, as Tensor.reshape


# the derivatives' ops namespaces (the registry's module doc): Tensors through dispatch, raw arrays
TENSOR_K = _OpsNamespace(False, {"sum_to_size": _tensor_sum_to_size, "reshape": _tensor_reshape})
ARRAY_K = _OpsNamespace(True, {"sum_to_size": _array_sum_to_size, "reshape": _array_reshape,
                               "expand": _array_expand})


def _output_index(name: str):
    """0 for ``out``, k for ``out<k>``, None for any other parameter name."""
    if name == "out":
        return 0
    if name.startswith("out") and name[3:].isdigit():
        return int(name[3:])
    return None


def _registered(name: str) -> OpDef:
    op = REGISTRY.get(name)
    if op is None:
        raise LookupError(f"no primitive named {name!r} is registered")
    return op


def primitive(name: str, kind: str = "other", **options) -> Callable[[Callable], OpDef]:
    """Decorator turning a kernel into a registered ``OpDef``."""
    def wrap(kernel: Callable) -> OpDef:
        if name in REGISTRY:
            raise ValueError(f"primitive '{name}' is defined twice")
        return OpDef(name, kernel, kind, **options)
    return wrap
