"""The autograd graph (layer L2): Nodes, saved tensors with versions, hooks. No Tensor import.

A Node is one backward function: it receives one gradient per output of its forward op and returns one
gradient per edge in ``next_functions`` (an edge is ``(node, output_nr)`` or ``(None, 0)``). Leaves
requiring grad end in an ``AccumulateGrad`` node holding the leaf.

Example:
    >>> import ember
    >>> x = ember.ones(2, requires_grad=True)
    >>> (x * 2).sum().grad_fn.next_functions[0][0].name()
    'MulBackward0'
"""
from __future__ import annotations

import itertools
import operator
import sys
import re
import threading
import traceback
import weakref

import numpy as _np

from .. import _dtype as D
from .._primitives._registry import TENSOR_K
from .._tensor_base import _TENSOR_CLASS, new_tensor, wrap
from ..utils.hooks import RemovableHandle, add_hook
from .grad_mode import SPECIAL_RECORDING, STATE, note_special_recording

__all__ = ["Node", "PrimNode", "AccumulateGrad", "SavedTensor", "SavedGroup", "saved_tensors_hooks",
           "disable_saved_tensors_hooks"]

_seq = itertools.count()
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


class _Local(threading.local):
    def __init__(self):
        self.saved_hooks = []      # stack of (pack, unpack)
        self.saved_hooks_disabled = None
        self.anomaly = False
        self.anomaly_check_nan = True


LOCAL = _Local()
# ``SPECIAL_RECORDING`` (grad_mode): set for good the first time any thread enables anomaly mode or
# pushes saved-tensor hooks; until then recording skips its two thread-local reads (``LOCAL.anomaly``,
# ``LOCAL.saved_hooks``)


class _NodeExtra:
    """A node's rarely used fields, made on first need (recording stores one None instead of six)."""

    __slots__ = ("pre_hooks", "hooks", "tensor_pre_hooks", "retain_hooks", "metadata", "trace")

    def __init__(self):
        self.pre_hooks = self.hooks = self.tensor_pre_hooks = self.retain_hooks = None
        self.metadata = self.trace = None


def _extra_field(name: str) -> property:
    read = operator.attrgetter(name)

    def get(self):
        x = self._extra
        return None if x is None else read(x)

    def put(self, value):
        x = self._extra
        if x is None:
            if value is None:
                return
            x = self._extra = _NodeExtra()
        setattr(x, name, value)
    return property(get, put)


def anomaly_trace():
    """The forward traceback a node keeps in anomaly mode (None otherwise)."""
    if not LOCAL.anomaly:
        return None
    x = _NodeExtra()
    x.trace = traceback.format_stack()[:-3]
    return x

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after "
          "they have already been freed). Saved intermediate values of the graph are freed when you call "
          ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
          "graph a second time or if you need to access saved tensors after calling backward.")


class Node:
    """One backward function in the graph. ``name()`` is torch's (``MulBackward0``)."""

    # ``_extra``: None, or a ``_NodeExtra`` holding hooks, metadata and the anomaly-mode traceback
    # (read through the properties below); the engine's "any hooks" check is ``_extra is not None``
    __slots__ = ("next_functions", "_seq", "_extra", "__weakref__")

    # the version of the output's family when a view op recorded this node (so ``edge_of`` notices a
    # later in-place write to the base): a slot of view ops' node classes, None for every other node
    view_version = None

    def __init__(self, next_functions=()):
        """The one constructor of a Node's own fields (recording calls it on a bare instance)."""
        self.next_functions = next_functions
        self._seq = next(_seq)
        self._extra = anomaly_trace() if SPECIAL_RECORDING[0] else None

    _pre_hooks = _extra_field("pre_hooks")
    _hooks = _extra_field("hooks")
    _tensor_pre_hooks = _extra_field("tensor_pre_hooks")
    _retain_hooks = _extra_field("retain_hooks")
    _metadata = _extra_field("metadata")
    _trace = _extra_field("trace")

    _n_out = 1  # outputs of the forward op (a class attribute: multi-output node classes set theirs)

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def _sequence_nr(self) -> int:
        return self._seq

    def adopt_counter(self, nr: int, vc) -> None:
        """A version counter was made for output ``nr`` (see ``PrimNode.adopt_counter``)."""

    def apply(self, grads: list) -> tuple:
        raise NotImplementedError

    def raw(self, grads: list) -> list:
        """``apply`` in the engine's raw mode: gradients as NumPy arrays (or Tensors the array form
        cannot hold) in and out. Nodes with an array form override it."""
        return raw_via_tensors(self, grads)

    def release(self) -> None:
        """Free saved tensors (after a backward without ``retain_graph``)."""

    # -- hooks -----------------------------------------------------------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        return add_hook(self, "_hooks", fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        return add_hook(self, "_pre_hooks", fn)

    def _register_tensor_hook(self, output_nr: int, fn, retain: bool = False) -> RemovableHandle:
        """A hook of the tensor that is output ``output_nr`` of this node (``Tensor.register_hook``)."""
        return add_hook(self, "_retain_hooks" if retain else "_tensor_pre_hooks", (output_nr, fn))


