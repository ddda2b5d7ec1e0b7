"""The backward engine (layer L2): runs Nodes in dependency order without recursion.

Ready nodes run highest sequence number first (the most recently created forward op), as in torch;
``AccumulateGrad`` nodes run as soon as they are ready. The order is found by one walk and a sort
by sequence number (a node is always newer than the nodes its edges lead to). The engine never imports Tensor: it calls
methods on the gradients it is given.
"""
from __future__ import annotations

import heapq
import threading
from operator import attrgetter
import warnings

from .._primitives._registry import OBSERVED
from ..overrides import _FUNCTION_MODES, ANY_MODE, run_without_function_modes
from .grad_mode import STATE
from .graph import LOCAL, AccumulateGrad, accumulate_into, add_grads, _unwrap

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


def _graph(roots, targets):
    """Walk the graph once from ``roots``: (order, deps, needed, hooked).

    ``order``: the nodes to run, highest sequence number first (a node is created after the nodes
    its edges lead to, so this is a dependency order and equals torch's "ready node with the highest
    sequence number first"); ``AccumulateGrad`` nodes are left out, they run as soon as they are
    ready (``deps`` counts their incoming edges). ``needed``: with ``targets``, the nodes on a path
    to a target (None: all). ``hooked``: whether any node has hooks (the per-graph flag that lets
    the loop skip the hook branches)."""
    nodes, seen, deps = [], set(), {}
    hooked = newer_child = False
    stack = []
    for r in roots:  # two roots may be outputs of one node
        if r is None or r in seen or r in deps:
            continue
        if type(r) is AccumulateGrad:
            deps[r] = 0
            hooked = hooked or _leaf_hooked(r)
        else:
            seen.add(r)
            stack.append(r)
    add, push, pop, append, count = seen.add, stack.append, stack.pop, nodes.append, deps.get
    while stack:
        node = pop()
        append(node)
        if node._extra is not None:  # hooks (or metadata, an anomaly traceback): the hooked branch
            hooked = True
        seq = node._seq
        for child, _ in node.next_functions:
            if child is None:
                continue
            if type(child) is AccumulateGrad:  # leaves: counted, never walked
                n = count(child)
                if n is None:
                    deps[child] = 1
                    hooked = hooked or _leaf_hooked(child)
                else:
                    deps[child] = n + 1
            else:
                if child._seq >= seq:
                    newer_child = True
                if child not in seen:
                    add(child)
                    push(child)
    if newer_child:  # a hand-made edge to a newer node: sequence numbers are no dependency order
        nodes = _kahn_order(nodes)
    else:
        nodes.sort(key=_SEQ_KEY, reverse=True)
    needed = None
    if targets is not None:
        needed = {t for t in targets if t in seen or t in deps}
        for node in reversed(nodes):  # children before parents
            if any(c in needed for c, _ in node.next_functions if c is not None):
                needed.add(node)
        nodes = [n for n in nodes if n in needed]
        deps = {c: 0 for c in deps if c in needed}
        for node in nodes:
            for child, _ in node.next_functions:
                if child in deps:
                    deps[child] += 1
    return nodes, deps, needed, hooked


_SEQ_KEY = attrgetter("_seq")


def _leaf_hooked(acc) -> bool:
    """Whether a leaf's AccumulateGrad has hooks of its own or its tensor has tensor hooks."""
    if acc._extra is not None:
        return True
    var = acc._variable()
    am = var._ameta if var is not None else None
    return am is not None and bool(am.hooks)


def _kahn_order(nodes) -> list:
    """Dependency order, ready nodes highest sequence number first (torch's rule), for graphs whose
    sequence numbers are not already one."""
    deps = {}
    for node in nodes:
        for child, _ in node.next_functions:
            if child is not None and type(child) is not AccumulateGrad:
                deps[child] = deps.get(child, 0) + 1
    heap = [(-n._seq, i, n) for i, n in enumerate(nodes) if deps.get(n, 0) == 0]
    heapq.heapify(heap)
    order, tick = [], len(nodes)
    while heap:
        node = heapq.heappop(heap)[2]
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None and type(child) is not AccumulateGrad:
                deps[child] -= 1
                if deps[child] == 0:
                    heapq.heappush(heap, (-child._seq, tick, child))
                    tick += 1
    return order


