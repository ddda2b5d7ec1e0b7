"""``autograd.Function``: both forward styles, the ctx API, non-tensor args and outputs, errors and
higher-order gradients, compared with torch (each Function is defined once per library)."""
from __future__ import annotations

import gc
import weakref

import pytest

import ember

from ._util import both, same_error


def make(lib):
    """The same custom Functions, built on ``lib.autograd.Function``."""
    F = lib.autograd.Function
    ns = {}

    class Cube(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2   # ember ops: differentiable again

    class Scale(F):  # setup_context style, non-tensor arg
        @staticmethod
        def forward(x, k, y):
            return x * k + y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None, g

    class ExpOut(F):  # saves its output
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    class SortLike(F):  # non-differentiable second output, non-tensor third output
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).long()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx, "tag"

        @staticmethod
        def backward(ctx, g, g_idx, g_tag):
            ns["bw_args"] = (g_idx is None, type(g_idx).__name__, g_tag)
            return g * 2

    class AddOneInplace(F):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class TwoOut(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            ns["got_none"] = (ga is None, gb is None)
            out = None
            for g, k in ((ga, 2), (gb, 3)):
                if g is not None:
                    out = g * k if out is None else out + g * k
            return out

    class TwoOutMaterialized(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            ns["materialized"] = (ga.tolist(), gb.tolist())
            return ga * 2 + gb * 3

    class Needs(F):
        @staticmethod
        def forward(ctx, a, b, k):
            ns["needs"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            ns["needs_bw"] = ctx.needs_input_grad
            return None, None, None

    class Once(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    class Identity(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    ns.update(Cube=Cube, Scale=Scale, ExpOut=ExpOut, SortLike=SortLike, AddOneInplace=AddOneInplace,
              TwoOut=TwoOut, TwoOutMaterialized=TwoOutMaterialized, Needs=Needs, Once=Once,
              Identity=Identity)
    return ns


def test_forward_backward_and_node_name():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        y = f["Cube"].apply(x)
        y.sum().backward()
        fn = y.grad_fn
        return (y, x.grad, type(fn).__name__, fn.name(), fn.next_functions[0][0].name(),
                isinstance(fn, lib.autograd.graph.Node))
    both(run)


def test_ctx_is_grad_fn_and_keeps_attributes():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = f["Scale"].apply(x, 3.0, lib.ones(2))
        return y.grad_fn.k, y.grad_fn.needs_input_grad, len(y.grad_fn.next_functions)
    both(run)


def test_setup_context_style_and_non_tensor_arg():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([0.5, 0.5], requires_grad=True)
        y = f["Scale"].apply(x, 3.0, b)
        (y * y).sum().backward()
        return y, x.grad, b.grad
    both(run)


def test_double_backward_through_custom_backward():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad(f["Cube"].apply(x).sum(), x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x)
        return g, g2
    both(run)


def test_saved_output_double_backward_and_version_check():
    def run(lib):
        f = make(lib)
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        y = f["ExpOut"].apply(x)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x)
        return g, g2
    both(run)

    def bad(lib):
        f = make(lib)
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = f["ExpOut"].apply(x)
        y.mul_(2)
        y.sum().backward()
    same_error(bad)


def test_saved_input_modified_inplace_raises():
    def run(lib):
        f = make(lib)
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        w = x * 1
        y = f["Cube"].apply(w)
        w.add_(1)
        y.sum().backward()
    same_error(run)


def test_saved_tensors_freed_after_backward():
    def run(lib):
        f = make(lib)
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = f["Cube"].apply(x).sum()
        y.backward()
        y.backward()
    same_error(run)


def test_mark_non_differentiable_and_non_tensor_outputs():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y, idx, tag = f["SortLike"].apply(x)
        y.sum().backward()
        return y.requires_grad, idx.requires_grad, idx.dtype == lib.int64, tag, x.grad, f["bw_args"]
    both(run)


def test_mark_dirty():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = x * 2
        out = f["AddOneInplace"].apply(w)
        (out * out).sum().backward()
        return out is w, w, w.grad_fn.name(), x.grad, w._version
    both(run)


def test_mark_dirty_on_leaf_raises():
    def run(lib):
        f = make(lib)
        f["AddOneInplace"].apply(lib.tensor([1.0], requires_grad=True))
    same_error(run)


def test_mark_dirty_on_view_rewrites_base():
    def run(lib):
        f = make(lib)
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1
        f["AddOneInplace"].apply(y[0])
        (y * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return y, x.grad
    both(run)


def test_set_materialize_grads():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, _ = f["TwoOut"].apply(x)
        a.sum().backward()
        g1 = x.grad.clone()
        _, b = f["TwoOutMaterialized"].apply(x)
        b.sum().backward()
        return g1, f["got_none"], f["materialized"], x.grad
    both(run)


def test_needs_input_grad():
    def run(lib):
        f = make(lib)
        a = lib.tensor([1.0], requires_grad=True)
        y = f["Needs"].apply(a, lib.tensor([2.0]), 3)
        y.sum().backward()
        return f["needs"], f["needs_bw"], a.grad
    both(run)


def test_no_graph_without_grad():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            y = f["Cube"].apply(x)
        z = f["Cube"].apply(lib.tensor([1.0]))
        return y.requires_grad, y.grad_fn is None, z.requires_grad
    both(run)


def test_identity_output_is_new_tensor():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = f["Identity"].apply(x)
        y.sum().backward()
        return y is x, x.is_leaf, y.is_leaf, x.grad, y.data_ptr() == x.data_ptr()
    both(run)


def test_once_differentiable():
    def run(lib):
        f = make(lib)
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        f["Once"].apply(x).sum().backward()
        return x.grad
    both(run)

    def twice(lib):
        f = make(lib)
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        g, = lib.autograd.grad(f["Once"].apply(x).sum(), x, create_graph=True)
        g.sum().backward()
    same_error(twice)


def _bad_backward(lib, ret):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=None):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return ret(g)
    return Bad


@pytest.mark.parametrize("case", ["too_many", "wrong_shape", "grad_for_non_tensor"])
def test_backward_result_errors(case):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        if case == "too_many":
            _bad_backward(lib, lambda g: (g, g)).apply(x).sum().backward()
        elif case == "wrong_shape":
            _bad_backward(lib, lambda g: g[:1]).apply(x).sum().backward()
        else:
            _bad_backward(lib, lambda g: (g, g)).apply(x, 3).sum().backward()
    same_error(run)


def test_backward_result_fitted_to_input():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        # extra trailing None is allowed; float64 grad cast to the input's float32
        _bad_backward(lib, lambda g: (g.double(), None)).apply(x).sum().backward()
        return x.grad
    both(run)


def test_function_hooks_on_custom_node():
    def run(lib):
        f = make(lib)
        seen = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = f["Cube"].apply(x)
        y.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].clone(), go[0].clone())))
        y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        y.sum().backward()
        return seen, x.grad
    both(run)


def test_custom_node_does_not_keep_outputs_alive():
    f = make(ember)
    x = ember.ones(3, requires_grad=True)
    y = f["ExpOut"].apply(x)
    ref = weakref.ref(y)
    del y
    gc.disable()
    try:
        assert ref() is None
    finally:
        gc.enable()


def test_function_subclass_preserves_tensor_subclass():
    class Sub(ember.Tensor):
        pass
    f = make(ember)
    s = ember.ones(2).as_subclass(Sub).requires_grad_()
    assert type(f["Cube"].apply(s)) is Sub


def test_instantiation_is_deprecated():
    f = make(ember)
    with pytest.warns(DeprecationWarning):
        f["Cube"]()