_NO_PARAMS: dict = {}  # never written: nodes and derivatives only read params


class PrimNode(Node):
    """The backward of a registered primitive: calls ``op.backward`` and fits grads to the inputs.

    Saved values are kept lean (``_recording.record``): one entry per name in ``op.save_plan`` in
    ``_saved`` (an input tensor itself, a non-tensor value, or an output as ``(array, dtype, version
    counter, meta)`` so no output -> node -> output cycle exists) and the version each tensor had in
    ``_versions``; an input no needed gradient reads as ``(array, dtype, None, meta)`` with version
    None (``unchecked_alias`` unpacks it). Only while saved-tensor hooks are active are ``SavedTensor`` objects made
    (``_versions`` is then None).

    Each op has its own subclass (``_node_codegen.node_class_for``) holding ``op`` as a class
    attribute; only multi-output ops' classes have an ``out_meta`` slot (the outputs' (shape, dtype))
    and only view ops' a ``view_version`` slot."""

    __slots__ = ("_saved", "_versions", "input_meta")

    op = None  # the primitive (a class attribute of each op's node class)
    out_meta = None  # single-output ops; multi-output ops' classes have a slot
    params = _NO_PARAMS  # ops without keyword params; the others' classes have a slot

    @property
    def _n_out(self):
        # per node: an op's output count may vary between calls (rnn_split_steps: one per time step);
        # single-output ops' node classes shadow this with the class attribute 1
        meta = self.out_meta
        return 1 if meta is None else len(meta)

    @property
    def saved(self):
        """The saved values as objects with ``unpack(node)`` (None once freed)."""
        if self._saved is None or self._versions is None:
            return self._saved
        return [_SavedEntry(k) for k in range(len(self._saved))]

    def _unpack(self) -> list:
        """The derivative's saved arguments, checking no saved tensor was modified in place."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(_FREED)
        versions = self._versions
        if versions is None:
            return [s.unpack(self) for s in saved]
        out = []
        for (kind, i), item, v in zip(self.op.save_plan, saved, versions):
            if kind == 0:
                if v is not None:  # an input tensor
                    vc = item._vc
                    if vc is not None and vc.value != v:
                        raise RuntimeError(_modified_message(item, item._grad_fn, item._output_nr,
                                                             vc.value, v))
                elif type(item) is tuple:  # read by no needed gradient: unchecked
                    item = unchecked_alias(item)
                elif type(item) is SavedGroup:
                    item = item.unpack(self)
                out.append(item)
            elif kind == 1:
                out.append(self._output(item, v, i))
            else:
                out.append(item.unpack(self))
        return out

    def _output(self, item, version, nr):
        data, dtype, vc, meta = item
        t = new_tensor(_TENSOR_CLASS[0], data, dtype, meta, vc=vc)
        if vc is not None and vc.value != version:  # None: no counter was ever made, so no write
            raise RuntimeError(_modified_message(t, self, nr, vc.value, version))
        if STATE.enabled:
            t._grad_fn, t._output_nr, t._requires_grad = self, nr, True
        return t

    def apply(self, grads):
        op = self.op
        args = self._unpack()
        if op.num_outputs == 1:
            g = grads[0]
        else:
            # outputs that are not differentiable (indices, statistics) never receive a gradient
            # and derivatives never read theirs: None, not a tensor of zeros
            diff = op.differentiable_outputs
            g = tuple(gr if gr is not None else None if diff is not None and k not in diff
                      else zeros_like_meta(m, grads) for k, (gr, m) in enumerate(zip(grads, self.out_meta)))
        bp = op.backward_params
        params = self.params
        if bp and len(params) < len(bp):
            params = {**op.param_defaults, **params}
        if op.backward_shapes or op.backward_needs or op.backward_k:
            kw = dict(params) if bp is None else {k: params[k] for k in bp}
            for k, i in op.backward_shapes:
                kw[k] = self.input_meta[i][0] if self.input_meta[i] is not None else None
            if op.backward_needs:
                kw["needs_input_grad"] = tuple(m is not None for m in self.input_meta)
            if op.backward_k:
                kw["K"] = TENSOR_K
            res = op.backward(g, *args, **kw)
        elif bp is None:
            res = op.backward(g, *args, **params)
        elif bp:
            res = op.backward(g, *args, **{k: params[k] for k in bp})
        else:
            res = op.backward(g, *args)
        if type(res) is not tuple:
            res = (res,)
        out = []
        for r, meta in zip(res, self.input_meta):
            if r is None or meta is None:
                out.append(None)
                continue
            shape, dt = meta
            d = r._data
            if (d.shape if d is not None else r._meta[0]) != shape:
                r = r.sum_to_size(shape)
            if r._dtype is not dt:
                r = r.real.to(dt) if (r._dtype.is_complex and not dt.is_complex) else r.to(dt)
            out.append(r)
        return out

    def release(self):
        self._saved = None

    def adopt_counter(self, nr: int, vc) -> None:
        """Output ``nr`` was saved without a version counter (it had none) and one was just made
        for it (``Tensor._version_cell``): keep it, so later in-place writes are detected."""
        saved = self._saved
        if saved is None or self._versions is None:
            return
        for k, (kind, i) in enumerate(self.op.save_plan):
            if kind == 1 and i == nr and saved[k][2] is None:
                data, dtype, _, meta = saved[k]
                saved = saved[:k] + ((data, dtype, vc, meta),) + saved[k + 1:]
        self._saved = saved


def unchecked_alias(item):
    """A Tensor over a saved input kept as ``(array, dtype, None, meta)`` because no gradient that
    is needed reads it (``OpDef.save_readers``): its own (absent) version counter, so no check."""
    data, dtype, _, meta = item
    return new_tensor(_TENSOR_CLASS[0], data, dtype, meta)


class _SavedEntry:
    """``node.saved[k]`` of a lean node: ``unpack(node)`` gives the k-th saved argument."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    def unpack(self, node):
        return node._unpack()[self.k]


