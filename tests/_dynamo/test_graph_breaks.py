"""Graph breaks with resume functions: compiled prefix, the break in Python, a compiled rest."""
import numpy as np
import pytest
import torch

import ember
from ember._dynamo import explain
from ember._dynamo.testing import CompileCounter


def _close(a, b):
    return np.allclose(np.asarray(a.detach().numpy() if hasattr(a, "detach") else a),
                       np.asarray(b.detach().numpy() if hasattr(b, "detach") else b), atol=1e-6)


def _run(fn, *args):
    cnt = CompileCounter()
    cf = ember.compile(fn, backend=cnt)
    out = cf(*args)
    return cf, cnt, out


class PrintNet(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = ember.nn.Linear(4, 8)
        self.fc2 = ember.nn.Linear(8, 2)

    def forward(self, x):
        h = self.fc1(x).relu()
        print("hidden", h.shape)
        return self.fc2(h).tanh()


def test_print_in_forward_gives_two_graphs(capsys):
    ember.manual_seed(0)
    m = PrintNet()
    x = ember.randn(3, 4)
    cnt = CompileCounter()
    cm = ember.compile(m, backend=cnt)
    out = cm(x)
    assert cnt.frame_count == 2
    assert _close(out, m(x))
    # same result as torch running the same weights
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2), torch.nn.Tanh())
    with torch.no_grad():
        for i, lin in ((0, m.fc1), (2, m.fc2)):
            tm[i].weight.copy_(torch.tensor(lin.weight.detach().numpy()))
            tm[i].bias.copy_(torch.tensor(lin.bias.detach().numpy()))
    assert _close(out, tm(torch.tensor(x.numpy())))
    assert "hidden" in capsys.readouterr().out
    cm(x)
    assert cnt.frame_count == 2   # cached: prefix entry and resume entry both hit


@pytest.mark.parametrize("kind", ["item", "graph_break", "numpy_call", "tolist"])
def test_break_kinds(kind):
    def f(x):
        a = x.sin() * 2
        if kind == "item":
            s = a.sum().item()
        elif kind == "graph_break":
            ember._dynamo.graph_break()
            s = 1.5
        elif kind == "numpy_call":
            s = float(np.sum(a.numpy()))
        else:
            s = sum(a.tolist())
        return a.cos() * s
    x = ember.randn(5)
    cf, cnt, out = _run(f, x)
    assert _close(out, f(x))
    assert cnt.frame_count == 2, kind


def test_data_dependent_branch_both_ways():
    def f(x):
        a = x + 1
        if a.sum() > 0:
            return a * 2
        return a - 1
    cf, cnt, out = _run(f, ember.ones(3))
    assert _close(out, f(ember.ones(3)))
    neg = -ember.ones(3) * 5
    assert _close(cf(neg), f(neg))
    assert cnt.frame_count == 3   # prefix, then each branch's resume function


def test_locals_stack_kwargs_and_unbound_survive_the_break():
    def f(x, flag):
        if flag:
            u = x * 3
        t = (x + 1, x - 1)
        print("t", len(t), sep=":", end="\n")
        w = x.exp()
        return t[0] * w + (u if flag else 0)
    x = ember.randn(4)
    for flag in (True, False):
        cf, cnt, out = _run(f, x, flag)
        assert _close(out, f(x, flag))
        assert cnt.frame_count == 2


def test_break_in_the_middle_of_an_expression():
    def f(x):
        return x.sin() + float(np.float32(x.sum().item())) * x.cos()
    x = ember.randn(3)
    cf, cnt, out = _run(f, x)
    assert _close(out, f(x))


def test_closure_function_breaks_and_resumes():
    scale = ember.tensor([2.0, 3.0])

    def f(x):
        y = x * scale
        print("y")
        return y + scale
    x = ember.ones(2)
    cf, cnt, out = _run(f, x)
    assert _close(out, f(x)) and cnt.frame_count == 2


def test_break_inside_loop_runs_loop_eagerly():
    seen = []

    def f(x):
        y = x * 2
        for i in range(3):
            y = y + i
            seen.append(float(y.sum().item()))
        return y.relu()
    x = ember.randn(4)
    cf, cnt, out = _run(f, x)
    eager = f(x)
    assert _close(out, eager)
    assert cnt.frame_count == 1          # the graph before the loop; loop and rest eager
    assert seen[:3] == seen[3:]
    seen.clear()
    cf(x)
    assert cnt.frame_count == 1 and len(seen) == 3


