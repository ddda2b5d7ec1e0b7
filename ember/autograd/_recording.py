"""Recording the autograd graph during the forward pass (layer L2): the last step of a dispatch.

``record(op, args, params, outs)`` makes the op's Node: one edge per input (``edge_of``), the values
its derivative asked for (read from the derivative's signature by the registry's ``save_plan``),
and the outputs' ``grad_fn``. ``record_inplace`` does the same for ``x.op_(...)`` and then makes ``x``
the output; an in-place write into a view rewrites its base's history with a ``CopySlices`` node.
Leaves get their ``AccumulateGrad`` from ``grad_accumulator``. Nothing here imports Tensor: it calls
methods on the tensors it is given.

Example:
    >>> import ember
    >>> x = ember.ones(3, requires_grad=True)
    >>> y = x * 2
    >>> edge_of(y)[0].name(), edge_of(x)[0].name()
    ('MulBackward0', 'torch::autograd::AccumulateGrad')
"""
from __future__ import annotations


from .._primitives._registry import REGISTRY
from .._tensor_base import AutogradMeta, TensorBase, shape_of
from .grad_mode import LEAN, STATE
from .._storage import VersionCounter
from .graph import LOCAL, SPECIAL_RECORDING, AccumulateGrad, Node, SavedGroup, SavedTensor, anomaly_trace
from .graph import unchecked_alias
from ._node_codegen import node_class_for
from .graph import _seq as _SEQ

_new = object.__new__
_init_node = Node.__init__  # the Node constructor on a bare instance (CopySlices; record inlines it)

__all__ = ["record", "saved_input_read", "fast_record_source", "fast_record_names", "recorder_for", "record_inplace", "edge_of", "grad_accumulator", "copy_slices",
           "CopySlices", "mark_multi_view", "check_multi_view_write"]


# ------------------------------------------------------------------------------ edges
def edge_of(t):
    """The graph edge a tensor's gradient flows into: its grad_fn, or its leaf's AccumulateGrad."""
    fn = t._grad_fn
    if fn is not None:
        vv = fn.view_version
        if vv is not None and t._base is not None and vv != t._vc.value:
            fn = _regenerate_view_fn(t, fn)
        return (fn, t._output_nr)
    if t._requires_grad:
        am = t._ameta
        edge = am.acc_edge if am is not None else None
        if edge is None:
            grad_accumulator(t)
            edge = t._ameta.acc_edge
        return edge
    return (None, 0)


def grad_accumulator(t):
    """The leaf's AccumulateGrad, made once and kept by the tensor (the node refers back weakly, so
    there is no tensor <-> node cycle)."""
    am = t._ameta
    if am is None:
        am = t._ameta = AutogradMeta()
    edge = am.acc_edge
    if edge is None:
        edge = am.acc_edge = (AccumulateGrad(t), 0)
    return edge[0]


def _replay_view(t, geom, view_dtype):
    """The view of geometry ``geom`` (size, stride, offset in the view's own elements) of ``t``, a
    tensor laid out like the view's base. as_strided cannot change dtype, so a complex view of a real
    base (view_as_complex) is replayed on the (real, imag) pairs, and a real view of a complex base
    (view_as_real) on the base's real reinterpretation."""
    size, stride, offset = geom
    if view_dtype.is_complex and not t._dtype.is_complex:
        pairs = t.as_strided(tuple(size) + (2,), tuple(2 * s for s in stride) + (1,), 2 * offset)
        return pairs._op(REGISTRY["view_as_complex"])
    if t._dtype.is_complex and not view_dtype.is_complex:
        return t._op(REGISTRY["view_as_real"]).as_strided(size, stride, offset)
    return t.as_strided(size, stride, offset)


def _alias_of_base(view, base):
    """``base.as_strided(<view's geometry>)`` recorded with grad on: the view's history as seen from
    its base's current history."""
    prev = STATE.enabled
    STATE.enabled = True
    try:
        return _replay_view(base, view._geometry_in(base), view._dtype)
    finally:
        STATE.enabled = prev