class SavedGroup:
    """Saved tensors of a list argument (cat's inputs) or of every output: unpacked as a tuple."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items

    def unpack(self, node):
        return tuple(s.unpack(node) if s is not None else None for s in self.items)


def zeros_like_meta(meta, grads):
    """A zero gradient for an output that received none (multi-output ops)."""
    shape, dt = meta
    ref = next(g for g in grads if g is not None)
    return ref.new_zeros(shape, dtype=dt)


# ---------------------------------------------------------------------------- raw (array) backward
_ndarray = _np.ndarray
_RAW_DTYPES = {_np.dtype(_np.float32): D.float32, _np.dtype(_np.float64): D.float64}


def _unwrap(t):
    """A gradient as the engine's raw mode carries it: the array of a plain cpu Tensor, else as is."""
    if t is not None and type(t) is _TENSOR_CLASS[0] and type(t._data) is _ndarray:
        return t._data
    return t


def as_tensor_grad(g):
    """The inverse of ``_unwrap``: an array becomes a fresh Tensor over it."""
    return wrap(g) if type(g) is _ndarray else g


def raw_via_tensors(node, grads) -> list:
    """``node.raw`` for nodes without an array form: run ``apply`` on Tensors around the arrays."""
    outs = node.apply([wrap(g) if type(g) is _ndarray else wrap(_np.asarray(g)) if isinstance(g, _np.generic)
                       else g for g in grads])
    return [_unwrap(o) for o in outs]


