"""dispatch(op, *args, **params): the one path every primitive call takes (layer L2).

Order of a call:
  1. an active dispatch mode (``TorchDispatchMode``) receives the call and may handle it;
  2. the device: meta (or fake) inputs run the op's meta rule only; cpu inputs run the NumPy kernel
     (pointwise ops first promote dtypes by torch's rules; float16/bfloat16 compute in float32);
     when NumPy raises, the meta rule re-runs to raise torch's exception and message;
  3. outputs are wrapped as Tensors (views share the base's version counter and record ``_base``);
  4. when grad mode is on and an input requires grad, ``autograd._recording.record`` makes the Node.

In-place and ``out=`` variants (``_dispatch_inplace.py``) run this same path, then write into the
target, bump its version and, for views, rewrite the base's history (CopySlices).
"""
from __future__ import annotations

import os
import threading

import numpy as np

from . import _dtype as D
from . import _dtype_complex32 as C32
from ._device import CPU, META
from ._shape import broadcast_shapes, contiguous_strides
from ._primitives._registry import OpDef, SlowPath, TensorMeta, set_dispatcher
from ._tensor_base import TensorBase, new_tensor, shape_of as _shape, wrap
from ._tensor_base import set_tensor_class as _set_wrap_class
from .autograd._node_codegen import node_class_for
from .autograd._recording import fast_record_names, fast_record_source, record
from .autograd.grad_mode import STATE
from .overrides import _FUNCTION_MODES, ANY_MODE, count_modes

__all__ = ["dispatch", "wrap", "set_tensor_class", "TorchDispatchMode"]

DEBUG = int(os.environ.get("EMBER_DEBUG", "0") or 0)
_ndarray = np.ndarray
_generic = np.generic
_asarray = np.asarray
_FROM_NP = D.FROM_NP
_LOW = (D.float16, D.bfloat16)
_C32 = D.complex32
_C32_WIDE = "complex32 operand, wider result"  # a plan's ``pre`` when complex32 meets a wider dtype
_NOT_FAST = _LOW + (_C32,)  # dtypes whose kernels take the general path (_run_cpu converts them)
_f32 = D.float32
_F32 = np.dtype(np.float32)
_C64 = np.dtype(np.complex64)
_new = object.__new__
Tensor = TensorBase  # the public Tensor class, handed in once by _tensor.py (set_tensor_class)


def set_tensor_class(cls) -> None:
    """Tensors made here and by ``wrap`` are instances of ``cls`` (called once, by ``_tensor.py``)."""
    global Tensor
    Tensor = cls
    FAST_TYPES.add(cls)
    _set_wrap_class(cls)


# ------------------------------------------------------------------------------ dispatch modes
class _ModeState(threading.local):
    def __init__(self):
        self.stack = []


MODES = _ModeState()
# True while any dispatch mode or TorchFunctionMode is entered in any thread (or general_path_only is
# active): the one global check that keeps the fast path cheap; the thread's own stacks are read only
# when it is set
_any_mode = ANY_MODE


def _count_active(delta: int) -> None:
    count_modes(0, delta)


