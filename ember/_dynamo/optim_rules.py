"""Captured optimizer steps: ``opt.step()`` inside a compiled region becomes graph nodes.

The rule reads the optimizer's param groups, gradients and state through guarded sources, traces
one step of the algorithm's own single-tensor update (``_raw.CaptureOps``: the step counter stays a
0-d tensor) with ``make_fx`` on fake tensors, and splices that graph into the frame's graph. The
parameters, gradients and state tensors are graph inputs written back with ``copy_`` at the end
(make_fx's input mutations); each group's ``lr`` is a float graph input, so a scheduler writing
``param_groups[i]['lr']`` does not recompile. Every other option is guarded as a constant.

Example:
    >>> import ember
    >>> from ember._dynamo.testing import CompileCounter
    >>> w = ember.ones(2, requires_grad=True)
    >>> opt = ember.optim.SGD([w], lr=0.5)
    >>> cnt = CompileCounter()
    >>> step = ember.compile(opt.step, backend=cnt)
    >>> (w * w).sum().backward(); step(); w
    tensor([0., 0.], requires_grad=True)
    >>> cnt.frame_count
    1
"""
from __future__ import annotations

from .. import _creation as C
from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from ..fx.experimental.proxy_tensor import make_fx
from ..optim import optimizer as _opt_mod
from ..optim.optimizer import Optimizer
from . import graph_ops
from .exc import Unsupported
from .variables import ConstVT, SymFloatVT, UserObjectVT

_OPTION_TYPES = (int, float, bool, str, type(None))


def is_optimizer_step(fn_vt, obj_vt) -> bool:
    """Whether calling ``fn_vt`` on ``obj_vt`` is an optimizer's (hook-wrapped) ``step``."""
    fn = getattr(fn_vt, "value", None) or getattr(fn_vt, "fn", None)
    return isinstance(obj_vt, UserObjectVT) and isinstance(obj_vt.obj, Optimizer) and \
        getattr(fn, "hooked", False)


def is_optimizer_zero_grad(fn_vt, obj_vt) -> bool:
    fn = getattr(fn_vt, "value", None)
    return isinstance(obj_vt, UserObjectVT) and isinstance(obj_vt.obj, Optimizer) and \
        fn is Optimizer.zero_grad


def capture_zero_grad(tx, opt_vt, args, kwargs):
    """``opt.zero_grad(set_to_none)`` as one graph call (gradients are not graph values: the
    parameters' ``.grad`` read later in the same frame must not be relied on)."""
    if opt_vt.source is None:
        raise Unsupported("an optimizer without a source")
    values = [tx.const(a) for a in args] + [tx.const(v) for v in kwargs.values()]
    set_to_none = values[0] if values else True
    opt = opt_vt.obj
    tx.output.guards.identity(f"type({opt_vt.source}).zero_grad", Optimizer.zero_grad)

    def zero_grad():
        opt.zero_grad(set_to_none)
    zero_grad.__name__ = zero_grad.__qualname__ = "optimizer_zero_grad"
    zero_grad.__module__ = "ember_baked"
    # run after the graph, as a side effect (an AOT backend would trace a graph call away); the
    # frame's graph does not read gradients before its break at ``backward()``
    tx.output.side_effects.append(("call", zero_grad, None, None))
    return ConstVT(None)


def _option_ok(v) -> bool:
    if isinstance(v, tuple):
        return all(_option_ok(i) for i in v)
    return type(v) in _OPTION_TYPES


