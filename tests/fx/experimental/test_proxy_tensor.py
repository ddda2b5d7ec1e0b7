"""make_fx: primitive-level graphs reproduce eager values; in-place code is functionalised."""
import operator

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.fx.experimental.proxy_tensor import make_fx
from ember.ops import OpOverload


def _mlp(x, w1, b1, w2, b2):
    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


def _cnn(x, w, b):
    return F.max_pool2d(F.relu(F.conv2d(x, w, b, padding=1)), 2).flatten(1)


def _attention(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    att = F.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1)
    return att @ v


def _layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b)


def _cross_entropy(logits, target):
    return F.cross_entropy(logits, target)


CASES = {
    "mlp": (_mlp, lambda: (ember.randn(4, 8), ember.randn(16, 8), ember.randn(16),
                           ember.randn(3, 16), ember.randn(3))),
    "cnn": (_cnn, lambda: (ember.randn(2, 3, 8, 8), ember.randn(4, 3, 3, 3), ember.randn(4))),
    "attention": (_attention, lambda: (ember.randn(2, 5, 8), ember.randn(8, 8), ember.randn(8, 8),
                                       ember.randn(8, 8))),
    "layer_norm": (_layer_norm, lambda: (ember.randn(3, 6), ember.randn(6), ember.randn(6))),
    "cross_entropy": (_cross_entropy, lambda: (ember.randn(5, 7), ember.randint(0, 7, (5,)))),
}


def _only_aten(gm):
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is not operator.getitem:
            assert isinstance(n.target, OpOverload) and n.target.namespace == "aten", n.target
        assert n.op != "call_module" and n.op != "call_method", n.format_node()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("mode", ["real", "fake", "symbolic"])
