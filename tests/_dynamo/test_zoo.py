"""The zoo: compiled == eager (values, gradients, buffers) and the counting backend sees exactly
one graph holding every tensor op."""
import copy

import pytest

import ember
import ember.nn.functional as F
from ember._dynamo.testing import CompileCounter, EagerAndRecordGraphs

from . import _zoo

pytestmark = pytest.mark.timeout(120)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _run_pair(model, args, train=True, loss_of=lambda out: sum(t.float().sum() for t in _flat(out))):
    ember.manual_seed(0)
    model.train(train)
    twin = copy.deepcopy(model)
    cnt = CompileCounter()
    compiled = ember.compile(twin, backend=cnt)
    for _ in range(2):  # second call hits the cache
        out_e, out_c = model(*args), compiled(*args)
        for a, b in zip(_flat(out_e), _flat(out_c)):
            assert ember.allclose(a, b, atol=1e-5, rtol=1e-5)
        if any(t.requires_grad for t in _flat(out_e)):
            loss_of(out_e).backward()
            loss_of(out_c).backward()
    for (n, p), (_, q) in zip(model.named_parameters(), twin.named_parameters()):
        assert (p.grad is None) == (q.grad is None), n
        if p.grad is not None:
            assert ember.allclose(p.grad, q.grad, atol=1e-5, rtol=1e-4), n
    for (n, b), (_, c) in zip(model.named_buffers(), twin.named_buffers()):
        assert ember.allclose(b.float(), c.float(), atol=1e-6), n
    return cnt


def test_mlp_forward_is_one_graph():
    cnt = _run_pair(_zoo.MLP(), (ember.randn(5, 4),))
    assert (cnt.frame_count, cnt.op_count) == (1, 3)   # linear, relu, linear


@pytest.mark.parametrize("train", [True, False])
def test_cnn_with_batchnorm(train):
    cnt = _run_pair(_zoo.CNN(), (ember.randn(2, 1, 8, 8),), train=train)
    assert cnt.frame_count == 1


def test_cnn_train_and_eval_are_two_entries():
    model, cnt = _zoo.CNN(), CompileCounter()
    cm = ember.compile(model, backend=cnt)
    x = ember.randn(2, 1, 8, 8)
    cm(x)
    model.eval()
    with ember.no_grad():
        assert ember.allclose(cm(x), model(x))
    assert cnt.frame_count == 2


def test_lstm():
    cnt = _run_pair(_zoo.LSTMNet(), (ember.randn(2, 5, 3),))
    assert cnt.frame_count == 1


def test_transformer_block():
    cnt = _run_pair(_zoo.Block(), (ember.randn(2, 5, 8),))
    assert cnt.frame_count == 1


def test_gpt_forward_with_loss():
    idx = ember.randint(0, 16, (2, 8))
    cnt = _run_pair(_zoo.GPT(), (idx, idx.roll(1, 1)), loss_of=lambda out: out[1])
    assert cnt.frame_count == 1
    assert cnt.op_count > 40


def test_every_tensor_op_is_in_the_graph():
    rec = EagerAndRecordGraphs()
    m = _zoo.MLP()
    ember.compile(m, backend=rec)(ember.randn(2, 4))
    (gm,) = rec.graphs
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets == [F.linear, F.relu, F.linear]
    placeholders = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    assert len(placeholders) == 5   # x + 2 weights + 2 biases, lifted as inputs


def test_closures_kwargs_inplace_views():
    scale = 3.0
    offset = ember.ones(4)

    def helper(t, *, k=2):
        return t * k + offset

    def fn(x, y, flag=True, **extra):
        z = helper(x, k=scale)
        v = z.view(2, 2)            # a view
        v.add_(1)                   # in place through the view
        w = z.clone()
        w[0] = 5.0                  # setitem
        parts = [p.sum() for p in v.unbind(0)]
        if flag and extra.get("mode") == "double":
            w = w * 2
        g = lambda a: a.relu() - y
        return g(w), parts, z.t() if z.ndim > 1 else z.reshape(1, 4)

    cnt = CompileCounter()
    cf = ember.compile(fn, backend=cnt, fullgraph=True)
    for _ in range(2):
        x, y = ember.randn(4), ember.randn(4)
        out_c, out_e = cf(x, y, mode="double"), fn(x, y, mode="double")
        for a, b in zip(_flat(out_c), _flat(out_e)):
            assert ember.allclose(a, b)
    assert cnt.frame_count == 1


def test_loops_unrolled_over_range_enumerate_zip_dict_and_named_parameters():
    m = _zoo.MLP()

    def fn(model, xs, weights):
        acc = 0
        for i, (x, w) in enumerate(zip(xs, weights)):
            acc = acc + model(x) * w * (i + 1)
        norms = {name: p.norm() for name, p in model.named_parameters()}
        total = sum(v for v in norms.values())
        for k in range(2):
            acc = acc - k
        return acc, total

    cnt = CompileCounter()
    cf = ember.compile(fn, backend=cnt, fullgraph=True)
    xs = [ember.randn(3, 4), ember.randn(3, 4)]
    a, b = cf(m, xs, [0.5, 2.0]), fn(m, xs, [0.5, 2.0])
    assert ember.allclose(a[0], b[0]) and ember.allclose(a[1], b[1])
    assert cnt.frame_count == 1


def test_no_grad_and_autocast_regions():
    def fn(x, w):
        with ember.no_grad():
            y = x @ w
        with ember.enable_grad():
            z = (x @ w).sum()
        with ember.autocast("cpu", dtype=ember.bfloat16):
            q = x @ w
        return y, z, q

    cnt = CompileCounter()
    cf = ember.compile(fn, backend=cnt, fullgraph=True)
    x, w = ember.randn(2, 3), ember.randn(3, 3, requires_grad=True)
    (y1, z1, q1), (y2, z2, q2) = cf(x, w), fn(x, w)
    assert not y1.requires_grad and z1.requires_grad
    assert q1.dtype == q2.dtype == ember.bfloat16
    assert ember.allclose(y1, y2) and ember.allclose(z1, z2) and ember.allclose(q1.float(), q2.float())
    assert ember.is_grad_enabled() and not ember.is_autocast_enabled("cpu")
    assert cnt.frame_count == 1