class TorchDispatchMode:
    """Intercepts every primitive call in its ``with`` block: override
    ``__torch_dispatch__(self, func, types, args=(), kwargs=None)``; call ``func(*args, **kwargs)`` to
    run the op below this mode."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        MODES.stack.append(self)
        _count_active(1)
        return self

    def __exit__(self, *exc):
        MODES.stack.remove(self)
        _count_active(-1)

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


def _via_mode(op, args, params):
    stack = MODES.stack
    mode = stack.pop()
    try:
        types = tuple({type(a) for a in flat_tensors(args)})
        return mode.__torch_dispatch__(op, types, args, params)
    finally:
        stack.append(mode)


def current_modes() -> list:
    return list(MODES.stack)


def flat_tensors(args):
    for a in args:
        if isinstance(a, TensorBase):
            yield a
        elif type(a) in (list, tuple):
            yield from (x for x in a if isinstance(x, TensorBase))


# ------------------------------------------------------------------------------ wrapping
# ``wrap(array, dtype=None)`` (a fresh cpu Tensor) is generated in _tensor_base with new_tensor
def wrap_meta(shape, dtype, strides=None, offset=0) -> "Tensor":
    """A fresh 'meta' Tensor (shape, strides, offset; no data)."""
    shape = tuple(shape)
    strides = tuple(strides) if strides is not None else contiguous_strides(shape)
    return new_tensor(Tensor, None, dtype, (shape, strides, offset))


# ------------------------------------------------------------------------------ promotion
def _key(a):
    if isinstance(a, TensorBase):
        d = a._data
        return (a._dtype, (d.ndim if d is not None else len(a._meta[0])) == 0)
    return type(a) if type(a) in (bool, int, float, complex) else _scalar_type(a)


def _scalar_type(a):
    if isinstance(a, (bool, np.bool_)):
        return bool
    if isinstance(a, (int, np.integer)):
        return int
    if isinstance(a, (complex, np.complexfloating)):
        return complex
    if isinstance(a, (float, np.floating)):
        return float
    raise TypeError(f"unsupported operand type: {type(a).__name__}")


def result_dtype(op, args):
    """torch's dtype for a pointwise op's result, and the dtype its kernel computes in."""
    idx = op.promote_args
    key = tuple(_key(args[i]) for i in idx) if idx is not None else tuple(_key(a) for a in args)
    common = D.result_type_of(key)
    p = op.promotion
    if p == "default":
        return common, common
    if p == "int_to_float":
        if common.category < 2:
            common = D.get_default_dtype()
        return common, common
    if p == "compare":
        return D.bool, common
    if p == "always_bool":
        return D.bool, None
    if p == "complex_to_float":
        return common.to_real(), common
    return None, None


# ------------------------------------------------------------------------------ the path
def dispatch(op: OpDef, *args, **params):
    """Run primitive ``op`` on ``args`` (Tensors, Python scalars, lists of Tensors)."""
    fast = op.fast
    if fast:  # the op's generated fast path (see _fast_path below); it falls back to _general
        return fast(args, params)
    if fast is None:
        return _install_fast(op)(args, params)
    return _general(op, args, params)


def _general(op: OpDef, args, params):
    """The general path: modes, meta tensors, any argument kind, lists, low-precision dtypes."""
    if _any_mode[0] and MODES.stack:
        return _via_mode(op, args, params)
    if DEBUG:
        print(f"[ember] {op.name}", [tuple(_shape(a)) if isinstance(a, TensorBase) else a
                                     for a in args], params)
    grad = False
    arrays = []
    meta = False
    for a in args:
        if isinstance(a, TensorBase):
            d = a._data
            if d is None:
                meta = True
            if a._requires_grad:
                grad = True
            arrays.append(d)
        elif type(a) is list or type(a) is tuple:
            sub = []
            for x in a:
                if isinstance(x, TensorBase):
                    if x._data is None:
                        meta = True
                    if x._requires_grad:
                        grad = True
                    sub.append(x._data)
                else:
                    sub.append(x)
            arrays.append(sub)
        else:
            arrays.append(a)
    if not args and (op.kind == "creation" or op.kind == "random"):
        dev = params.get("device")
        if dev is not None and dev is not CPU:
            if dev.type == "cuda":
                raise AssertionError("Torch not compiled with CUDA enabled")
            meta = dev is META
    if meta:
        outs = _run_meta(op, args, params)
    else:
        outs = _run_cpu(op, args, arrays, params)
    if grad and STATE.enabled and op.backward is not None:
        record(op, args, params, outs)
    return outs


set_dispatcher(dispatch, lambda: _any_mode[0] and bool(MODES.stack or _FAST_OFF[0]))  # ``op(*args)``
# on an OpDef (derivatives, dispatch modes) runs this path; backward asks whether a mode watches


# ------------------------------------------------------------------------------ the fast path
# Generated once per op from its OpDef (kind, promotion, arity): plain cpu Tensors (and Python scalars
# for pointwise ops), a dtype combination whose plan is cached (keyed on the operand dtypes), no
# active dispatch mode and no debug printing. Anything else, and any exception, takes ``_general``,
# which re-runs the op and raises torch's error. The generated code runs in this module's namespace.
FAST_TYPES: set = set()  # plain tensor classes (Tensor, nn.Parameter): no __torch_function__ of their own
_SCALAR_KINDS = {int: int, float: float, bool: bool, complex: complex}
_NO_FAST_KINDS = ("foreach", "random", "creation")


_FAST_OFF = [False]  # read only after _any_mode[0]: costs nothing while no mode is entered


class general_path_only:
    """Inside, every op takes the general path (tests compare it with the fast path)."""

    def __enter__(self):
        self.prev = _FAST_OFF[0]
        _FAST_OFF[0] = True
        _count_active(1)
        return self

    def __exit__(self, *exc):
        _FAST_OFF[0] = self.prev
        _count_active(-1)


def _install_fast(op):
    """Generate ``op.fast`` on the op's first call (False when the op has no fast path)."""
    ok = not DEBUG and op.num_outputs == 1 and op.kind not in _NO_FAST_KINDS and op.input_names
    op.fast = _generate(op, len(op.input_names)) if ok else False
    if not op.fast and not DEBUG and op.num_outputs == 1 and op.simple_out \
            and (op.kind == "creation" and not op.input_names or op.kind == "random"):
        op.fast = _creation_fast(op)  # a sampler's fast path serves calls without tensor inputs (randn)
    return op.fast or (lambda args, params: _general(op, args, params))


