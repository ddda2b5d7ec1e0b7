"""Dynamic dims: automatic dynamic after a size-only recompile, mark_dynamic, dynamic=True/False."""
import numpy as np
import torch

import ember
from ember import _dynamo
from ember._dynamo.testing import CompileCounter


def _np(t):
    return t.detach().numpy()


def _mlp():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(5, 16), ember.nn.ReLU(), ember.nn.Linear(16, 1))


def _torch_copy(m):
    tm = torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    with torch.no_grad():
        for (_, p), (_, q) in zip(m.named_parameters(), tm.named_parameters()):
            q.copy_(torch.tensor(_np(p)))
    return tm


def test_ten_batch_sizes_compile_at_most_twice_then_never():
    m = _mlp()
    tm = _torch_copy(m)
    cnt = CompileCounter()
    cm = ember.compile(m, backend=cnt)
    batches = [3, 7, 1, 12, 5, 9, 2, 16, 4, 11]
    for b in batches:
        x = ember.randn(b, 5)
        np.testing.assert_allclose(_np(cm(x)), tm(torch.tensor(x.numpy())).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    assert cnt.frame_count <= 2
    seen = cnt.frame_count
    for b in batches:
        cm(ember.randn(b, 5))
    assert cnt.frame_count == seen


def test_mark_dynamic_compiles_once():
    cnt = CompileCounter()

    def f(x, y):
        return (x * 2 + y).sum(1)
    cf = ember.compile(f, backend=cnt)
    for n in (2, 5, 9, 1):
        x = ember.randn(n, 3)
        _dynamo.mark_dynamic(x, 0)
        y = ember.randn(3)
        np.testing.assert_allclose(_np(cf(x, y)), _np(f(x, y)), rtol=1e-6)
    assert cnt.frame_count == 1


def test_size_zero_is_specialised():
    cnt = CompileCounter()
    f = ember.compile(lambda x: x.exp() + 1, backend=cnt)
    x = ember.randn(4, 2)
    _dynamo.mark_dynamic(x, 0)
    f(x)
    f(ember.randn(6, 2))
    assert cnt.frame_count == 1
    out = f(ember.randn(0, 2))
    assert tuple(out.shape) == (0, 2) and cnt.frame_count == 2


def test_size_read_into_python_becomes_a_symbol():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append((gm, example_inputs))
        return gm.forward

    def f(x):
        n = x.shape[0]
        return x.reshape(n * 2, -1) * n
    cf = ember.compile(f, backend=backend)
    for b in (2, 4, 6, 8):
        x = ember.randn(b, 4)
        np.testing.assert_allclose(_np(cf(x)), _np(f(x)), rtol=1e-6)
    assert len(graphs) == 2   # the first size, then one graph over a symbolic batch size
    gm, examples = graphs[1]
    code = gm.code
    assert 'def forward(self, s0 : "Sym(s0)", l_x)' in code
    assert "mul = s0 * 2" in code and "l_x.reshape(mul, -1)" in code and "reshape * s0" in code
    assert examples[0] == 4 and isinstance(examples[0], int)


def test_size_needed_as_a_python_int_stays_static():
    cnt = CompileCounter()

    def f(x):
        out = x[0]
        for i in range(1, x.shape[0]):   # the loop unrolls: its length is fixed per graph
            out = out + x[i]
        return out
    cf = ember.compile(f, backend=cnt)
    for b in (2, 3, 4, 5):
        x = ember.randn(b, 3)
        np.testing.assert_allclose(_np(cf(x)), _np(f(x)), rtol=1e-6)
    assert cnt.frame_count == 4   # correct per size rather than a wrong shared graph


def test_branch_on_a_size_guards_the_relation():
    cnt = CompileCounter()

    def f(x):
        if x.shape[0] > 3:
            return x.sum(0)
        return x.mean(0)
    cf = ember.compile(f, backend=cnt, dynamic=True)
    for b in (5, 6, 9):
        x = ember.randn(b, 2)
        np.testing.assert_allclose(_np(cf(x)), _np(f(x)), rtol=1e-6)
    assert cnt.frame_count == 1
    for b in (2, 3):
        x = ember.randn(b, 2)
        np.testing.assert_allclose(_np(cf(x)), _np(f(x)), rtol=1e-6)
    assert cnt.frame_count == 2
    from ember._dynamo.eval_frame import _CACHE
    lines = [line for e in _CACHE[id(cf._code)].entries for line in e.guards.lines]
    assert "(L['x'].size(0)) > (3)" in lines and "not ((L['x'].size(0)) > (3))" in lines


def test_size_one_is_not_specialised():
    cnt = CompileCounter()
    cf = ember.compile(lambda x, y: (x * y).view(x.shape[0], -1), backend=cnt, dynamic=True)
    for b in (4, 1, 7):
        x, y = ember.randn(b, 2, 3), ember.randn(3)
        np.testing.assert_allclose(_np(cf(x, y)), _np((x * y).view(b, -1)), rtol=1e-6)
    assert cnt.frame_count == 1


def test_dynamic_true_and_false():
    def f(x):
        return x.relu() * 3
    cnt = CompileCounter()
    cf = ember.compile(f, backend=cnt, dynamic=True)
    for b in (2, 3, 4):
        cf(ember.randn(b, 2))
    assert cnt.frame_count == 1
    cnt2 = CompileCounter()
    cf2 = ember.compile(f, backend=cnt2, dynamic=False)
    for b in (2, 3, 4):
        cf2(ember.randn(b, 2))
    assert cnt2.frame_count == 3


def test_mark_static_wins():
    cnt = CompileCounter()
    cf = ember.compile(lambda x: x + 1, backend=cnt)
    for b in (2, 3, 4):
        x = ember.randn(b)
        _dynamo.mark_static(x, 0)
        cf(x)
    assert cnt.frame_count == 3


def test_dtype_change_is_not_a_size_change():
    cnt = CompileCounter()
    cf = ember.compile(lambda x: x * 2, backend=cnt)
    cf(ember.ones(3))
    cf(ember.ones(3, dtype=ember.float64))
    cf(ember.ones(4, dtype=ember.float64))   # now a size-only change against the latest entry
    cf(ember.ones(5, dtype=ember.float64))
    assert cnt.frame_count == 3


def test_frame_with_a_break_gets_dynamic_dims_too():
    cnt = CompileCounter()

    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = ember.nn.Linear(3, 4)

        def forward(self, x):
            h = self.fc(x).relu()
            _dynamo.graph_break()
            return h * 2

    ember.manual_seed(0)
    net = Net()
    cm = ember.compile(net, backend=cnt)
    for b in range(1, 11):
        x = ember.randn(b, 3)
        np.testing.assert_allclose(_np(cm(x)), _np(net(x)), rtol=1e-6)
    assert cnt.frame_count <= 4, cnt.frame_count   # prefix and resume graphs, each at most twice