def add_grads(a, b):
    """Sum of two gradients for one output: arrays of one dtype add directly; anything else as
    Tensors (torch's promotion), given back in the form the engine carries."""
    if type(a) is _ndarray and type(b) is _ndarray and a.dtype == b.dtype:
        s = a + b
        return s if type(s) is _ndarray else _np.asarray(s)  # 0-d + 0-d gives a NumPy scalar
    if type(a) is _ndarray or type(b) is _ndarray:
        return _unwrap(as_tensor_grad(a) + as_tensor_grad(b))
    return a + b


class AccumulateGrad(Node):
    """Accumulates into ``variable.grad``: in place into an existing grad unless ``create_graph``."""

    __slots__ = ("_variable",)

    def __init__(self, variable):
        Node.__init__(self, ())
        self._seq = float("inf")  # torch runs these as soon as they are ready
        self._variable = weakref.ref(variable)  # the leaf owns this node; no cycle back to it

    @property
    def variable(self):
        return self._variable()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grads):
        # the leaf's tensor hooks already ran in the engine (autograd.grad captures after them)
        var = self._variable()
        g = grads[0]
        if g is None or var is None:
            return ()
        am = var._ameta
        exclusive = _exclusive(g)  # not inside the call: a pushed argument is one more reference
        accumulate_into(var, g, exclusive)
        if am is not None and am.post_acc_hooks:
            for fn in list(am.post_acc_hooks.values()):
                fn(var)
        return ()

    def raw(self, grads):
        """``apply`` for an array gradient: ``.grad`` takes the array when nobody else holds it (as
        ``apply`` takes a Tensor's buffer), else a copy; an existing ``.grad`` is added to in place."""
        g = grads[0]
        var = self._variable()
        if g is None or var is None:
            return ()
        d = var._data
        if type(g) is not _ndarray or d is None or g.shape != d.shape:
            return raw_via_tensors(self, grads)
        exclusive = _exclusive_array(g)
        am = var._ameta
        old = am.grad if am is not None else None
        if old is None:
            if not (exclusive and g.dtype == d.dtype):
                g = _np.array(g, copy=True, order="K")  # Tensor._detached_copy
            var._set_grad_unchecked(wrap(g))
        else:
            od = old._data
            if od is not None:
                _np.add(od, g, out=od, casting="unsafe")  # Tensor._accumulate_
            old._version_cell().value += 1
        if am is None:
            am = var._ameta
        if am.post_acc_hooks:
            for fn in list(am.post_acc_hooks.values()):
                fn(var)
        return ()


def _exclusive(g, measure: bool = False):
    """Whether nobody but the engine can see ``g``'s memory, so ``.grad`` may take it without a copy
    (torch steals the buffer on the same condition, checked by use count). ``measure``: return the
    reference counts seen here instead (how ``_ENGINE_REFS`` is found)."""
    d = g._data
    if d is None or g._base is not None or d.base is not None:
        return False
    n_grad, n_data = sys.getrefcount(g), sys.getrefcount(d)
    if measure:
        return n_grad, n_data
    return n_grad <= _ENGINE_REFS[0] and n_data <= _ENGINE_REFS[1]


def _measure_engine_refs() -> tuple:
    """The reference counts ``_exclusive`` sees for a gradient only the engine holds (the node's input
    buffer and ``AccumulateGrad.apply``'s local), measured once on a stand-in: how CPython counts
    argument and local references differs between versions, so the threshold is not a constant."""
    class Grad:
        __slots__ = ("_data", "_base")

    class Array:
        __slots__ = ("base",)

    g = Grad()
    g._data, g._base = Array(), None
    g._data.base = None
    buf = [g]
    del g

    def apply(grads):  # shaped like AccumulateGrad.apply: a local, then the check
        g = grads[0]
        return _exclusive(g, measure=True)
    return apply(buf)


_ENGINE_REFS = _measure_engine_refs()


def _exclusive_array(g, measure: bool = False):
    """``_exclusive`` for a gradient the engine carries as an array (``AccumulateGrad.raw``)."""
    if g.base is not None:
        return False
    n = sys.getrefcount(g)
    return n if measure else n <= _RAW_ENGINE_REFS