def test_graph_of_aten_overloads_reproduces_eager(name, mode):
    fn, make = CASES[name]
    args = make()
    gm = make_fx(fn, tracing_mode=mode)(*args)
    _only_aten(gm)
    assert "ember.ops.aten." in gm.code
    expected = fn(*args)
    np.testing.assert_allclose(gm(*args).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    fresh = make()  # other values, same shapes: the graph is not specialised on values
    np.testing.assert_allclose(gm(*fresh).numpy(), fn(*fresh).numpy(), rtol=1e-5, atol=1e-6)
    metas = [a.to("meta") for a in args]
    out = gm(*metas)
    assert out.is_meta and out.shape == expected.shape and out.dtype == expected.dtype


def test_node_meta_val_holds_shapes():
    gm = make_fx(_mlp, tracing_mode="fake")(*CASES["mlp"][1]())
    vals = [n.meta["val"] for n in gm.graph.nodes if n.op == "call_function"]
    assert all(v.is_meta for v in vals)
    assert tuple(vals[-1].shape) == (4, 3)


def test_write_through_view_is_functionalised():
    def f(x):
        x[:, 0].mul_(2)
        return x.sum(0)

    x = ember.randn(3, 4)
    gm = make_fx(f, tracing_mode="fake")(x)
    names = [n.meta["ember_op"].name for n in gm.graph.nodes if "ember_op" in n.meta]
    assert "as_strided_scatter" in names and "mul" in names
    a, b = x.clone(), x.clone()
    np.testing.assert_allclose(gm(a).numpy(), f(b).numpy(), rtol=1e-6)
    np.testing.assert_allclose(a.numpy(), b.numpy())  # the input's mutation is written back


def test_views_read_after_a_write_to_their_base_see_it():
    def f(x):
        row = x[1]
        x.add_(1)
        return row * 2

    x = ember.randn(3, 4)
    gm = make_fx(f, tracing_mode="fake")(x)
    a, b = x.clone(), x.clone()
    np.testing.assert_allclose(gm(a).numpy(), f(b).numpy(), rtol=1e-6)
    np.testing.assert_allclose(a.numpy(), b.numpy())


def test_relu_inplace_after_linear():
    lin, act = ember.nn.Linear(4, 5), ember.nn.ReLU(inplace=True)

    def f(x):
        return act(lin(x)).sum(1)

    x = ember.randn(3, 4)
    gm = make_fx(f, tracing_mode="fake")(x)
    np.testing.assert_allclose(gm(x).detach().numpy(), f(x).detach().numpy(), rtol=1e-5)


def test_batch_norm_running_stats_side_effects():
    def f(x, mean, var, w, b):
        return F.batch_norm(x, mean, var, w, b, training=True, momentum=0.1)

    args = [ember.randn(6, 3), ember.zeros(3), ember.ones(3), ember.randn(3), ember.randn(3)]
    gm = make_fx(f, tracing_mode="fake")(*args)
    assert not any(n.op == "call_function" and n.meta.get("ember_op") is not None
                   and n.meta["ember_op"].name.endswith("_") for n in gm.graph.nodes)
    eager = [a.clone() for a in args]
    traced = [a.clone() for a in args]
    np.testing.assert_allclose(gm(*traced).numpy(), f(*eager).numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(traced, eager):  # running mean and var updated the same way
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_real_mode_keeps_the_random_stream():
    ember.manual_seed(3)
    x = ember.randn(4)
    state = ember.get_rng_state()
    make_fx(lambda t: F.dropout(t, 0.5), tracing_mode="real")(x)
    assert ember.equal(ember.get_rng_state(), state)


def test_decomposition_table():
    from ember._primitives import pointwise as P

    def tanh_decomp(x):
        return 2 * ember.sigmoid(2 * x) - 1

    x = ember.randn(5)
    gm = make_fx(lambda t: ember.tanh(t), {P.tanh: tanh_decomp}, tracing_mode="fake")(x)
    names = [n.meta["ember_op"].name for n in gm.graph.nodes if "ember_op" in n.meta]
    assert "tanh" not in names and "sigmoid" in names
    np.testing.assert_allclose(gm(x).numpy(), ember.tanh(x).numpy(), rtol=1e-5, atol=1e-6)


def test_untraceable_mutation_raises():
    def f(xs):
        ember._foreach_add_([xs], 1.0)
        return xs * 2

    with pytest.raises((RuntimeError, NotImplementedError), match="make_fx"):
        make_fx(f, tracing_mode="fake")(ember.randn(3))


def test_bad_tracing_mode():
    with pytest.raises(AssertionError):
        make_fx(lambda x: x, tracing_mode="bogus")


def test_write_through_view_of_a_transposed_base():
    def f(x):
        y = x.t().contiguous().t()  # a dense base laid out column-major
        y[0].add_(1)
        return y * 1

    x = ember.randn(3, 4)
    gm = make_fx(f, tracing_mode="fake")(x)
    np.testing.assert_allclose(gm(x).numpy(), f(x).numpy(), rtol=1e-6)


def _complex_parts_write(x):  # x.real / x.imag: real views of a complex base
    y = x.clone()
    r = y.real
    y.real[1:].mul_(3)
    y.imag = r * 2 + 1
    return y, r * 1


def _view_as_complex_write(x):  # a complex view of a real base
    b = x.clone()
    c = ember.view_as_complex(b)
    c.mul_(1j)
    d = c[1:]
    b[0, 1] = 5
    return b, c + 0, d * 1


@pytest.mark.parametrize("fn, make", [
    (_complex_parts_write, lambda: ember.randn(3, 2, dtype=ember.complex64)),
    (_view_as_complex_write, lambda: ember.randn(3, 4, 2))], ids=["real_imag", "view_as_complex"])
@pytest.mark.parametrize("mode", ["real", "fake"])
def test_writes_through_dtype_changing_views(fn, make, mode):
    x = make()
    gm = make_fx(fn, tracing_mode=mode)(x.clone())
    for g, e in zip(gm(x.clone()), fn(x.clone())):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def _setitem_scalar(x):
    x[0] = 5.0
    return x * 1


def _index_put(x):
    x[ember.tensor([0, 2])] = ember.ones(2, 4)
    return x + 0


def _zero_fill(x):
    x.zero_()
    x[1].fill_(2)
    return x.sum()


def _clamp_masked_fill(x):
    x.clamp_(0, 1)
    x.masked_fill_(x > 0.5, 0)
    return x


def _out_argument(x):
    c = ember.empty(3, 4)
    ember.add(x, 1, out=c)
    return c * 2


def _view_of_view(x):
    y = x.view(12)
    y[3:5].mul_(10)
    return x.t() @ x


@pytest.mark.parametrize("fn", [_setitem_scalar, _index_put, _zero_fill, _clamp_masked_fill,
                                _out_argument, _view_of_view], ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["real", "fake"])
def test_in_place_patterns(fn, mode):
    x = ember.randn(3, 4)
    gm = make_fx(fn, tracing_mode=mode)(x.clone())
    a, b = x.clone(), x.clone()
    np.testing.assert_allclose(gm(a).numpy(), fn(b).numpy(), rtol=1e-6)
    np.testing.assert_allclose(a.numpy(), b.numpy())


def test_decomposition_table_keyed_by_aten_overload():
    def relu_decomp(x):
        return ember.where(x > 0, x, ember.zeros_like(x))

    x = ember.randn(6)
    gm = make_fx(lambda t: ember.relu(t) * 2, {ember.ops.aten.relu.default: relu_decomp},
                 tracing_mode="fake")(x)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert ember.ops.aten.relu.default not in targets and ember.ops.aten.where.self in targets
    np.testing.assert_allclose(gm(x).numpy(), (ember.relu(x) * 2).numpy())


def test_graph_module_pickles_and_deepcopies():
    import copy
    import pickle
    x, w = ember.randn(2, 3, 8, 8), ember.randn(4, 3, 3, 3)

    def f(x, w):
        return F.max_pool2d(F.conv2d(x, w), 2).sum()

    gm = make_fx(f, tracing_mode="fake")(x, w)
    for clone in (pickle.loads(pickle.dumps(gm)), copy.deepcopy(gm)):
        np.testing.assert_allclose(clone(x, w).numpy(), f(x, w).numpy(), rtol=1e-5)