def test_break_inside_while_loop():
    def f(x):
        y = x + 1
        n = 0
        while n < 3:
            ember._dynamo.graph_break()
            y = y * 2
            n += 1
        return y
    x = ember.randn(3)
    cf, cnt, out = _run(f, x)
    assert _close(out, f(x)) and cnt.frame_count == 1


def helper(x):
    a = x.sin() + 1
    print("in helper")
    return a.cos()


def test_nested_function_with_break_is_compiled_on_its_own():
    def f(x):
        y = x * 2
        z = helper(y)
        return z + y
    x = ember.randn(3)
    cf, cnt, out = _run(f, x)
    assert _close(out, f(x))
    # f before the call, helper before print, helper after print, f after the call
    assert cnt.frame_count == 4
    cf(x)
    assert cnt.frame_count == 4


class Inner(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = ember.nn.Linear(3, 3)

    def forward(self, x):
        h = self.lin(x)
        ember._dynamo.graph_break()
        return h.relu()


class Outer(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        return self.inner(x * 2) - 1


def test_submodule_with_break_is_compiled_on_its_own():
    ember.manual_seed(1)
    m = Outer()
    x = ember.randn(2, 3)
    cnt = CompileCounter()
    out = ember.compile(m, backend=cnt)(x)
    assert _close(out, m(x))
    assert cnt.frame_count == 4


def test_explain_lists_each_break_with_file_and_line():
    def f(x):
        a = x.relu()
        print("one")
        b = a * 2
        ember._dynamo.graph_break()
        return b + 1
    out = explain(f)(ember.ones(2))
    assert out.graph_count == 3
    assert out.graph_break_count == 2
    reasons = [str(r) for r in out.break_reasons]
    line = f.__code__.co_firstlineno
    assert "print" in reasons[0] and f"test_graph_breaks.py:{line + 2}" in reasons[0]
    assert "graph_break" in reasons[1] and f"test_graph_breaks.py:{line + 4}" in reasons[1]


def test_fullgraph_still_raises():
    def f(x):
        print("no")
        return x
    with pytest.raises(ember._dynamo.exc.Unsupported):
        ember.compile(f, backend="eager", fullgraph=True)(ember.ones(1))


def test_resume_disabled_by_config(monkeypatch):
    monkeypatch.setattr(ember._dynamo.config, "resume_on_graph_break", False)

    def f(x):
        y = x + 1
        print("eager")
        return y * 2
    cf, cnt, out = _run(f, ember.ones(2))
    assert cnt.frame_count == 0 and _close(out, f(ember.ones(2)))


class Helper:
    def __init__(self):
        self.k = 3.0

    def scale(self, x):
        y = x * self.k
        ember._dynamo.graph_break()
        return y + 1


def test_bound_method_called_at_a_break_is_compiled_on_its_own():
    h = Helper()
    fn = h.scale

    def f(x):
        print("before")
        return fn(x.sin()) * 2
    x = ember.randn(3)
    cf, cnt, out = _run(f, x)
    assert _close(out, f(x))
    # f's part after print (sin), scale before and after its break; f's rest (* 2)
    assert cnt.frame_count == 4


def test_dead_locals_are_not_passed_to_the_resume_function():
    from ember._dynamo import eval_frame

    def f_dead(x, junk):
        y = x * 2
        tmp = junk.sum() + 1
        print("p", float(tmp))
        return y + 1
    x = ember.ones(3)
    cf, cnt, out = _run(f_dead, x, ember.ones(4))
    assert _close(out, f_dead(x, ember.ones(4)))
    resume = [cc for cc in eval_frame._CACHE.values() if cc.code.co_name.startswith("resume_in_f_dead")]
    assert len(resume) == 2   # after float(tmp), after print(...)
    for cc in resume:
        assert len(cc.entries) == 1
        guards = "\n".join(cc.entries[0].guards.lines)
        assert "L['y']" in guards
        assert "L['junk'] is None" in guards   # passed as None: no tensor guard, no recompiles
        assert "___t := L['junk']" not in guards and "___t := L['tmp']" not in guards