def _measure_raw_engine_refs() -> int:
    buf = [_np.empty(1)]

    def raw(grads):  # shaped like AccumulateGrad.raw: a local, then the check
        g = grads[0]
        return _exclusive_array(g, measure=True)
    return raw(buf)


_RAW_ENGINE_REFS = _measure_raw_engine_refs()


def accumulate_into(var, g, exclusive: bool = False) -> None:
    """``var.grad += g`` with torch's rules (fresh buffer first time; graph kept with create_graph)."""
    create_graph = STATE.enabled
    old = var.grad
    if g.shape != var.shape:
        g = g.sum_to_size(var.shape) if g.dim() >= var.dim() else g.expand(var.shape)
        exclusive = False
    if old is None:
        if create_graph:
            var._set_grad_unchecked(g)
        elif exclusive and g._dtype is var._dtype:
            var._set_grad_unchecked(g.detach())
        else:
            var._set_grad_unchecked(g._detached_copy())
    elif create_graph:
        var._set_grad_unchecked(old + g)
    else:
        old._accumulate_(g)


# ---------------------------------------------------------------------------- saved tensors
class SavedTensor:
    """A tensor saved for backward with the version it had; unpacking checks it was not modified."""

    __slots__ = ("data", "version", "counter", "is_output", "output_nr", "unpack_hook", "grad_fn_name")

    def __init__(self, t, is_output: bool = False, output_nr: int = 0):
        self.is_output = is_output
        self.output_nr = output_nr
        hooks = LOCAL.saved_hooks if SPECIAL_RECORDING[0] else None
        if hooks:
            pack, unpack = hooks[-1]
            self.data = pack(t)
            self.unpack_hook = unpack
            self.counter = None
            return
        self.unpack_hook = None
        counter = t._vc
        if counter is None:
            counter = t._version_cell()  # (a saved output's node adopts it)
        self.counter = counter
        self.version = counter.value
        # an output is saved without its grad_fn so output -> node -> saved output is no cycle
        self.data = t.detach() if is_output else t

    def unpack(self, node):
        if self.unpack_hook is not None:
            t = self.unpack_hook(self.data)
            if not hasattr(t, "_grad_fn"):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                                f"result of type {type(t).__name__}")
        else:
            t = self.data
            if self.counter.value != self.version:
                fn = node if self.is_output else t._grad_fn
                nr = self.output_nr if self.is_output else t._output_nr
                raise RuntimeError(_modified_message(t, fn, nr, self.counter.value, self.version))
        if self.is_output and STATE.enabled:
            return t._output_alias(node, self.output_nr)
        return t


def _modified_message(t, fn, nr, current, version) -> str:
    """torch's error for a saved tensor ``t`` (output ``nr`` of ``fn``) written in place."""
    where = ""
    if fn is not None:
        where = f", which is output {nr} of {_BACKWARD_SUFFIX.sub('', fn.name())},"
    hint = ("the backtrace further above shows the operation that failed to compute its gradient. "
            "The variable in question was changed in there or anywhere later. Good luck!"
            if LOCAL.anomaly else  # (anomaly mode printed the forward traceback)
            "enable anomaly detection to find the operation that failed to compute its gradient, "
            "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return ("one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [{t._type_string()} {list(t.shape)}]{where} is at version "
            f"{current}; expected version {version} instead. Hint: {hint}")


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor)`` runs when a tensor is saved for backward, ``unpack_hook``
    when backward reads it (e.g. offloading or recomputation)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if LOCAL.saved_hooks_disabled is not None:
            raise RuntimeError(LOCAL.saved_hooks_disabled)
        note_special_recording()
        LOCAL.saved_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        LOCAL.saved_hooks.pop()


class disable_saved_tensors_hooks:
    """Inside, registering saved-tensor hooks raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message: str):
        self.msg = error_message

    def __enter__(self):
        self.prev = LOCAL.saved_hooks_disabled
        LOCAL.saved_hooks_disabled = self.msg

    def __exit__(self, *exc):
        LOCAL.saved_hooks_disabled = self.prev