def run_backward(roots, grads, *, retain_graph: bool, create_graph: bool, capture=None,
                 accumulate: bool = True):
    """Backpropagate ``grads`` from root edges ``roots`` (a list of ``(node, output_nr)``).

    ``capture``: a list of edges whose incoming gradient is returned (``autograd.grad`` and
    ``backward(inputs=)``). With ``accumulate=False`` leaves are not written (``autograd.grad``).

    One loop serves every backward. In raw mode (no graph of the backward, no hooks, captures,
    anomaly mode or dispatch mode) gradients travel as NumPy arrays and each node runs ``raw``
    (derivatives written against ``K`` run on the arrays; others on Tensors around them).
    """
    if ANY_MODE[0] and _FUNCTION_MODES.stack:  # derivatives run below TorchFunctionModes, as in torch
        return run_without_function_modes(run_backward, roots, grads, retain_graph=retain_graph,
                                          create_graph=create_graph, capture=capture, accumulate=accumulate)
    capture_at = {}
    if capture is not None:
        for i, (node, nr) in enumerate(capture):
            if node is not None:
                capture_at.setdefault(node, []).append((nr, i))
    captured = [None] * (len(capture) if capture is not None else 0)
    targets = set(capture_at) if capture is not None else None
    order, deps, needed, hooked = _graph([n for n, _ in roots], targets)
    anomaly = LOCAL.anomaly
    raw = not (create_graph or hooked or capture is not None or not accumulate or anomaly
               or OBSERVED[0]())
    hooked = hooked or capture is not None or not accumulate or anomaly
    if raw:
        grads = [_unwrap(g) for g in grads]
        add = add_grads
    else:
        add = _add

    buffers = {}
    ready = []  # AccumulateGrad nodes to run next (roots first)
    for (node, nr), g in zip(roots, grads):
        if node is None or (needed is not None and node not in needed):
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_out
            if type(node) is AccumulateGrad and not deps.get(node):
                ready.append(node)
        buf[nr] = g if buf[nr] is None else add(buf[nr], g)

    prev = STATE.enabled
    STATE.enabled = create_graph
    _TLS.callbacks.append([])
    try:
        if ready:
            order[:0] = ready
            ready = []
        i = 0
        for node in order:  # ready leaves are inserted right after the current node (see below)
            i += 1
            buf = buffers.pop(node, None)
            if buf is None:  # no gradient reached it (its producers returned none and were skipped)
                continue
            if hooked:
                outs = _run_hooked(node, buf, capture_at, captured, needed, accumulate)
                if outs is None:
                    continue
            else:
                for g in buf:
                    if g is not None:
                        g = None  # hold no extra reference while the node runs (graph._exclusive)
                        outs = node.raw(buf) if raw else node.apply(buf)
                        break
                else:
                    outs = _NONE_OUTS * len(node.next_functions)
            if not retain_graph:
                node.release()
            for (child, nr), g in zip(node.next_functions, outs):
                if child is None or (needed is not None and child not in needed):
                    continue
                cbuf = buffers.get(child)
                if cbuf is None:
                    cbuf = buffers[child] = [None] * child._n_out
                if g is not None:
                    cbuf[nr] = g if cbuf[nr] is None else add(cbuf[nr], g)
                if type(child) is AccumulateGrad:
                    left = deps[child] - 1
                    deps[child] = left
                    if left == 0:
                        ready.append(child)
            # drop the engine's extra references now: AccumulateGrad decides whether .grad may take a
            # gradient's buffer by counting references (graph._exclusive)
            outs = g = buf = cbuf = None
            if ready:  # the list iterator reads by index: the for loop runs these next
                order[i:i] = ready
                ready = []
        for fn in _TLS.callbacks[-1]:
            fn()
    finally:
        _TLS.callbacks.pop()
        STATE.enabled = prev
    return captured


_NONE_OUTS = [None]


def _add(a, b):
    return a + b


def _run_hooked(node, buf, capture_at, captured, needed, accumulate):
    """One node with everything the raw loop leaves out: tensor hooks, captures, node pre/post
    hooks, anomaly checks. None when the node is not to run."""
    if node._tensor_pre_hooks or node._retain_hooks or type(node) is AccumulateGrad:
        _run_tensor_hooks(node, buf)
    if capture_at and node in capture_at:
        for nr, i in capture_at[node]:
            captured[i] = buf[nr]
        # a captured non-leaf whose inputs lead to no other target need not run
        if not isinstance(node, AccumulateGrad) and not any(
                c in needed for c, _ in node.next_functions if c is not None):
            return None
    if not accumulate and isinstance(node, AccumulateGrad):
        return None
    return _call(node, buf)


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
