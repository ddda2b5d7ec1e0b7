"""Tracer, Proxy and wrap: what gets recorded, and the errors torch.fx raises."""
import math
import operator

import numpy as np
import pytest
import torch
import torch.fx

import ember
import ember.fx
import ember.nn.functional as F
from ember import nn
from ember.fx import PH, Proxy, TraceError, Tracer, symbolic_trace


def my_leaf(x, k):
    """Not traceable inside (data-dependent), so wrapped as one node."""
    return x * k if int(k) > 0 else x


ember.fx.wrap("my_leaf")
ember.fx.wrap("len")


def _ops(gm):
    return [(n.op, n.target if isinstance(n.target, str) else n.target.__name__)
            for n in gm.graph.nodes]


def test_functions_methods_operators_and_attributes():
    def f(x, y):
        a = ember.relu(x) + F.gelu(y)          # public functions -> call_function
        b = a.sum(1, keepdim=True).exp()       # methods -> call_method
        c = -b * 2 - 1                         # operators -> operator.*
        d = ember.cat([a, c], dim=1)[:, :2]    # tensor lists and indexing
        return d.view(x.shape[0], -1), x.dtype  # attributes -> getattr
    gm = symbolic_trace(f)
    assert _ops(gm) == [
        ("placeholder", "x"), ("placeholder", "y"), ("call_function", "relu"),
        ("call_function", "gelu"), ("call_function", "add"), ("call_method", "sum"),
        ("call_method", "exp"), ("call_function", "neg"), ("call_function", "mul"),
        ("call_function", "sub"), ("call_function", "cat"), ("call_function", "getitem"),
        ("call_function", "getattr"), ("call_function", "getitem"), ("call_method", "view"),
        ("call_function", "getattr"), ("output", "output")]
    x, y = ember.randn(3, 4), ember.randn(3, 4)
    (r1, d1), (r2, d2) = gm(x, y), f(x, y)
    np.testing.assert_array_equal(r1.numpy(), r2.numpy())
    assert d1 == d2 == ember.float32


def test_same_records_as_torch_fx():
    def make(lib):
        def f(x):
            y = lib.relu(x) * 3 + x.mean(-1, keepdim=True)
            z = lib.nn.functional.softmax(y, dim=-1)
            return z.transpose(0, 1)[0], lib.stack([y, z]).sum()
        return f
    eg, tg = symbolic_trace(make(ember)), torch.fx.symbolic_trace(make(torch))
    assert _ops(eg) == _ops(tg)
    assert [n.name for n in eg.graph.nodes] == [n.name for n in tg.graph.nodes]


def test_leaf_modules_parameters_and_buffers():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
            self.scale = nn.Parameter(ember.ones(3))
            self.register_buffer("shift", ember.zeros(3))

        def forward(self, x):
            return self.seq(self.lin(x)) * self.scale + self.shift + F.linear(x, self.lin.weight)
    gm = symbolic_trace(M())
    assert [n.target for n in gm.graph.find_nodes(op="call_module")] == ["lin", "seq.0", "seq.1"]
    assert [n.target for n in gm.graph.find_nodes(op="get_attr")] == ["scale", "shift", "lin.weight"]
    assert set(gm.state_dict()) == set(M().state_dict())


def test_custom_tracer_is_leaf_module_and_call_module():
    class NoLeaves(Tracer):
        def is_leaf_module(self, m, qualname):
            return False

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(x)
    graph = NoLeaves().trace(M())
    assert [n.op for n in graph.nodes] == ["placeholder", "get_attr", "get_attr", "call_function",
                                           "output"]
    assert graph.find_nodes(op="call_function")[0].target is F.linear