# ------------------------------------------------------------------------------ multi-output views
_MULTI_VIEW_RULE = ("This view is the output of a function that returns multiple views. Such functions do "
                    "not allow the output views to be modified inplace. You should replace the inplace "
                    "operation by an out-of-place one.")


def mark_multi_view(outs, name):
    """Tag the outputs of a function returning several views (torch's MULTI_OUTPUT_NODE creation);
    ``name`` None: views of such a view (torch then names the view's own grad_fn)."""
    for k, o in enumerate(outs):
        am = o._ameta
        if am is None:
            am = o._ameta = AutogradMeta()
        am.multi_view = (name, k) if name is not None else (None, None)


def _multi_view_of(t):
    am = t._ameta
    return am.multi_view if am is not None else None


def _which_output(t, mv):
    if mv[0] is not None:
        return f"Output {mv[1]} of {mv[0]}"
    name = t._grad_fn.name()
    return f"Output {t._output_nr} of {name[:name.rfind('Backward')] if 'Backward' in name else name}"


def check_multi_view_write(t):
    """Raise torch's error for an in-place write (recorded by autograd) into such a view."""
    mv = _multi_view_of(t)
    if mv is None or t._base is None:
        return
    who = (f"{_which_output(t, mv)} is a view and is being modified inplace." if t._grad_fn is not None
           else "A view was created in no_grad mode and is being modified inplace with grad mode enabled.")
    raise RuntimeError(f"{who} {_MULTI_VIEW_RULE}")


def _regenerate_view_fn(t, fn):
    """The base was written in place after this view was made: the view's history becomes
    "as_strided of the base's current history" (torch regenerates a view's grad_fn the same way)."""
    base = t._base
    if not base._requires_grad:
        return fn
    mv = _multi_view_of(t)
    if mv is not None:  # torch cannot regenerate these either
        raise RuntimeError(f"{_which_output(t, mv)} is a view and its base or another view of its base "
                           f"has been modified inplace. {_MULTI_VIEW_RULE}")
    alias = _alias_of_base(t, base)
    t._grad_fn, t._output_nr = alias._grad_fn, 0
    return alias._grad_fn


