"""The backward engine (layer L2): runs Nodes in dependency order without recursion.

Ready nodes run highest sequence number first (the most recently created forward op), as in torch;
``AccumulateGrad`` nodes run as soon as they are ready. The engine never imports Tensor: it calls
methods on the gradients it is given.
"""
from __future__ import annotations

import heapq
import threading
import warnings

from .grad_mode import STATE
from .graph import LOCAL, AccumulateGrad, accumulate_into

__all__ = ["run_backward", "queue_callback"]


class _Local(threading.local):
    def __init__(self):
        self.callbacks = []  # one list per running backward (nested backward in a hook is allowed)


_TLS = _Local()


def queue_callback(fn) -> None:
    """Run ``fn()`` when the current backward pass finishes (torch's ``queue_callback``)."""
    if not _TLS.callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _TLS.callbacks[-1].append(fn)


def _n_outputs(node) -> int:
    return node._n_out


def _graph(roots, targets):
    """Dependency counts over the part of the graph that matters (all of it without targets)."""
    if targets is None:  # every node matters: count edges in one pass
        deps = {}
        seen = {r for r in roots if r is not None}
        stack = list(seen)
        pop, push, add, get = stack.pop, stack.append, seen.add, deps.get
        while stack:
            for child, _ in pop().next_functions:
                if child is not None:
                    deps[child] = get(child, 0) + 1
                    if child not in seen:
                        add(child)
                        push(child)
        return deps, None
    order, seen, stack = [], set(), [(r, False) for r in roots if r is not None]
    while stack:  # iterative post-order DFS
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                stack.append((child, False))
    needed = None
    if targets is not None:
        needed = set()
        for node in order:  # children come before parents in post-order
            if node in targets or any(c in needed for c, _ in node.next_functions if c is not None):
                needed.add(node)
    deps = {}
    for node in order:
        if needed is not None and node not in needed:
            continue
        for child, _ in node.next_functions:
            if child is not None and (needed is None or child in needed):
                deps[child] = deps.get(child, 0) + 1
    return deps, needed


def run_backward(roots, grads, *, retain_graph: bool, create_graph: bool, capture=None,
                 accumulate: bool = True):
    """Backpropagate ``grads`` from root edges ``roots`` (a list of ``(node, output_nr)``).

    ``capture``: a list of edges whose incoming gradient is returned (``autograd.grad`` and
    ``backward(inputs=)``). With ``accumulate=False`` leaves are not written (``autograd.grad``).
    """
    capture_at = {}
    if capture is not None:
        for i, (node, nr) in enumerate(capture):
            if node is not None:
                capture_at.setdefault(node, []).append((nr, i))
    captured = [None] * (len(capture) if capture is not None else 0)
    targets = set(capture_at) if capture is not None else None
    root_nodes = [n for n, _ in roots]
    deps, needed = _graph(root_nodes, targets)

    buffers = {}
    for (node, nr), g in zip(roots, grads):
        if node is None or (needed is not None and node not in needed):
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * _n_outputs(node)
        buf[nr] = g if buf[nr] is None else buf[nr] + g

    heap, tick = [], 0
    for node in buffers:
        if deps.get(node, 0) == 0:
            heapq.heappush(heap, (-node._seq, tick, node))
            tick += 1

    prev = STATE.enabled
    STATE.enabled = create_graph
    _TLS.callbacks.append([])
    try:
        if capture is None and accumulate and not LOCAL.anomaly and not _any_hooks(deps, buffers):
            _run_plain(heap, buffers, deps, retain_graph, tick)
            heap = ()
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            node = pop(heap)[2]
            buf = buffers.pop(node)
            if node._tensor_pre_hooks or node._retain_hooks or type(node) is AccumulateGrad:
                _run_tensor_hooks(node, buf)
            if capture_at and node in capture_at:
                for nr, i in capture_at[node]:
                    captured[i] = buf[nr]
                # a captured non-leaf whose inputs lead to no other target need not run
                if not isinstance(node, AccumulateGrad) and not any(
                        c in needed for c, _ in node.next_functions if c is not None):
                    continue
            if not accumulate and isinstance(node, AccumulateGrad):
                continue
            outs = _call(node, buf)
            if not retain_graph:
                node.release()
            for (child, nr), g in zip(node.next_functions, outs):
                if child is None or (needed is not None and child not in needed):
                    continue
                cbuf = buffers.get(child)
                if cbuf is None:
                    cbuf = buffers[child] = [None] * child._n_out
                if g is not None:
                    cbuf[nr] = g if cbuf[nr] is None else cbuf[nr] + g
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    push(heap, (-child._seq, tick, child))
                    tick += 1
            # drop the engine's extra references now: AccumulateGrad decides whether .grad may take a
            # gradient's buffer by counting references (graph._exclusive)
            outs = g = buf = None
        for fn in _TLS.callbacks[-1]:
            fn()
    finally:
        _TLS.callbacks.pop()
        STATE.enabled = prev
    return captured