def test_concrete_args_specialise_control_flow():
    def f(x, flag, mode="a"):
        if flag:
            x = x + 1
        return x * 2 if mode == "a" else x
    gm = symbolic_trace(f, concrete_args={"flag": True, "mode": "a"})
    x = ember.ones(2)
    assert gm(x, True, "a").tolist() == [4.0, 4.0]
    with pytest.raises(AssertionError, match="flag has been specialized to have value True"):
        gm(x, False, "a")
    # the same as torch: placeholders flag_1 / mode_1 feeding an equality check and an assertion
    tg = torch.fx.symbolic_trace(f, concrete_args={"flag": True, "mode": "a"})
    assert [n.name for n in gm.graph.nodes] == [n.name for n in tg.graph.nodes]
    # PH keeps an entry as an input
    gm2 = symbolic_trace(lambda x, y: x + y, concrete_args={"y": PH})
    assert gm2(ember.ones(1), ember.ones(1)).tolist() == [2.0]


def test_trace_errors_match_torch():
    def use_bool(x):
        return x if x.sum() > 0 else -x

    def use_iter(x):
        return [a for a in x]

    def use_len(x):
        return len(x)
    with pytest.raises(TraceError) as e1:
        symbolic_trace(use_bool)
    with pytest.raises(torch.fx.proxy.TraceError) as t1:
        torch.fx.symbolic_trace(use_bool)
    assert str(e1.value) == str(t1.value)
    with pytest.raises(TraceError) as e2:
        symbolic_trace(use_iter)
    with pytest.raises(torch.fx.proxy.TraceError) as t2:
        torch.fx.symbolic_trace(use_iter)
    assert str(e2.value) == str(t2.value)
    assert issubclass(TraceError, ValueError)
    g = ember.fx.Graph()
    with pytest.raises(RuntimeError, match="'len' is not supported in symbolic tracing"):
        Proxy.__len__(Proxy(g.placeholder("x")))
    # ... unless len is wrapped (done at this module's top level)
    gm = symbolic_trace(use_len)
    assert gm.graph.find_nodes(op="call_function")[0].target is len
    assert gm(ember.ones(5)) == 5


def test_unpacking_keys_and_call():
    def f(x):
        a, b = x.chunk(2)
        return a - b
    gm = symbolic_trace(f)
    assert [n.op for n in gm.graph.nodes].count("call_function") == 3
    assert gm(ember.tensor([3.0, 1.0])).tolist() == [2.0]

    def g(d):
        return {**d}
    with pytest.raises((TraceError, TypeError, RuntimeError)):
        symbolic_trace(g)


def test_wrap_and_math_autowrap():
    def f(x, k):
        return my_leaf(x, k) + math.sqrt(k.numel())
    gm = symbolic_trace(f)
    targets = [n.target for n in gm.graph.find_nodes(op="call_function")]
    assert my_leaf in targets and math.sqrt in targets
    assert 'wrap("tests_fx_test_symbolic_trace_my_leaf")' in gm.code
    x, k = ember.ones(2), ember.tensor(3.0)
    assert gm(x, k).tolist() == f(x, k).tolist()
    # outside of tracing the wrapped function is the original again
    assert my_leaf(x, ember.tensor(-1.0)) is x


def test_proxy_torch_function_names_tensor_methods_by_top_level_alias():
    def f(x):
        return ember.add(x, 1), ember.Tensor.view(x, -1), ember.ones(2) + x
    gm = symbolic_trace(f)
    kinds = [(n.op, n.target if isinstance(n.target, str) else n.target.__name__)
             for n in gm.graph.nodes if n.op.startswith("call")]
    assert kinds == [("call_function", "add"), ("call_method", "view"), ("call_function", "add")]
    assert "ember.add(x, 1" in gm.code and "self._tensor_constant0" in gm.code
    x = ember.randn(2)
    for a, b in zip(gm(x), f(x)):
        assert a.tolist() == b.tolist()


def test_record_stack_traces_and_getattr_cache():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.ones(2))

        def forward(self, x):
            return x * self.w + self.w
    tracer = Tracer()
    tracer.record_stack_traces = True
    graph = tracer.trace(M())
    assert len(graph.find_nodes(op="get_attr")) == 1  # cached parameter proxy
    mul = graph.find_nodes(op="call_function", target=operator.mul)[0]
    assert "test_symbolic_trace.py" in mul.stack_trace
    assert not ember.fx.is_fx_tracing()
