"""AOT autograd: trace forward and backward ahead of time, run them as one autograd Function (L7).

``aot_function(fn, fw_compiler, bw_compiler)`` traces ``fn`` on meta tensors with ``make_fx``'s
builder (in-place writes functionalised), then runs ember's own autograd engine on those tensors
(``autograd.grad`` with tangent placeholders), so every derivative records into the same *joint*
graph ``(*primals, *tangents) -> (*mutated inputs, *outputs, *gradients)``. A partitioner splits it
into a forward graph (outputs + saved values) and a backward graph (saved values + tangents); the
compilers turn each into a callable, and a runtime ``autograd.Function`` runs the pair, writes the
new values of mutated inputs back (``copy_``) and maps gradients to the inputs. With grad off, or no
input requiring grad, a forward-only *inference* graph is traced instead. Random ops stay in the
forward graph (never recomputed), so backward reads the very mask forward drew.

Graphs are cached per input metadata (shape, stride, dtype, requires_grad) and grad mode.

Example:
    >>> import ember
    >>> f = aot_function(lambda x, w: (x @ w).tanh().sum(), nop)
    >>> x, w = ember.randn(2, 3), ember.randn(3, 4, requires_grad=True)
    >>> f(x, w).backward()
    >>> w.grad.shape
    torch.Size([3, 4])
"""
from __future__ import annotations

import gc

from ..autograd import grad as _autograd_grad
from ..autograd.function import Function
from ..autograd.grad_mode import STATE, enable_grad, no_grad
from ..fx.experimental.proxy_tensor import _fake_input, _GraphBuilder
from ..fx.graph_module import GraphModule
from ..nn.modules.module import Module
from ..nn.utils.stateless import functional_call
from .._creation import zeros
from .._tensor_base import TensorBase
from ..utils import _pytree as pytree
from .partitioners import default_partition

__all__ = ["aot_function", "aot_module", "aot_module_simplified", "nop", "make_boxed_func",
           "make_boxed_compiler", "create_joint_graph"]


# ------------------------------------------------------------------------------ compiler helpers
def make_boxed_func(f):
    """``f(*args)`` as a boxed callable: it takes one list of arguments (``_boxed_call = True``)."""
    def g(args):
        return f(*args)
    g._boxed_call = True
    return g


def make_boxed_compiler(compiler):
    """A compiler whose result is boxed (see ``make_boxed_func``)."""
    def boxed(gm, example_inputs):
        out = compiler(gm, example_inputs)
        return out if getattr(out, "_boxed_call", False) else make_boxed_func(out)
    return boxed


def nop(gm, example_inputs):
    """The identity compiler: run the GraphModule's generated code."""
    return gm


def _call(compiled, args):
    if getattr(compiled, "_boxed_call", False):
        return compiled(list(args))
    return compiled(*args)


# ------------------------------------------------------------------------------ tracing
class _Traced:
    """One compiled entry: the graphs, the compiled callables and how outputs map back."""

    __slots__ = ("fw", "bw", "fw_gm", "bw_gm", "mutated", "n_out", "out_spec", "diff_outs",
                 "grad_inputs", "inference", "aliases")


def _input_aliases(primals, flat_out) -> dict:
    """{output position: (input position, size, stride, offset)} for outputs that are views of (or
    are) an input: the runtime regenerates them as views outside the graph."""
    where = {id(p): i for i, p in enumerate(primals) if isinstance(p, TensorBase)}
    out = {}
    for k, o in enumerate(flat_out):
        if not isinstance(o, TensorBase):
            continue
        src = o if id(o) in where else o._base
        if src is not None and id(src) in where and src._base is None:
            out[k] = (where[id(src)], tuple(o.shape), o.stride(), o.storage_offset())
    return out


