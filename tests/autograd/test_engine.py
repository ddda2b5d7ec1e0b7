"""The backward engine and ``autograd.backward``/``autograd.grad`` semantics, compared with torch."""
from __future__ import annotations

import gc
import threading
import warnings
import weakref

import numpy as np
import pytest
import torch

import ember

from ._util import both, names, same_error, to_np

X = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]


# ------------------------------------------------------------------ .grad accumulation
def test_grad_accumulates_in_place():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        (x * x).sum().backward()
        first = x.grad
        (x * 3).sum().backward()
        return first is x.grad, x.grad, first
    both(run)


def test_create_graph_accumulation_keeps_graph():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        g = x.grad
        has_fn = g.grad_fn is not None
        g.sum().backward()  # second derivative accumulates on top: 3x^2 + 6x
        return has_fn, x.grad
    both(run)


def test_grad_is_fresh_buffer_not_alias_of_incoming():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        g = lib.tensor([5.0, 6.0])
        x.backward(g)
        g.mul_(0)  # x.grad must not alias the gradient given to backward
        return x.grad
    both(run)


def test_backward_gradient_retain_graph():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x.exp() * 2
        y.backward(gradient=lib.ones(2, 3) * 0.5, retain_graph=True)
        y.backward(gradient=lib.full((2, 3), 2.0))
        return x.grad
    both(run, rtol=1e-5)


def test_backward_inputs_leaf_and_nonleaf():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        m = a * b
        m.retain_grad()
        (m * m).sum().backward(inputs=[b, m])
        return a.grad, b.grad, m.grad
    both(run)


def test_backward_inputs_empty_raises():
    same_error(lambda lib: lib.tensor([1.0], requires_grad=True).sum().backward(inputs=[]))


def test_grad_d2_of_cube():
    def run(lib):
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        y = (x ** 3).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x, create_graph=True)
        g3, = lib.autograd.grad(g2.sum(), x)
        return g, g2, g3, x.grad
    both(run)


def test_grad_allow_unused_and_materialize():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.tensor([3.0], requires_grad=True)
        y = (x * 2).sum()
        a = lib.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
        b = lib.autograd.grad(y, [x, z], materialize_grads=True)
        return a, b
    both(run)


@pytest.mark.parametrize("case", ["unused", "no_grad_input", "materialize_false"])
def test_grad_errors(case):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.tensor([3.0], requires_grad=True)
        y = (x * 2).sum()
        if case == "unused":
            lib.autograd.grad(y, [x, z])
        elif case == "no_grad_input":
            lib.autograd.grad(y, [lib.tensor([1.0])])
        else:
            lib.autograd.grad(y, [x, z], allow_unused=False, materialize_grads=True)
    same_error(run)


def test_grad_multiple_outputs_and_grad_outputs():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        a, b = x.sin(), x * x
        return lib.autograd.grad([a, b], x, grad_outputs=[lib.ones(2, 3), lib.full((2, 3), 0.5)])
    both(run, rtol=1e-5)


def test_grad_does_not_touch_dot_grad():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        lib.autograd.grad((x * x).sum(), x)
        return x.grad is None
    both(run)


# ------------------------------------------------------------------ errors as torch's
def test_second_backward_without_retain_graph():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp().sum()
        y.backward()
        y.backward()
    same_error(run)


def test_non_scalar_backward_without_gradient():
    same_error(lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).backward())


def test_backward_on_tensor_without_grad():
    same_error(lambda lib: lib.tensor([1.0, 2.0]).sum().backward())


def test_backward_gradient_shape_mismatch():
    same_error(lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).backward(lib.ones(3)))


def test_inplace_on_leaf_requiring_grad():
    same_error(lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).mul_(2))


@pytest.mark.parametrize("case", ["saved_output", "saved_input", "saved_leaf"])
def test_saved_tensor_modified_inplace(case):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        if case == "saved_output":
            w = x * 1
            y = w.exp()   # saves its output y
            y.add_(1)
            out = y
        elif case == "saved_input":
            w = x * 1
            out = w.sin()  # saves its input w
            w.add_(1)
        else:
            out = x.sin()
            with lib.no_grad():
                x.add_(1)
        out.sum().backward()
    same_error(run)