def _creation_fast(op):
    """The fast path of a creation op, or of a sampler called without tensor inputs (``randn``): on
    cpu outside dispatch modes the kernel's array is wrapped as ``_general`` would; anything else,
    and any exception, takes ``_general`` (which raises torch's error)."""
    def fast(args, params):
        if args or params.get("device", CPU) is not CPU or (_any_mode[0] and (MODES.stack or _FAST_OFF[0])):
            return _general(op, args, params)
        try:
            res = op.kernel(**params)
        except Exception:  # noqa: BLE001 (the general path re-runs it and explains the failure)
            return _general(op, args, params)
        if type(res) is not _ndarray:
            return _wrap_out(op, res, args, None, None)
        return wrap(res, _FROM_NP[res.dtype])
    return fast


def fast_method(op, fallback, swap: bool = False, accept=None, params_of=None, public: bool = False):
    """A public method with ``fallback``'s signature (positional inputs, then flags with simple
    defaults: positional ones such as ``sum``'s ``dim=None, keepdim=False`` and keyword-only ones) that
    runs ``op`` on the fast path when every flag is at its default, else calls ``fallback``.
    ``swap``: the method's two inputs are the op's in reverse order (``__rsub__``). ``accept(key)``
    vetoes dtype combinations (checks the method makes that the op does not).

    ``params_of``: for a method taking ``*args`` after its inputs (``x.flip(-1)``), a function of the
    inputs' arrays and those args giving the op's params (a dict naming every keyword parameter of
    the kernel), or None to call ``fallback``
    (which also gets any keyword arguments). While a ``TorchFunctionMode`` is entered (in any thread)
    every generated method calls ``fallback``, which shows the mode the call (``public`` is kept for
    callers; it changes nothing now)."""
    import inspect  # noqa: PLC0415 (import time only)
    params = list(inspect.signature(fallback).parameters.values())
    pos = [p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
    opt = [(p.name, p.default) for p in params if p.kind == p.POSITIONAL_OR_KEYWORD and p.default is not p.empty]
    kws = [(p.name, p.default) for p in params if p.kind == p.KEYWORD_ONLY]
    var = [p.name for p in params if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    P = inspect.Parameter
    variadic = (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY) + ((P.VAR_POSITIONAL, P.VAR_KEYWORD) if params_of else ())
    if DEBUG or op.num_outputs != 1 or op.kind in _NO_FAST_KINDS or len(pos) != len(op.input_names) \
            or not _GENERATED_LOCALS.isdisjoint(pos + var + [k for k, _ in opt + kws]) \
            or any(p.kind not in variadic for p in params) \
            or (params_of is not None and (opt or kws or params[len(pos)].kind != P.VAR_POSITIONAL)) \
            or any(type(d) not in (type(None), bool, int, float, str) for _, d in opt + kws):
        return fallback
    fn = _generate(op, len(pos), names=pos, order=pos[::-1] if swap else pos, kws=kws, opt=opt,
                   fallback=fallback, accept=accept, params_of=params_of, public=public,
                   var=tuple((p.kind == p.VAR_KEYWORD, p.name) for p in params
                             if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)))
    for attr in ("__name__", "__qualname__", "__module__", "__doc__"):
        setattr(fn, attr, getattr(fallback, attr))
    return fn


# names the generated code uses for its own locals and constants (a method's parameters must differ)
_GENERATED_LOCALS = frozenset({"g", "plan", "out_dt", "onp", "res", "rd", "t", "rec", "op", "fallback",
                               "accept", "_plans", "args", "params", "key", "uf", "casts", "m", "s", "b",
                               "cls", "node", "fn", "am", "acc", "vc", "ovc", "params_of", "lp",
                               "looped"}) | frozenset(
    f"{p}{i}" for p in "tdkzcuxreqv" for i in range(8))
_NO_PARAMS: dict = {}  # a fast method's params (never written: nodes and derivatives only read them)
globals().update(fast_record_names())  # what the generated recording code reads


def _kinds(args) -> tuple:
    """Each operand's dtype (Tensors) or Python scalar type: what ``fast_method``'s ``accept`` sees."""
    return tuple(a._dtype if isinstance(a, TensorBase) else type(a) for a in args)


_UFUNC_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_UFUNC_SCALARS = (int, float)


def array_ufunc(op) -> tuple:
    """``(ufunc, constants)``: what ``op``'s kernel amounts to on float32/float64 arrays already in
    the compute dtype and real Python scalars, with default params: ``ufunc(*operands, *constants)``
    with each constant a 0-d array of the compute dtype; ``(None, ())`` if the definition declares
    nothing. Read from the OpDef's ``array_ufunc`` (a ufunc, or a tuple ``(ufunc, *constants)``), or
    a plain ufunc declared as its in-place writer (whose contract is to compute exactly what the
    kernel computes)."""
    u = op.array_ufunc
    if u is None and type(op.ufunc) is np.ufunc and not op.ufunc_params:
        u = op.ufunc
    return (u[0], tuple(u[1:])) if type(u) is tuple else (u, ())


def _fill_plan(op, plans, key, args, accept):
    """The cached plan for one dtype combination, or False when it must take the general path.
    A pointwise plan is (result dtype, its NumPy dtype, ufunc to call instead of the kernel or None,
    per-operand casts or None, the ufunc's broadcast-loop cell (``_LOOPS``) when operands of
    different sizes may take a Numba loop or None, the ufunc's constants)."""
    if accept is not None and not accept(_kinds(args)):
        plan = False
    elif op.promotion == "none":
        plan = not any(isinstance(a, TensorBase) and a._dtype in _NOT_FAST for a in args)
    else:
        out_dt, cnp, pre = _plan(op, args)
        if pre is not None or out_dt is None:
            plan = False
        else:
            idx = op.promote_args
            casts = [None] * len(args)
            for i in (range(len(args)) if idx is None else idx):
                a = args[i]
                if cnp is not None and isinstance(a, TensorBase) and a._data.dtype != cnp:
                    casts[i] = cnp
            uf, consts = array_ufunc(op)
            if uf is not None and not (idx is None and cnp in _UFUNC_DTYPES and all(
                    isinstance(a, TensorBase) or type(a) in _UFUNC_SCALARS for a in args)):
                uf = None
            casts = tuple(casts) if any(c is not None for c in casts) else None
            # two tensors in the compute dtype under an IEEE ufunc: different sizes may take a Numba
            # loop instead; the plan holds the ufunc's loop cell (_LOOPS)
            bk = _LOOPS[uf.__name__] if uf is not None and casts is None and not consts and len(args) == 2 \
                and all(isinstance(a, TensorBase) for a in args) and uf.__name__ in _LOOPS else None
            plan = (out_dt, out_dt.np, uf, casts, bk, *(np.array(c, dtype=cnp) for c in consts))
    plans[key] = plan
    return plan


def _finish(op, args, params, res, out_dt, grad):
    """The fast path's kernel gave something other than an array (a NumPy scalar, a Tensor)."""
    out = _wrap_out(op, res, args, out_dt, None)
    if grad and STATE.enabled and op.backward is not None:
        record(op, args, params, out)
    return out


_BROADCAST_UFUNCS = tuple(u.__name__ for u in (np.add, np.subtract, np.multiply, np.divide))  # its EXACT
_BROADCAST_MIN = 256  # a smaller first operand keeps NumPy's broadcasting (and never imports Numba)
# ufunc name -> its cell [compiled loop, or None while warming up, or False (Numba missing or
# failed); name]: plans hold the cell, so the fast path reads the loop with one subscript
_LOOPS: dict = {name: [None, name] for name in _BROADCAST_UFUNCS}
BROADCAST_WARMUP = 1000  # calls of a ufunc's broadcast before its loop is loaded (tests set 0)
_BROADCAST_CALLS: dict = {}
_NO_LOOP: set = set()  # (shape, shape) pairs a loop refused: NumPy broadcasts them


def _warm_loop(cell):
    """The broadcast loop of ufunc ``cell[1]`` (see ``_primitives/_broadcast_loops.py``) once it has
    been asked for ``BROADCAST_WARMUP`` times, else False (NumPy broadcasts): Numba's first load
    costs ~1 s in a fresh process, so only code that broadcasts often pays it. The fast path calls
    this while the cell holds no loop."""
    loop, name = cell
    if loop is None:
        seen = _BROADCAST_CALLS[name] = _BROADCAST_CALLS.get(name, 0) + 1
        if seen < BROADCAST_WARMUP:
            return False
        try:
            from ._primitives._broadcast_loops import loop_for  # noqa: PLC0415 (Numba: heavy, lazy)
            loop = loop_for(name)
        except ImportError:
            loop = False
        cell[0] = loop
    return loop


def _loop_refused(a, b):
    """A loop found ``a`` and ``b`` (arrays) do not broadcast its way: remember their shapes (NumPy
    broadcasts them from now on without asking the loop again). Returns False."""
    if len(_NO_LOOP) > 4096:  # shapes seen once (a sweep) must not accumulate
        _NO_LOOP.clear()
    _NO_LOOP.add((a.shape, b.shape))
    return False


def _loop_broke(cell):
    """A loop Numba cannot build (an operand type it refuses): NumPy broadcasts for ufunc ``cell[1]``
    from now on. Returns False."""
    cell[0] = False
    return False


_empty = np.empty
_WRAP = ("        t = _new(Tensor)\n        t._data = res\n        t._dtype = {dt}\n"
         "        t._meta = t._base = t._storage = t._vc = t._grad_fn = t._ameta = None\n"
         "        t._output_nr = 0\n        t._requires_grad = False\n")


def _kernel_call(op, ds, pvar, params_of) -> str:
    """The generated call of ``op``'s kernel on the arrays ``ds``: with dispatch's params, or a
    ``params_of`` method's (which names every keyword parameter of the kernel: passed by name, as a
    call with ``**params`` costs ~70 ns more), or none."""
    if pvar != "params":
        return f"op.kernel({ds})"
    if params_of is not None:
        import inspect  # noqa: PLC0415 (import time only)
        kws = [p.name for p in inspect.signature(op.kernel).parameters.values() if p.kind == p.KEYWORD_ONLY]
        return f"op.kernel({ds}{''.join(f', {k}=params[{k!r}]' for k in kws)})"
    return f"op.kernel({ds}, **params) if params else op.kernel({ds})"


def _generate(op, n, names=None, order=None, kws=(), opt=(), fallback=None, accept=None, params_of=None,
              public=False, var=()):
    """Source of one op's fast path: ``fast(args, params)`` for dispatch, or (``names`` given) a
    method ``(<names>, *, <kws>)`` falling back to ``fallback`` (with ``params_of``, a method
    ``(<names>, *<var>, **<var>)`` whose params come from ``params_of(<arrays>, <var>)``).

    The plan cache is keyed on the operand dtypes alone when they are all the same object (a 0-d
    operand only matters for promotion between operands of different dtypes), else on (dtype, 0-d)
    per operand; a pointwise plan may name the op's ufunc, called without the kernel's frame."""
    xs = [f"x{i}" for i in range(n)]
    pointwise = op.promotion != "none"
    if names is None:
        head = (f"def fast(args, params):\n    if len(args) != {n}:\n        return _general(op, args, params)\n"
                f"    {', '.join(xs)}{',' if n == 1 else ''} = args\n")
        fall = "return _general(op, args, params)"
        guard = "not ((m := _any_mode[0]) and (MODES.stack or _FAST_OFF[0]))"
        argtuple = "args"
    else:
        stars = "".join(f", {'**' if kw else '*'}{v}" for kw, v in var)  # *args, **kwargs as declared
        sig = ", ".join(names) + "".join(f", {k}={d!r}" for k, d in opt) + (
            "".join(f", {k}={d!r}" if i else f", *, {k}={d!r}" for i, (k, d) in enumerate(kws))) + stars
        xs = list(order)  # the method's own parameters, in the op's order
        head = f"def method({sig}):\n"
        fall = f"return fallback({', '.join(names)}" + "".join(f", {k}" for k, _ in opt) + \
            "".join(f", {k}={k}" for k, _ in kws) + stars + ")"
        conds = [f"{k} is None" if d is None else f"(type({k}) is {type(d).__name__} and {k} == {d!r})"
                 for k, d in list(opt) + list(kws)] + [f"not {v}" for kw, v in var if kw]
        # while a TorchFunctionMode is entered the fallback runs: it shows the mode the call
        guard = " and ".join(conds + ["not ((m := _any_mode[0]) and (MODES.stack or _FAST_OFF[0] "
                                      "or _FUNCTION_MODES.stack))"])
        argtuple = f"({', '.join(xs)}{',' if n == 1 else ''})"
    lines = [head, f"    if {guard}:\n"]
    flag = pointwise and n == 2  # s: a Python scalar operand (then 0-d flags cannot matter)
    for i, x in enumerate(xs):
        # r<i>: the input's requires_grad, or None for a Python scalar or None (what recording reads)
        first = i == 0
        lines.append(f"        t{i} = type({x})\n"
                     f"        if t{i} is Tensor or t{i} in FAST_TYPES:\n"
                     f"            d{i} = {x}._data\n"
                     f"            if d{i} is None:\n                {fall}\n"
                     f"            k{i} = {x}._dtype\n"
                     f"            r{i} = {x}._requires_grad\n"
                     + ("            s = False\n" if flag and first else "")
                     + f"        elif t{i} in _SCALAR_KINDS:\n            d{i} = {x}\n            k{i} = t{i}\n"
                     + f"            r{i} = None\n"
                     + ("            s = True\n" if flag else "")
                     + f"        elif {x} is None:\n            d{i} = k{i} = r{i} = None\n"
                     + ("            s = False\n" if flag and first else "")
                     + f"        else:\n            {fall}\n")
    grad = " or ".join(f"r{i}" for i in range(n))
    ds = ", ".join(f"d{i}" for i in range(n))
    if params_of is not None:  # the op's params from the method's *args (None: the fallback decides)
        rest = next(v for kw, v in var if not kw)
        lines.append(f"        try:\n            params = params_of({ds}, {rest})\n"
                     f"        except Exception:\n            {fall}\n"
                     f"        if params is None:\n            {fall}\n")
    # the params the kernel gets and nodes record: dispatch's, a method's params_of result, or none
    pvar = "params" if names is None or params_of is not None else "_NO_PARAMS"
    zs = [f"type(d{i}) is _ndarray and d{i}.ndim == 0" for i in range(n)]
    if n == 1:
        lines.append("        key = k0\n")
    elif n == 2:
        full = f"(k0, k1) if s else (k0, {zs[0]}, k1, {zs[1]})" if pointwise else "(k0, k1)"
        lines.append(f"        key = k0 if k0 is k1 else {full}\n")
    else:
        full = ", ".join(f"k{i}, {zs[i]}" if pointwise else f"k{i}" for i in range(n))
        lines.append(f"        key = ({full})\n")
    lines.append(f"        try:\n            plan = _plans[key]\n"
                 f"        except KeyError:\n"
                 f"            plan = _fill_plan(op, _plans, key, {argtuple}, accept)\n"
                 f"        if not plan:\n            {fall}\n")
    if pointwise:
        consts = [f"u{j}" for j in range(len(array_ufunc(op)[1]))]
        lines.append(f"        out_dt, onp, uf, casts, bk{''.join(', ' + c for c in consts)} = plan\n"
                     "        if casts is not None:\n")
        for i in range(n):
            lines.append(f"            if casts[{i}] is not None:\n                d{i} = d{i}.astype(casts[{i}])\n")
        kcall = _kernel_call(op, ds, pvar, params_of)
        # the ufunc's result already has the plan's dtype (float operands in the compute dtype); while
        # a mode is entered anywhere the kernel runs, so whatever observes kernels sees every call
        finish = f"return _finish(op, {argtuple}, {pvar}, res, out_dt, {grad})"
        # a NumPy scalar (from 0-d operands) becomes a 0-d array here; anything else goes to _finish
        def scalar(i):
            return (f"if type(res) is not _ndarray:\n{i}    if not isinstance(res, _generic):\n"
                    f"{i}        {finish}\n{i}    res = _asarray(res)\n")
        def ufunc_call(i):  # the ufunc on the operands, at indent ``i``
            return (f"{i}try:\n{i}    res = uf({', '.join([ds] + consts)})\n"
                    f"{i}except Exception:\n{i}    {fall}\n{i}" + scalar(i))
        lines.append(f"        if uf is not None and not m{' and not params' if pvar == 'params' else ''}:\n")
        if n == 2:
            # operands of different sizes (two tensors): a Numba loop when one is (1s, dims, 1s), run
            # inline (only the first operand's size is read up front: one attribute on the common path)
            lines.append(
                f"            if bk is not None and (z0 := d0.size) >= {_BROADCAST_MIN} and (z1 := d1.size) != z0 "
                "and (lp := bk[0] or _warm_loop(bk)) "
                "and not (_NO_LOOP and (d0.shape, d1.shape) in _NO_LOOP):\n"
                "                res = _empty(d0.shape if z0 > z1 else d1.shape, onp)\n"
                "                try:\n                    looped = lp(d0, d1, res) or _loop_refused(d0, d1)\n"
                "                except Exception:\n                    looped = _loop_broke(bk)\n"
                "                if not looped:\n" + ufunc_call(" " * 20) +
                "            else:\n" + ufunc_call(" " * 16))
        else:
            lines.append(ufunc_call(" " * 12))
        lines.append("        else:\n"
                     f"            try:\n                res = {kcall}\n"
                     f"            except Exception:\n                {fall}\n"
                     "            " + scalar("            ") +
                     "            rd = res.dtype\n"
                     "            if rd is not onp and rd != onp:\n"
                     "                res = res.astype(onp)\n")
        lines.append(_WRAP.format(dt="out_dt"))
    else:
        call = _kernel_call(op, ds, pvar, params_of)
        finish = f"return _finish(op, {argtuple}, {pvar}, res, None, {grad})"
        lines.append(f"        try:\n            res = {call}\n"
                     f"        except Exception:\n            {fall}\n"
                     f"        if type(res) is not _ndarray:\n"
                     f"            if not isinstance(res, _generic):\n"
                     f"                {finish}\n"
                     f"            res = _asarray(res)\n")
        # a view shares its input's root and version counter (what _wrap_out does, inline)
        lines.append(_WRAP.format(dt="_FROM_NP[res.dtype]") if not op.is_view else
                     f"        if type(d0) is not _ndarray:\n            {fall}\n"
                     f"        b = {xs[0]}._base\n"
                     f"        t = new_tensor(Tensor, res, _FROM_NP[res.dtype], None, {xs[0]} if b is None else b, "
                     f"None, {xs[0]}._vc or {xs[0]}._version_cell())\n")
    lines.append(fast_record_source(op, xs, argtuple, pvar, "        "))
    lines.append(f"        return t\n    {fall}\n")
    src = "".join(lines)
    src = "def make(op, _plans, accept, fallback, cls, params_of):\n" + "".join(
        "    " + line + "\n" for line in src.splitlines()) + f"    return {'fast' if names is None else 'method'}\n"
    if DEBUG >= 2:
        print(src)
    plans: dict = {}
    D.DEFAULT_DEPENDENT_CACHES.append(plans)
    local: dict = {}
    # this module's globals: kernels are reached from ember._dispatch, and Tensor is the live class
    exec(compile(src, f"<ember fast path of {op.name}>", "exec"), globals(), local)
    return local["make"](op, plans, accept, fallback, node_class_for(op) if op.backward is not None else None,
                         params_of)


_PLANS: dict = {}
D.DEFAULT_DEPENDENT_CACHES.append(_PLANS)  # int + 2.5 changes with set_default_dtype


def _plan(op, args):
    """(result dtype, NumPy dtype the kernel computes in) for a pointwise call, cached by operand kinds."""
    if len(args) == 2 and op.promote_args is None:
        a, b = args
        if isinstance(a, TensorBase):
            d = a._data
            ka = (a._dtype, (d.ndim if d is not None else len(a._meta[0])) == 0)
        else:
            ka = _key(a)
        if isinstance(b, TensorBase):
            d = b._data
            kb = (b._dtype, (d.ndim if d is not None else len(b._meta[0])) == 0)
        else:
            kb = _key(b)
        key = (op.promotion, ka, kb)
    elif len(args) == 1 and isinstance(args[0], TensorBase):
        key = (op.promotion, args[0]._dtype)
    else:
        key = None
    plan = _PLANS.get(key) if key is not None else None
    if plan is None:
        out_dt, cdt = result_dtype(op, args)
        pre = None
        if cdt in _LOW:  # round other operands to the low dtype first, as torch does, then compute in f32
            pre, cdt = cdt.np, _f32
        elif cdt is _C32 or any(isinstance(a, TensorBase) and a._dtype is _C32 for a in args):
            # complex32 operands decode to complex64 (_dtype_complex32); a complex32 result is
            # computed in complex64 from operands rounded to complex32 first
            pre = _C32 if cdt is _C32 or cdt is None else _C32_WIDE
            cdt = D.complex64 if pre is _C32 else cdt
        plan = (out_dt, cdt.np if cdt is not None else None, pre)
        if key is not None:
            _PLANS[key] = plan
    return plan


def _run_cpu(op, args, arrays, params):
    out_dt = None
    low = None
    kernel = op.kernel
    if op.promotion != "none":
        out_dt, cnp, pre = _plan(op, args)
        if pre is _C32 or pre is _C32_WIDE:  # plans are shared by ops: check the op on each call
            if pre is _C32:
                if op.name not in C32.POINTWISE:
                    _refuse_complex32(op, args, params, C32.pointwise_operands(arrays, op.promote_args, cnp, True))
                kernel = C32.pointwise_kernel(op)
            arrays = C32.pointwise_operands(arrays, op.promote_args, cnp, pre is _C32)
        elif cnp is not None:
            idx = op.promote_args
            for i in (range(len(arrays)) if idx is None else idx):
                x = arrays[i]
                if type(x) is _ndarray and x.dtype != cnp:
                    if pre is not None and x.dtype != pre:
                        x = x.astype(pre)
                    arrays[i] = x.astype(cnp)
    elif op.kind != "view" and params.get("dtype") is None:  # an explicit dtype (to_dtype) wins
        for a in args:
            if isinstance(a, TensorBase) and a._dtype in _NOT_FAST:
                if a._dtype is _C32 or any(isinstance(b, TensorBase) and b._dtype is _C32 for b in args):
                    # complex32: decode, run, round back, or torch's refusal
                    if op.name not in C32.OTHER and op.kind != "random":
                        _refuse_complex32(op, args, params, C32.decode_all(arrays))
                    kernel = C32.wrap_kernel(op, tuple(getattr(x, "_dtype", None) for x in args), params)
                    break
                low = a._dtype
                arrays = [x.astype(np.float32) if type(x) is _ndarray and x.dtype == low.np else x
                          for x in arrays]
                break
    try:
        res = kernel(*arrays, **params)
    except (SlowPath, ValueError, TypeError, IndexError, OverflowError, np.exceptions.AxisError,
            np.linalg.LinAlgError) as e:
        _explain_failure(op, args, params, e)
        raise
    if type(res) is _ndarray and op.simple_out:  # the common case, inlined (one frame less)
        if out_dt is not None:
            if res.dtype != out_dt.np:
                res = res.astype(out_dt.np) if out_dt is not _C32 else C32.encode(res)
            dt = out_dt
        else:
            if low is not None and res.dtype == _F32:
                res = res.astype(low.np)
            elif low is D.float16 and res.dtype == _C64:  # complex results of float16 are complex32
                res = C32.encode(res)
            dt = _FROM_NP[res.dtype]
        # _tensor_base.wrap's body, inlined: a call here costs ~0.07 us per op (the bench's dispatch
        # stage); tests/test_tensor_base.py checks that op outputs have every slot set
        t = _new(Tensor)
        t._data = res
        t._dtype = dt
        t._meta = t._base = t._storage = t._vc = t._grad_fn = t._ameta = None
        t._output_nr = 0
        t._requires_grad = False
        return t
    if op.kind == "foreach":  # a list of arrays, or None when the kernel wrote in place
        return None if res is None else [_wrap_out(op, r, args, None, None) for r in res]
    if op.num_outputs == 1:
        return _wrap_out(op, res, args, out_dt, low)
    return tuple(_wrap_out(op, r, args, out_dt, low) for r in res)


def _wrap_out(op, r, args, out_dt, low):
    if type(r) is not _ndarray:
        if isinstance(r, TensorBase):  # kernels of composite-like primitives may return Tensors
            return r
        r = np.asarray(r)
    if out_dt is not None:
        npdt = out_dt.np
        if r.dtype != npdt:
            r = r.astype(npdt) if out_dt is not _C32 else C32.encode(r)
    elif low is not None and r.dtype == np.float32:
        r = r.astype(low.np)
    elif low is D.float16 and r.dtype == _C64:
        r = C32.encode(r)
    dt = out_dt or _FROM_NP[r.dtype]
    if op.is_view:
        src = args[0]
        return new_tensor(Tensor, r, dt, base=src._base if src._base is not None else src,
                          vc=src._version_cell())
    return wrap(r, dt)


def _refuse_complex32(op, args, params, decoded):
    """An op torch's CPU build lacks for complex32: the op's own complex checks (its meta rule, then
    its kernel on the complex64 values) speak first, as torch checks before dispatching on the
    dtype; then torch's "not implemented" error."""
    if op.name in C32.ALL_COMPLEX_REFUSED:
        raise C32.refuse(op.name)
    try:
        _explain_failure(op, args, params, None)
    except NotImplementedError as e:
        if "meta" not in str(e).lower():  # data-dependent ops have no meta rule: not a dtype check
            raise
    try:
        op.kernel(*decoded, **params)
    except (NotImplementedError, RuntimeError):
        raise
    except Exception:  # noqa: BLE001 (NumPy's own complaints are not torch's checks)
        pass
    raise C32.refuse(op.name)


def _explain_failure(op, args, params, err):
    """NumPy raised: run the meta rule on the slow path so the user sees torch's error."""
    rule = op.meta_rule or _FAMILY_META.get(op.kind)
    if rule is not None:
        rule(op, *args, **params) if op.meta_rule is None else rule(*args, **params)


# ------------------------------------------------------------------------------ meta
def _pointwise_meta(op, *args, **params):
    shapes = [_shape(a) for a in args if isinstance(a, TensorBase)]
    shape = broadcast_shapes(*shapes)
    out_dt, _ = result_dtype(op, args)
    if out_dt is None:
        out_dt = next(a._dtype for a in args if isinstance(a, TensorBase))
    return TensorMeta(shape, out_dt)


_FAMILY_META = {"pointwise": _pointwise_meta}


def _run_meta(op, args, params):
    for a in flat_tensors(args):
        if a._data is not None and a._data.ndim != 0:
            raise RuntimeError(f"{op.name}: expected all tensors to be on the same device, but found "
                               f"at least two devices, meta and cpu!")
    if op.meta_rule is not None:
        m = op.meta_rule(*args, **params)
    elif op.kind in _FAMILY_META:
        m = _FAMILY_META[op.kind](op, *args, **params)
    else:
        raise NotImplementedError(f"{op.name}: no meta rule, so it cannot run on the 'meta' device")
    if op.kind == "foreach":
        return None if m is None else [_wrap_meta_out(op, x, args) for x in m]
    if isinstance(m, TensorMeta):
        return _wrap_meta_out(op, m, args)
    return tuple(_wrap_meta_out(op, x, args) for x in m)


def _wrap_meta_out(op, m, args):
    t = wrap_meta(m.shape, m.dtype, m.strides, m.offset)
    if op.is_view:
        src = args[0]
        t._base = src._base if src._base is not None else src
        t._vc = src._version_cell()
    return t