# ------------------------------------------------------------------------------ record
def record(op, args, params, outs, inplace_self_saved=None):
    """Create the op's Node: edges to every input, saved values, and outputs' grad_fn."""
    cls = op.node_class or node_class_for(op)
    edges, metas = [], []
    for a in args:
        if isinstance(a, TensorBase):
            if a._requires_grad:
                fn = a._grad_fn
                if fn is not None and fn.view_version is None:
                    edges.append((fn, a._output_nr))
                else:
                    edges.append(edge_of(a))
                d = a._data
                metas.append((d.shape if d is not None else a._meta[0], a._dtype))
            else:
                edges.append((None, 0))
                metas.append(None)
        elif type(a) is list or type(a) is tuple:
            for x in a:
                if isinstance(x, TensorBase) and x._requires_grad:
                    edges.append(edge_of(x))
                    metas.append((shape_of(x), x._dtype))
                else:
                    edges.append((None, 0))
                    metas.append(None)
        else:
            edges.append((None, 0))
            metas.append(None)
    # Node.__init__'s body, inlined: a call here costs ~0.1 us per recorded op (the bench's record
    # stage); tests/test_tensor_base.py checks that recorded nodes have every slot set
    node = _new(cls)
    node.next_functions = tuple(edges)
    node._seq = next(_SEQ)
    special = SPECIAL_RECORDING[0]
    node._extra = anomaly_trace() if special else None
    node.input_meta = metas
    if op.takes_params:
        node.params = params
    single = op.num_outputs == 1
    outs_t = (outs,) if single else outs
    if not single:
        node.out_meta = [(shape_of(o), o._dtype) for o in outs_t]
    if special and LOCAL.saved_hooks:
        node._saved, node._versions = _saved_objects(op, args, outs_t, inplace_self_saved), None
    else:  # lean: the values themselves plus the versions of tensors (graph.PrimNode._unpack)
        saved, versions = [], []
        readers = op.save_readers
        for k, (kind, i) in enumerate(op.save_plan):
            if kind == 0:  # an input
                v = args[i]
                if i == 0 and inplace_self_saved is not None:
                    v = inplace_self_saved
                if isinstance(v, TensorBase):
                    if readers is not None and not _read_by_grad(readers[k], args):
                        # no gradient that is needed reads it: its array, without a version check
                        saved.append((v._data, v._dtype, None, v._meta))
                        versions.append(None)
                        continue
                    vc = v._vc
                    versions.append(vc.value if vc is not None else 0)
                elif type(v) is list or type(v) is tuple:
                    v = SavedGroup([SavedTensor(x) if isinstance(x, TensorBase) else None for x in v])
                    versions.append(None)
                else:
                    versions.append(None)
                saved.append(v)
            elif kind == 1:  # one output (``out`` is output 0, ``out<k>`` output k)
                o = outs_t[i]
                vc = o._vc
                if vc is None:
                    vc = o._vc = VersionCounter()
                saved.append((o._data, o._dtype, vc, o._meta))
                versions.append(vc.value)
            else:  # every output
                saved.append(SavedGroup([SavedTensor(o, True, k) for k, o in enumerate(outs_t)]))
                versions.append(None)
        node._saved, node._versions = saved, versions
    if op.is_view:  # lets edge_of notice a later in-place write to the base (or another view)
        node.view_version = outs_t[0]._vc.value
        src = args[0]._ameta if isinstance(args[0], TensorBase) else None
        if src is not None and src.multi_view is not None:  # a view of a multi-output view is one too
            mark_multi_view(outs_t, None)
    if single:
        diff = op.differentiable_outputs
        if outs._dtype.category >= 2 and (diff is None or 0 in diff):
            outs._grad_fn = node
            outs._output_nr = 0
            outs._requires_grad = True
        return node
    diff = op.differentiable_outputs
    for i, o in enumerate(outs_t):
        if (diff is None or i in diff) and o._dtype.category >= 2:
            o._grad_fn = node
            o._output_nr = i
            o._requires_grad = True
    return node


def _read_by_grad(by, args) -> bool:
    """Whether an input whose gradient reads a saved value (``by``: input indices, None: every
    input) requires grad."""
    if by is None:
        return True
    for j in by:
        a = args[j]
        if isinstance(a, TensorBase):
            if a._requires_grad:
                return True
        elif (type(a) is list or type(a) is tuple) and any(
                isinstance(x, TensorBase) and x._requires_grad for x in a):
            return True
    return False


def saved_input_read(op, i: int, args) -> bool:
    """Whether ``record(op, args, ...)`` would keep input ``i`` for a gradient that is needed (so
    ``x.op_(...)`` must save a copy of ``x``'s old value first)."""
    readers = op.save_readers
    for k, (kind, j) in enumerate(op.save_plan):
        if kind == 0 and j == i and (readers is None or _read_by_grad(readers[k], args)):
            return True
    return False


def _saved_objects(op, args, outs_t, inplace_self_saved) -> list:
    """What the derivative asked for as ``SavedTensor`` objects (saved-tensor hooks are active); an
    input no needed gradient reads is not packed (as in torch): a fresh alias of it, unchecked."""
    saved = []
    readers = op.save_readers
    for k, (kind, i) in enumerate(op.save_plan):
        if kind == 0:
            v = args[i]
            if i == 0 and inplace_self_saved is not None:
                v = inplace_self_saved
            if isinstance(v, TensorBase):
                if readers is not None and not _read_by_grad(readers[k], args):
                    saved.append(_Value(unchecked_alias((v._data, v._dtype, None, v._meta))))
                else:
                    saved.append(SavedTensor(v))
            elif type(v) is list or type(v) is tuple:
                saved.append(SavedGroup([SavedTensor(x) if isinstance(x, TensorBase) else None
                                         for x in v]))
            else:
                saved.append(_Value(v))
        elif kind == 1:
            saved.append(SavedTensor(outs_t[i], True, i))
        else:
            saved.append(SavedGroup([SavedTensor(o, True, k) for k, o in enumerate(outs_t)]))
    return saved