def _run_traced(builder, fn, primals: list, info, placeholder_name):
    """Inside ``builder``: a placeholder per primal, ``fn`` run on them; fills ``info``'s output spec,
    count and mutated inputs; returns (flat outputs, the builder's mutated inputs)."""
    for i, p in enumerate(primals):
        builder.placeholder(placeholder_name(i), p)
    flat_out, info.out_spec = pytree.tree_flatten(fn(*primals))
    mutated = builder.mutated_inputs()
    # the builder counts tensor inputs only: positions among all primals (floats, ints too)
    tensor_pos = [i for i, p in enumerate(primals) if isinstance(p, TensorBase)]
    info.mutated = [tensor_pos[i] for i, _, _ in mutated]
    info.n_out = len(flat_out)
    return flat_out, mutated


def create_joint_graph(fn, flat_args: list, decompositions=None):
    """(joint GraphModule, info) for ``fn(*flat_args)`` traced on meta tensors.

    info: ``mutated`` (positions of inputs written in place), ``n_out``, ``out_spec``,
    ``diff_outs`` (outputs that get tangents), ``grad_inputs`` (inputs that get gradients).
    """
    builder = _GraphBuilder(True, decompositions)
    primals = [_fake_input(a) for a in flat_args]
    info = _Traced()
    with builder, enable_grad():
        flat_out, mutated = _run_traced(builder, fn, primals, info, lambda i: f"primals_{i + 1}")
        info.aliases = _input_aliases(primals, flat_out)
        grad_inputs = [i for i, p in enumerate(primals)
                       if isinstance(p, TensorBase) and p._requires_grad]
        diff = [i for i, o in enumerate(flat_out) if isinstance(o, TensorBase) and o._requires_grad]
        info.grad_inputs, info.diff_outs = grad_inputs, diff
        fwd_values = [node for _, _, node in mutated] + [builder.output_arg(o) for o in flat_out]
        grads_nodes = []
        if grad_inputs and diff:
            tangents = [_fake_input(flat_out[i].detach()) for i in diff]
            last = builder.graph.find_nodes(op="placeholder")[-1]
            for j, t in enumerate(tangents):
                with builder.graph.inserting_after(last):
                    last = builder.placeholder(f"tangents_{j + 1}", t)
            grads = _autograd_grad([flat_out[i] for i in diff], [primals[i] for i in grad_inputs],
                                   tangents, allow_unused=True)
            grads_nodes = [builder.node_of(g) if g is not None else None for g in grads]
        builder.graph.output(tuple(fwd_values) + tuple(grads_nodes))
    builder.graph.eliminate_dead_code()
    joint = GraphModule(dict(builder.consts), builder.graph, "JointModule")
    return joint, info, primals


def _trace_inference(fn, flat_args, decompositions):
    builder = _GraphBuilder(True, decompositions)
    primals = [_fake_input(a) for a in flat_args]
    for p in primals:
        if isinstance(p, TensorBase):
            p._requires_grad = False
    info = _Traced()
    with builder, no_grad():
        flat_out, mutated = _run_traced(builder, fn, primals, info, lambda i: f"arg{i}_1")
        result = [node for _, _, node in mutated] + [builder.output_arg(o) for o in flat_out]
    gm = builder.graph_module(tuple(result), "InferenceModule")
    return gm, info, primals


# ------------------------------------------------------------------------------ runtime
def _apply_mutations(entry, args, new_values) -> None:
    with no_grad():
        for i, v in zip(entry.mutated, new_values):
            args[i].copy_(v)


def _run_inference(entry, args):
    outs = _call(entry.fw, args)
    m = len(entry.mutated)
    _apply_mutations(entry, args, outs[:m])
    return pytree.tree_unflatten(list(outs[m:m + entry.n_out]), entry.out_spec)