# ------------------------------------------------------------------ graph structure
def test_node_names_and_next_functions():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0])
        s = ((x + x) * x - w).sum()
        return names(s.grad_fn), s.grad_fn.name(), len(s.grad_fn.next_functions)
    both(run)


def test_accumulate_grad_node_and_edge_to_constant():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * lib.tensor([3.0, 4.0])
        (acc, nr), (none, nr2) = y.grad_fn.next_functions
        return (type(acc).__name__, acc.name(), acc.variable is x, nr, none, nr2,
                y.grad_fn.next_functions[0][0] is (x * 2).grad_fn.next_functions[0][0])
    both(run)


def test_leaf_and_requires_grad_flags():
    def run(lib):
        x = lib.tensor([1.0], requires_grad=True)
        c = lib.tensor([1.0])
        y = x * c
        return x.is_leaf, y.is_leaf, c.is_leaf, y.requires_grad, (c * 2).requires_grad, y.grad_fn is None
    both(run)


def test_execution_order_matches_torch():
    """Ready nodes run most-recent-first, as torch's engine orders them."""
    def run(lib):
        order = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = x.exp()
        c = a.sin()
        d = b * c
        e = d + a
        for t, tag in ((a, "a"), (b, "b"), (c, "c"), (d, "d"), (e, "e")):
            t.grad_fn.register_hook(lambda gi, go, tag=tag: order.append(tag))
        e.sum().backward()
        return order
    both(run)


def test_backward_through_shared_subgraph_sums():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        h = x.tanh()
        y = (h * h).sum() + (h * 3).sum() + h.exp().mean()
        y.backward()
        return x.grad
    both(run, rtol=1e-5)


def test_no_reference_cycle_through_saved_output():
    x = ember.ones(3, requires_grad=True)
    y = x.exp()
    ref = weakref.ref(y)
    del y
    gc.disable()
    try:
        assert ref() is None
    finally:
        gc.enable()


def test_graph_freed_after_backward_without_gc():
    x = ember.ones(3, requires_grad=True)
    y = (x.exp() * 2).sum()
    node = weakref.ref(y.grad_fn)
    gc.disable()
    try:
        y.backward()
        del y
        assert node() is None
    finally:
        gc.enable()


# ------------------------------------------------------------------ complex and dtypes
def test_complex_conjugate_wirtinger():
    def run(lib):
        z = lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        (z * z.conj()).real.sum().backward()
        g1 = z.grad
        w = lib.tensor([0.5 - 1j, 2 + 0.25j], requires_grad=True)
        (w * w).abs().sum().backward()
        return g1, w.grad
    both(run, rtol=1e-5)


def test_complex_grad_of_real_to_complex():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = x * lib.tensor([1 + 1j, 2 - 3j])
        (z * z.conj()).real.sum().backward()
        return x.grad
    both(run)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_broadcast_gradient_shape_and_dtype(dt):
    def run(lib):
        a = lib.ones(3, 1, requires_grad=True, dtype=getattr(lib, dt))
        b = lib.arange(4.0, dtype=lib.float64)
        c = lib.ones(1, 4, requires_grad=True)
        (a * b + c).sum().backward()
        return a.grad, c.grad
    both(run)


# ------------------------------------------------------------------ grad modes
def test_grad_mode_context_managers_and_decorators():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        res = []
        with lib.no_grad():
            res.append((x * 2).requires_grad)
            with lib.enable_grad():
                res.append((x * 2).requires_grad)
        with lib.set_grad_enabled(False):
            res.append(lib.is_grad_enabled())
        res.append(lib.is_grad_enabled())

        @lib.no_grad()
        def f():
            return (x * 2).requires_grad

        @lib.enable_grad()
        def g():
            return (x * 2).requires_grad

        @lib.inference_mode()
        def h():
            return (x * 2).requires_grad, lib.is_inference_mode_enabled()
        res.append(f())
        with lib.no_grad():
            res.append(g())
        res.append(h())
        with lib.inference_mode():
            res.append((x * 2).requires_grad)
        with lib.inference_mode(False):
            res.append((x * 2).requires_grad)
        lib.set_grad_enabled(False)
        res.append(lib.is_grad_enabled())
        lib.set_grad_enabled(True)
        return res
    both(run)