class _Value:
    """A non-tensor value a derivative asked for, beside ``SavedTensor`` objects."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def unpack(self, node):
        return self.value


def fast_record_source(op, xs, argtuple: str, params: str, indent: str) -> str:
    """Source recording ``op``'s Node, for dispatch's generated fast path (``_dispatch._generate``)
    to inline after it made the output ``t``: the node's one constructor for this op, written out
    from its save plan, with no loop, no call and no thread-local read.

    The fast path's locals it reads: per input ``i`` (named ``xs[i]``) ``d<i>`` (the array), ``k<i>``
    (the dtype) and ``r<i>`` (requires_grad for a Tensor, None for a Python scalar or None), ``t``.
    It makes ``node`` when an input requires grad and ``grad_mode.LEAN`` holds (grad mode on in
    every thread, anomaly mode and saved-tensor hooks never used: one global read instead of the
    thread's state); otherwise, or when the op's derivative was registered again after the fast path
    was generated (a new node class), the general ``record`` runs if this thread's grad mode is on.
    A fresh output saved for backward gets no version counter: ``Tensor._version_cell`` hands the
    node the counter if one is ever made (``PrimNode.adopt_counter``). A saved input that, by the
    derivative's ``reads``, no input requiring grad reads is kept as ``(array, dtype, None, meta)``
    with version None (unchecked); which inputs' ``r<i>`` decide that is written in here. Names it needs come from
    ``fast_record_names``; ``cls`` is the op's node class."""
    n = len(xs)
    any_grad = " or ".join(f"r{i}" for i in range(n))
    i1, i2, i3 = indent + "    ", indent + "        ", indent + "            "
    if op.backward is None:  # no derivative (yet): the general path decides at each call
        return (f"{indent}if ({any_grad}) and STATE.enabled and op.backward is not None:\n"
                f"{i1}record(op, {argtuple}, {params}, t)\n")
    lines = [f"{indent}if {any_grad}:\n{i1}if LEAN[0] and op.node_class is cls:\n{i2}node = _new(cls)\n"]
    for i, x in enumerate(xs):
        # a leaf's edge read straight from its AccumulateGrad (edge_of's common cases, inlined)
        edge = (f"fn = {x}._grad_fn\nif fn is None:\n    am = {x}._ameta\n"
                f"    e{i} = am.acc_edge if am is not None else None\n"
                f"    if e{i} is None:\n        e{i} = edge_of({x})\n"
                f"elif fn.view_version is None:\n    e{i} = (fn, {x}._output_nr)\n"
                f"else:\n    e{i} = edge_of({x})\nq{i} = (d{i}.shape, k{i})\n")
        if n == 1:  # the one input requires grad, or nothing is recorded
            lines.append("".join(f"{i2}{line}\n" for line in edge.splitlines()))
        else:
            lines.append(f"{i2}if r{i}:\n" + "".join(f"{i3}{line}\n" for line in edge.splitlines())
                         + f"{i2}else:\n{i3}e{i} = _NO_EDGE\n{i3}q{i} = None\n")
    lines.append(f"{i2}node.next_functions = ({''.join(f'e{i}, ' for i in range(n))})\n"
                 f"{i2}node.input_meta = ({''.join(f'q{i}, ' for i in range(n))})\n"
                 f"{i2}node._seq = next(_SEQ)\n{i2}node._extra = None\n"
                 + (f"{i2}node.params = {params}\n" if op.takes_params else ""))
    saved, versions = [], []
    readers = op.save_readers or (None,) * len(op.save_plan)
    for k, ((kind, i), by) in enumerate(zip(op.save_plan, readers)):
        # ``by`` (the inputs whose gradient reads this saved input, decided here once per op): when
        # none of them requires grad, the input's array is kept without a version check
        unchecked = f"(({xs[i]})._data, k{i}, None, ({xs[i]})._meta)"
        if kind == 0 and by is not None and (n == 1 or not by):
            # one input (it requires grad) or no gradient reads it: known now
            if by:
                lines.append(f"{i2}vc = {xs[i]}._vc\n{i2}v{k} = vc.value if vc is not None else 0\n")
                saved.append(xs[i])
            elif n == 1:
                lines.append(f"{i2}v{k} = None\n")
                saved.append(unchecked)
            else:
                lines.append(f"{i2}if r{i} is not None:\n{i3}s{k} = {unchecked}\n"
                             f"{i2}else:\n{i3}s{k} = {xs[i]}\n{i2}v{k} = None\n")
                saved.append(f"s{k}")
        elif kind == 0 and by is not None:  # read by some inputs' gradients: checked if one needs it
            lines.append(f"{i2}if r{i} is None:\n{i3}v{k} = None\n{i3}s{k} = {xs[i]}\n"
                         f"{i2}elif {' or '.join(f'r{j}' for j in by)}:\n{i3}vc = {xs[i]}._vc\n"
                         f"{i3}v{k} = vc.value if vc is not None else 0\n{i3}s{k} = {xs[i]}\n"
                         f"{i2}else:\n{i3}v{k} = None\n{i3}s{k} = {unchecked}\n")
            saved.append(f"s{k}")
        elif kind == 0:  # an input: the tensor itself and its version, or a Python scalar / None
            if n == 1:
                lines.append(f"{i2}vc = {xs[i]}._vc\n{i2}v{k} = vc.value if vc is not None else 0\n")
            else:
                lines.append(f"{i2}if r{i} is not None:\n{i3}vc = {xs[i]}._vc\n"
                             f"{i3}v{k} = vc.value if vc is not None else 0\n{i2}else:\n{i3}v{k} = None\n")
            saved.append(xs[i])
        elif kind == 1:  # the one output, as (array, dtype, version counter, meta): no cycle
            if op.is_view:  # shares its input's counter
                lines.append(f"{i2}ovc = t._vc\n{i2}if ovc is None:\n{i3}ovc = t._vc = VersionCounter()\n"
                             f"{i2}v{k} = ovc.value\n")
                saved.append("(t._data, t._dtype, ovc, t._meta)")
            else:  # a fresh output has no counter yet: the node adopts it if one is ever made
                lines.append(f"{i2}v{k} = 0\n")  # (PrimNode.adopt_counter, from Tensor._version_cell)
                saved.append("(t._data, t._dtype, None, t._meta)")
        else:  # ``outs`` of a single-output op
            lines.append(f"{i2}v{k} = None\n")
            saved.append("SavedGroup([SavedTensor(t, True, 0)])")
        versions.append(f"v{k}")
    lines.append(f"{i2}node._saved = ({''.join(s + ', ' for s in saved)})\n"
                 f"{i2}node._versions = ({''.join(v + ', ' for v in versions)})\n")
    if op.is_view:  # lets edge_of notice a later in-place write to the base (or another view)
        lines.append(f"{i2}node.view_version = t._vc.value\n"
                     f"{i2}am = {xs[0]}._ameta\n"  # a view of a multi-output view is one too
                     f"{i2}if am is not None and am.multi_view is not None:\n"
                     f"{i3}mark_multi_view((t,), None)\n")
    diff = op.differentiable_outputs
    if diff is None or 0 in diff:
        if op.promotion in _FLOAT_KEEPING and op.promote_args is None:  # a float input: float result
            lines.append(f"{i2}t._grad_fn = node\n{i2}t._requires_grad = True\n")
        else:
            lines.append(f"{i2}if t._dtype.category >= 2:\n{i3}t._grad_fn = node\n{i3}t._requires_grad = True\n")
    lines.append(f"{i1}elif STATE.enabled:\n{i2}record(op, {argtuple}, {params}, t)\n")
    return "".join(lines)


# pointwise promotions whose result is floating (or complex) whenever an operand is
_FLOAT_KEEPING = ("default", "int_to_float", "complex_to_float")


def fast_record_names() -> dict:
    """The names ``fast_record_source``'s code reads, for the fast path's namespace."""
    return {"record": record, "STATE": STATE, "LEAN": LEAN, "_new": _new,
            "edge_of": edge_of, "_NO_EDGE": (None, 0), "_SEQ": _SEQ, "VersionCounter": VersionCounter,
            "SavedGroup": SavedGroup, "SavedTensor": SavedTensor, "mark_multi_view": mark_multi_view}


def recorder_for(op, n: int = 1):
    """``rec(x0, ..., x<n-1>, params, t)``: ``fast_record_source`` as a function, for code outside
    dispatch's generated fast paths that makes an op's output ``t`` from Tensor inputs itself
    (indexing's views); generated once per op and arity."""
    rec = op.recorder.get(n) if op.recorder is not None else None
    if rec is not None:  # (a derivative registered again clears ``op.recorder``)
        return rec
    xs = [f"x{i}" for i in range(n)]
    reads = "".join(f"        r{i} = x{i}._requires_grad\n        d{i} = x{i}._data\n        k{i} = x{i}._dtype\n"
                    for i in range(n))
    src = (f"def make(op, cls):\n    def rec({', '.join(xs)}, params, t):\n{reads}"
           + fast_record_source(op, xs, f"({', '.join(xs)},)", "params", "        ")
           + "    return rec\n")
    ns = fast_record_names()
    exec(compile(src, f"<ember recorder of {op.name}>", "exec"), ns)
    rec = ns["make"](op, node_class_for(op) if op.backward is not None else None)
    if op.recorder is None:
        op.recorder = {}
    op.recorder[n] = rec
    return rec


def record_inplace(op, self, args, params, res, saved_self):
    """``self.op_(*args)`` computed ``res`` out of place and wrote it into self: record the op, then
    make ``self`` its output (for a view, rewrite the base's history: torch's CopySlices)."""
    node = record(op, (self,) + args, params, res, inplace_self_saved=saved_self)
    res_fn = res._grad_fn
    if res_fn is None:
        return
    # outputs the node saved should now be self, so later in-place writes to self are detected
    if node._versions is None:
        for i, s in enumerate(node._saved):
            if type(s) is SavedTensor and s.is_output:
                node._saved[i] = SavedTensor(self, True, s.output_nr)
    else:
        for i, (kind, _) in enumerate(op.save_plan):
            if kind == 1:
                vc = self._version_cell()
                node._saved[i] = (self._data, self._dtype, vc, self._meta)
                node._versions[i] = vc.value
    base = self._base
    if base is None:
        self._grad_fn, self._output_nr, self._requires_grad = res_fn, 0, True
        return
    copy_slices(base, self, res)


def copy_slices(base, view, res):
    """Rewrite ``base``'s history after ``view`` (a view of base) was overwritten by ``res``."""
    cs = _new(CopySlices)
    _init_node(cs, (edge_of(base) if base._requires_grad else (None, 0), edge_of(res)))
    cs.base_shape, cs.base_stride, cs.base_dtype = shape_of(base), base.stride(), base._dtype
    cs.view_geom = view._geometry_in(base)
    cs.view_meta = (shape_of(view), view._dtype)
    base._grad_fn, base._output_nr, base._requires_grad = cs, 0, True
    # the view's own history is now "as_strided of the new base"
    alias = _alias_of_base(view, base)
    view._grad_fn, view._output_nr, view._requires_grad = alias._grad_fn, 0, True


class CopySlices(Node):
    """Backward of an in-place write into a view: the base's grad outside the view, the new values'
    grad inside it."""

    __slots__ = ("base_shape", "base_stride", "base_dtype", "view_geom", "view_meta")

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, grads):
        g = grads[0]
        vdt = self.view_meta[1]
        full = g.new_empty_strided(self.base_shape, self.base_stride)
        full.copy_(g)
        g_view = _replay_view(full, self.view_geom, vdt).clone()
        g_base = full.clone()
        _replay_view(g_base, self.view_geom, vdt).zero_()
        return (g_base, g_view)