def _any_hooks(deps, buffers) -> bool:
    """Whether any node of this graph has hooks (the per-graph flag that selects ``_run_plain``)."""
    for nodes in (deps, buffers):
        for node in nodes:
            if node._pre_hooks or node._hooks or node._tensor_pre_hooks or node._retain_hooks:
                return True
            if type(node) is AccumulateGrad:
                var = node._variable()
                am = var._ameta if var is not None else None
                if am is not None and am.hooks:
                    return True
    return False


def _run_plain(heap, buffers, deps, retain_graph, tick) -> None:
    """The engine loop for a graph without hooks, captures or anomaly mode (``run_backward``'s loop
    with those branches taken out: the common ``loss.backward()``)."""
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        node = pop(heap)[2]
        buf = buffers.pop(node)
        for g in buf:
            if g is not None:
                g = None  # hold no extra reference while the node runs (graph._exclusive counts them)
                outs = node.apply(buf)
                break
        else:
            outs = [None] * len(node.next_functions)
        if not retain_graph:
            node.release()
        for (child, nr), g in zip(node.next_functions, outs):
            if child is None:
                continue
            cbuf = buffers.get(child)
            if cbuf is None:
                cbuf = buffers[child] = [None] * child._n_out
            if g is not None:
                cbuf[nr] = g if cbuf[nr] is None else cbuf[nr] + g
            left = deps[child] - 1
            deps[child] = left
            if left == 0:
                push(heap, (-child._seq, tick, child))
                tick += 1
        outs = g = buf = None


def _run_tensor_hooks(node, buf) -> None:
    if type(node) is AccumulateGrad:
        var = node.variable
        am = var._ameta if var is not None else None  # a leaf nobody holds any more has no hooks
        if am is not None and am.hooks and buf[0] is not None:
            for fn in list(am.hooks.values()):
                r = fn(buf[0])
                if r is not None:
                    buf[0] = r
        return
    for hooks in (node._tensor_pre_hooks, node._retain_hooks):
        if hooks:
            for nr, fn in list(hooks.values()):
                if buf[nr] is not None:
                    r = fn(buf[nr])
                    if r is not None:
                        buf[nr] = r


def _call(node, buf):
    if node._pre_hooks:
        for fn in list(node._pre_hooks.values()):
            r = fn(tuple(buf))
            if r is not None:
                buf = _checked(fn, r, len(buf))
    for g in buf:
        if g is not None:
            break
    else:
        return [None] * len(node.next_functions)
    g = None  # hold no extra reference while the node runs (graph._exclusive counts them)
    if not LOCAL.anomaly:
        outs = node.apply(buf)
    else:
        try:
            outs = node.apply(buf)
            if LOCAL.anomaly_check_nan:
                _check_nan(node, outs)
        except Exception:
            _warn_trace(node)
            raise
    if node._hooks:
        for fn in list(node._hooks.values()):
            r = fn(tuple(outs), tuple(buf))
            if r is not None:
                outs = _checked(fn, r, len(outs))
    return outs


def _checked(fn, r, n) -> list:
    r = list(r)
    if len(r) != n:
        raise RuntimeError(f"hook '{getattr(fn, '__name__', fn)}' has returned an incorrect number of "
                           f"values (got {len(r)}, but expected {n})")
    return r


def _warn_trace(node) -> None:
    if node._trace:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                      f"error:\n{''.join(node._trace)}", stacklevel=3)


def _check_nan(node, outs) -> None:
    for i, g in enumerate(outs):
        if g is not None and (g.is_floating_point() or g.is_complex()) and bool(g.isnan().any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def accumulate_captured(tensors, grads) -> None:
    """``backward(inputs=)`` on non-leaf tensors: their captured gradient goes into ``.grad``."""
    for t, g in zip(tensors, grads):
        if g is not None:
            accumulate_into(t, g)