def _make_function(entry):
    m, n = len(entry.mutated), entry.n_out
    diff = set(entry.diff_outs)

    class CompiledFunction(Function):
        @staticmethod
        def forward(ctx, *args):
            outs = _call(entry.fw, args)
            _apply_mutations(entry, args, outs[:m])
            user = list(outs[m:m + n])
            ctx.save_for_backward(*outs[m + n:])
            ctx.mark_non_differentiable(*[o for i, o in enumerate(user)
                                          if i not in diff and isinstance(o, TensorBase)])
            return tuple(user)

        @staticmethod
        def backward(ctx, *grads):
            tangents = []
            for i in entry.diff_outs:
                g = grads[i]
                if g is None:  # materialise an unused output's gradient
                    shape, dtype = ctx._out_meta[i][0], ctx._out_meta[i][1]
                    g = zeros(shape, dtype=dtype)
                tangents.append(g)
            res = _call(entry.bw, list(ctx.saved_tensors) + tangents)
            out = [None] * len(ctx.needs_input_grad)
            for i, g in zip(entry.grad_inputs, res):
                out[i] = g
            return tuple(out)

    return CompiledFunction


def _compile(*args):
    """Trace, partition and compile with the garbage collector paused: compiling allocates many
    long-lived objects, and the collections they trigger cost up to ~15% of a warm compile (a
    full collection walks every Numba and ember object in the process)."""
    if not gc.isenabled():
        return _compile_graphs(*args)
    gc.disable()
    try:
        return _compile_graphs(*args)
    finally:
        gc.enable()


def _compile_graphs(fn, flat_args, fw_compiler, bw_compiler, inference_compiler, partition_fn,
                    decompositions):
    needs_grad = STATE.enabled and any(isinstance(a, TensorBase) and a._requires_grad
                                       for a in flat_args)
    if not needs_grad:
        gm, info, fakes = _trace_inference(fn, flat_args, decompositions)
        info.fw_gm, info.bw_gm, info.bw = gm, None, None
        info.fw = (inference_compiler or fw_compiler)(gm, fakes)
        info.inference = True
        return info
    joint, info, fakes = create_joint_graph(fn, flat_args, decompositions)
    if not info.grad_inputs or not info.diff_outs:  # nothing differentiable comes out
        gm, info, fakes = _trace_inference(fn, flat_args, decompositions)
        info.fw_gm, info.bw_gm, info.bw = gm, None, None
        info.fw = (inference_compiler or fw_compiler)(gm, fakes)
        info.inference = True
        return info
    num_fwd = len(info.mutated) + info.n_out
    fw_gm, bw_gm = partition_fn(joint, fakes, num_fwd_outputs=num_fwd, num_primals=len(flat_args))
    info.fw_gm, info.bw_gm = fw_gm, bw_gm
    info.fw = fw_compiler(fw_gm, fakes)
    bw_inputs = [n.meta.get("val") for n in bw_gm.graph.find_nodes(op="placeholder")]
    info.bw = (bw_compiler or fw_compiler)(bw_gm, bw_inputs)
    info.inference = False
    return info


def _mutated_inputs_alias(entry, flat) -> bool:
    """Whether an input the graph writes shares memory with another input (traced as distinct)."""
    roots = {}
    for i, a in enumerate(flat):
        if isinstance(a, TensorBase):
            r = a._base if a._base is not None else a
            roots.setdefault(id(r), []).append(i)
    return any(len(roots[id(flat[i]._base if flat[i]._base is not None else flat[i])]) > 1
               for i in entry.mutated)


def _meta_key(a):
    if isinstance(a, TensorBase):
        return (tuple(a.shape), a.stride(), a._dtype, a._requires_grad, a.device.type)
    try:
        hash(a)
        return (type(a), a)
    except TypeError:
        return (type(a), id(a))