def test_no_grad_decorates_generators():
    def run(lib):
        @lib.no_grad()
        def gen():
            yield lib.is_grad_enabled()
            yield lib.is_grad_enabled()
        return list(gen()), lib.is_grad_enabled()
    both(run)


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["thread"] = ember.is_grad_enabled()
        x = ember.ones(2, requires_grad=True)
        seen["records"] = (x * 2).requires_grad

    with ember.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        seen["main"] = ember.is_grad_enabled()
    assert seen == {"thread": True, "records": True, "main": False}


def test_backward_from_threads_each_own_graph():
    results = [None] * 4

    def worker(i):
        x = ember.tensor([float(i), 1.0], requires_grad=True)
        (x * x).sum().backward()
        results[i] = to_np(x.grad)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        np.testing.assert_array_equal(r, [2.0 * i, 2.0])


# ------------------------------------------------------------------ anomaly detection
def _nan_program(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x / x   # 0/0 -> nan in the backward of div
    y.sum().backward()


def test_anomaly_nan_in_backward_raises_with_forward_trace():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ember.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as info:
                _nan_program(ember)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as ref:
                _nan_program(torch)
    assert str(info.value) == str(ref.value)
    msgs = [str(w.message) for w in caught]
    assert any(m.startswith("Anomaly Detection has been enabled") for m in msgs)
    trace = [m for m in msgs if m.startswith("Error detected in DivBackward0. Traceback of forward call")]
    assert trace and "x / x" in trace[0] and "_nan_program" in trace[0]
    assert not ember.is_anomaly_enabled()


def test_set_detect_anomaly_and_check_nan_flag():
    def run(lib):
        res = []
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            res.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            x = lib.tensor([0.0], requires_grad=True)
            (x / x).sum().backward()  # no nan check: no error
            res.append(bool(x.grad.isnan().all()))
        res.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        lib.autograd.set_detect_anomaly(True)
        res.append(lib.is_anomaly_enabled())
        lib.autograd.set_detect_anomaly(False)
        res.append(lib.is_anomaly_enabled())
        return res
    both(run)


def test_anomaly_without_mode_gives_nan_silently():
    def run(lib):
        x = lib.tensor([0.0], requires_grad=True)
        (x / x).sum().backward()
        return bool(x.grad.isnan().all())
    both(run)


def test_leaf_grad_never_aliases_a_gradient_someone_else_holds():
    """.grad may take the engine's buffer without a copy only when nobody else can see it."""
    x = ember.ones(3, requires_grad=True)
    w = ember.ones(3, requires_grad=True)
    (x + w).sum().backward()  # add passes one gradient object to both inputs
    assert x.grad.data_ptr() != w.grad.data_ptr()
    x.grad.add_(1)
    assert w.grad.tolist() == [1.0, 1.0, 1.0]
    kept = []
    x.grad = None
    x.register_hook(lambda g: kept.append(g))
    (x * 2).sum().backward()
    assert kept[0].data_ptr() != x.grad.data_ptr()
    g = ember.full((3,), 5.0)
    x.grad = None
    y = x * 1
    y.backward(g)  # the user's gradient must not become x.grad
    x.grad.zero_()
    assert g.tolist() == [5.0, 5.0, 5.0]


def test_fresh_gradient_is_taken_without_copy():
    """A gradient nobody else can see becomes .grad as is (torch steals it the same way)."""
    ptrs = []

    class Triple(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            r = g * 3
            ptrs.append(r.data_ptr())
            return r

    x = ember.ones(3, requires_grad=True)
    Triple.apply(x).sum().backward()
    assert x.grad.data_ptr() == ptrs[0] and x.grad.tolist() == [3.0, 3.0, 3.0]
    kept = []
    x.grad = None
    x.register_hook(lambda g: kept.append(g))
    Triple.apply(x).sum().backward()
    assert x.grad.data_ptr() != kept[0].data_ptr()