def capture_step(tx, opt_vt, args, kwargs):
    """Record ``opt.step()`` (no closure, no step hooks) into ``tx``'s graph; returns None's tracker."""
    opt, src = opt_vt.obj, opt_vt.source
    og, g = tx.output, tx.output.guards
    if src is None:
        raise Unsupported("an optimizer without a source")
    if any(not (v.is_const() and v.as_python_constant() is None)
           for v in list(args) + list(kwargs.values())):
        raise Unsupported("optimizer.step(closure) inside a captured region")
    if type(opt)._update is Optimizer._update or opt.defaults.get("differentiable"):
        raise Unsupported(f"{type(opt).__name__}.step has no capturable single-tensor update")
    pre = (_opt_mod._global_optimizer_pre_hooks, opt._optimizer_step_pre_hooks)
    if any(pre):
        raise Unsupported("optimizer step pre-hooks inside a captured region")
    g.add(f"len({g._const(pre[0])}) == 0 and len({src}._optimizer_step_pre_hooks) == 0")
    # post-hooks (an lr scheduler's step counter) run after the update, as graph calls of their own
    post = list(opt._optimizer_step_post_hooks.values()) + \
        list(_opt_mod._global_optimizer_post_hooks.values())
    g.add(f"list({src}._optimizer_step_post_hooks.values()) + "
          f"list({g._const(_opt_mod._global_optimizer_post_hooks)}.values()) == {g._const(post)}")
    g.add(f"len({src}.param_groups) == {len(opt.param_groups)}")
    work = []  # (group index, group, [(p, grad, state)])
    for gi, group in enumerate(opt.param_groups):
        gsrc = f"{src}.param_groups[{gi}]"
        if group.get("fused") or not isinstance(group["lr"], float):
            raise Unsupported("a fused optimizer or a Tensor lr inside a captured region")
        g.add(f"type({gsrc}['lr']) is float and list({gsrc}) == {list(group)!r}", kind="const")
        for k, v in group.items():
            if k in ("params", "lr", "param_names"):
                continue
            if not _option_ok(v):
                raise Unsupported(f"optimizer option {k}={v!r} inside a captured region")
            g.add(f"{gsrc}[{k!r}] == {v!r}", kind="const")
        g.add(f"len({gsrc}['params']) == {len(group['params'])}")
        items = []
        for pi, p in enumerate(group["params"]):
            psrc = f"{gsrc}['params'][{pi}]"
            g.identity(psrc, p)
            if p.grad is None:
                g.add(f"{psrc}.grad is None")
                continue
            st = opt.state[p]
            if len(st) == 0 and opt._has_state(group):
                opt._init_state(p, st, group)  # what this step does eagerly first (zeros, counters)
            _init_missing_buffers(opt, p, st, group)
            g.add(f"list({src}.state.get({psrc}, ())) == {list(st)!r}", kind="const")
            items.append((pi, p, st))
        work.append((gi, group, items))
    out = _trace_and_splice(tx, opt, src, work)
    for hook in post:  # after the graph's update, as side effects (see capture_zero_grad)
        tx.output.side_effects.append(("call", _post_hook_call(hook, opt), None, None))
    return out


def _post_hook_call(hook, opt):
    """A graph target running ``hook(opt, (opt,), {})`` (the hook and optimizer built in)."""
    def run_hook():
        hook(opt, (opt,), {})
    run_hook.__name__ = run_hook.__qualname__ = f"optimizer_post_hook_{getattr(hook, '__name__', 'hook')}"
    run_hook.__module__ = "ember_baked"
    return run_hook


def _init_missing_buffers(opt, p, st, group) -> None:
    # SGD creates its momentum buffer (= the gradient) at the first step; with dampening 0 a zero
    # buffer gives the same first step (0 * momentum + grad), so the graph can own it from the start
    if type(opt).__name__ == "SGD" and group.get("momentum", 0) != 0 and "momentum_buffer" not in st:
        if group.get("dampening", 0) != 0:
            raise Unsupported("SGD's first step with dampening inside a captured region")
        st["momentum_buffer"] = C.zeros_like(p)


def _trace_and_splice(tx, opt, src, work):
    og, graph = tx.output, tx.output.graph
    flat_vts, flat_vals, layout = [], [], []
    for gi, group, items in work:
        if not items:
            continue
        lr_vt = og.wrap(group["lr"], f"{src}.param_groups[{gi}]['lr']")
        if not isinstance(lr_vt, SymFloatVT):
            raise Unsupported("optimizer lr is not a float input")
        entry = []
        for pi, p, st in items:
            psrc = f"{src}.param_groups[{gi}]['params'][{pi}]"
            vts = [og.wrap(p, psrc), og.wrap(p.grad, f"{psrc}.grad")]
            vts += [og.wrap(st[k], f"{src}.state[{psrc}][{k!r}]") for k in st]
            entry.append((p, list(st), len(flat_vts), len(vts)))
            flat_vts += vts
            flat_vals += [p, p.grad] + [st[k] for k in st]
        layout.append((group, lr_vt, entry))

    def step_fn(*tensors):
        lrs, tensors = tensors[:len(layout)], tensors[len(layout):]
        for (group, _, entry), lr in zip(layout, lrs):
            g2 = dict(group, lr=lr)
            for p, keys, start, n in entry:
                t = tensors[start:start + n]
                opt._update(t[0], t[1], dict(zip(keys, t[2:])), g2)

    lr_examples = [C.tensor(group["lr"], dtype=D.float64) for group, _, _ in layout]
    with no_grad():
        gm = make_fx(step_fn, tracing_mode="fake")(*lr_examples, *flat_vals)
    lr_nodes = [graph.call_function(graph_ops.scalar_tensor, (lr_vt.node,)) for _, lr_vt, _ in layout]
    graph.call_function(graph_ops.set_grad_enabled, (False,))
    env = dict(zip([n for n in gm.graph.nodes if n.op == "placeholder"],
                   lr_nodes + [vt.node for vt in flat_vts]))
    for node in gm.graph.nodes:
        if node.op == "placeholder" or node.op == "output":
            continue
        if node.op == "get_attr":
            raise Unsupported("a constant tensor in the optimizer's update")
        env[node] = graph.node_copy(node, lambda n: env[n])
    from ..autograd import grad_mode
    graph.call_function(graph_ops.set_grad_enabled, (grad_mode.STATE.enabled,))
    return ConstVT(None)