def aot_function(fn, fw_compiler, bw_compiler=None, partition_fn=default_partition,
                 decompositions: dict | None = None, num_params_buffers: int = 0,
                 keep_inference_input_mutations: bool = False, inference_compiler=None, *,
                 dynamic: bool = False, enable_log: bool = True):
    """Compile ``fn`` ahead of time: returns ``compiled(*args, **kwargs)`` equal to ``fn``.

    Args:
        fn: tensors (pytrees) in, a pytree of tensors out.
        fw_compiler: ``(GraphModule, example_inputs) -> callable`` for the forward graph.
        bw_compiler: the same for the backward graph (default: ``fw_compiler``).
        partition_fn: splits the joint graph (``default_partition``).
        decompositions: ``{op: fn}`` applied while tracing.
        inference_compiler: for the forward-only graph (default: ``fw_compiler``).
    """
    cache: dict = {}
    compiled_fns: dict = {}

    def compiled(*args, **kwargs):
        flat, spec = pytree.tree_flatten((args, kwargs))
        key = (STATE.enabled, spec, tuple(_meta_key(a) for a in flat))
        entry = cache.get(key)
        if entry is None:
            def flat_fn(*flat_args):
                a, k = pytree.tree_unflatten(list(flat_args), spec)
                return fn(*a, **k)
            entry = cache[key] = _compile(flat_fn, flat, fw_compiler, bw_compiler,
                                          inference_compiler, partition_fn, decompositions)
        if entry.mutated and _mutated_inputs_alias(entry, flat):
            return fn(*args, **kwargs)  # the graph assumed distinct inputs: run eagerly
        if entry.inference:
            return _run_inference(entry, flat)
        cf = compiled_fns.get(key)
        if cf is None:
            cf = compiled_fns[key] = _make_function(entry)
        outs = list(cf.apply(*flat))
        for k, (i, size, stride, offset) in entry.aliases.items():
            if flat[i]._base is None and flat[i].storage_offset() == 0:
                outs[k] = flat[i].as_strided(size, stride, offset)
        return pytree.tree_unflatten(outs, entry.out_spec)

    compiled._cache = cache
    return compiled


# ------------------------------------------------------------------------------ modules
def _named_state(mod: Module) -> tuple:
    names, values = [], []
    for n, p in mod.named_parameters():
        names.append(n)
        values.append(p)
    for n, b in mod.named_buffers():
        names.append(n)
        values.append(b)
    return names, values


def _module_fn(mod: Module, names: list):
    k = len(names)

    def fn(*flat, **kwargs):
        return functional_call(mod, dict(zip(names, flat[:k])), tuple(flat[k:]), kwargs)
    return fn


class AOTModule(Module):
    """``mod`` with its forward (and backward) compiled by ``aot_function``."""

    def __init__(self, mod: Module, **aot_kwargs) -> None:
        super().__init__()
        self.orig_module = mod
        self._aot_kwargs = aot_kwargs
        self._compiled: dict = {}

    def forward(self, *args, **kwargs):
        mod = self.orig_module
        names, values = _named_state(mod)
        key = (tuple(names), tuple(m.training for m in mod.modules()))
        fn = self._compiled.get(key)
        if fn is None:
            fn = self._compiled[key] = aot_function(_module_fn(mod, names), **self._aot_kwargs)
        return fn(*values, *args, **kwargs)


def aot_module(mod: Module, *args, **kwargs) -> AOTModule:
    """``mod`` compiled by ``aot_function`` (same arguments: fw_compiler, bw_compiler, ...);
    parameters and buffers become graph inputs, so gradients reach them and buffer updates
    (BatchNorm running statistics) are written back."""
    names = ("fw_compiler", "bw_compiler", "partition_fn", "decompositions")
    for name, a in zip(names, args):
        kwargs[name] = a
    return AOTModule(mod, **kwargs)


def aot_module_simplified(mod: Module, args, fw_compiler, bw_compiler=None,
                          partition_fn=default_partition, decompositions: dict | None = None,
                          keep_inference_input_mutations: bool = False, inference_compiler=None,
                          cudagraphs=None):
    """The backend-facing form: ``forward(*runtime_args)`` running ``mod`` (a GraphModule) with
    its parameters and buffers lifted to graph inputs."""
    names, _ = _named_state(mod)
    compiled = aot_function(_module_fn(mod, names), fw_compiler, bw_compiler, partition_fn,
                            decompositions, inference_compiler=inference_compiler)

    def forward(*runtime_args):
        _, values = _named_state(mod)
        return compiled(*values, *runtime_args)

    forward.zero_grad = mod.zero_grad
    forward.named_parameters = mod.named_parameters
    forward.named_buffers = mod.named_buffers
    return forward
