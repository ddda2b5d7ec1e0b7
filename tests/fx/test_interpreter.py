"""Interpreter and Transformer, and the transformations from torch.fx's tutorials."""
import operator

import numpy as np
import pytest

import ember
import ember.fx
import ember.nn.functional as F
from ember import nn
from ember.fx import Interpreter, Transformer, symbolic_trace
from ember.fx.passes.flop_counter import FlopCounter, count_flops

from ._models import INPUT_SHAPES, build


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return ember.relu(self.lin(x)) + F.relu(x).sum(-1, keepdim=True)


def test_interpreter_equals_module_and_keeps_env_small():
    gm = symbolic_trace(Small())
    x = ember.randn(2, 4)
    interp = Interpreter(gm)
    assert interp.run(x).tolist() == gm(x).tolist()
    assert len(interp.env) < len(gm.graph.nodes)  # values freed after last use
    assert Interpreter(gm).boxed_run([x]).tolist() == gm(x).tolist()
    # initial_env short-circuits nodes
    lin = gm.graph.find_nodes(op="call_module")[0]
    out = Interpreter(gm, garbage_collect_values=False).run(x, initial_env={lin: ember.zeros(2, 4)})
    assert out.tolist() == (ember.zeros(2, 4) + F.relu(x).sum(-1, keepdim=True)).tolist()


def test_interpreter_error_names_the_node():
    g = ember.fx.Graph()
    a = g.placeholder("a")
    g.output(g.call_function(ember.matmul, (a, a)))
    gm = ember.fx.GraphModule({}, g)
    with pytest.raises(RuntimeError, match="While executing %matmul"):
        Interpreter(gm).run(ember.ones(2, 3))


def test_relu_to_gelu_by_graph_surgery_and_by_transformer():
    gm = symbolic_trace(Small())
    x = ember.randn(3, 4)
    expected = F.gelu(gm.lin(x)) + F.gelu(x).sum(-1, keepdim=True)

    class ReluToGelu(Transformer):
        def call_function(self, target, args, kwargs):
            if target in (ember.relu, F.relu):
                return super().call_function(F.gelu, args, {})
            return super().call_function(target, args, kwargs)
    new = ReluToGelu(gm).transform()
    np.testing.assert_array_equal(new(x).detach().numpy(), expected.detach().numpy())
    assert [n.target for n in new.graph.find_nodes(op="call_function")].count(F.gelu) == 2
    # the tutorial's in-place version: rewrite targets, then recompile
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in (ember.relu, F.relu):
            node.target = F.gelu
            node.kwargs = {}
    gm.graph.lint()
    gm.recompile()
    np.testing.assert_array_equal(gm(x).detach().numpy(), expected.detach().numpy())


def test_insert_a_node_and_decompose():
    gm = symbolic_trace(lambda x, y: x + y)
    add = gm.graph.find_nodes(op="call_function", target=operator.add)[0]
    with gm.graph.inserting_after(add):
        relu = gm.graph.call_function(ember.relu, (add,))
    add.replace_all_uses_with(relu, delete_user_cb=lambda user: user is not relu)
    gm.recompile()
    x, y = ember.tensor([-3.0, 1.0]), ember.tensor([1.0, 1.0])
    assert gm(x, y).tolist() == [0.0, 2.0]


def test_transformer_keeps_modules_and_meta():
    gm = symbolic_trace(Small())
    for n in gm.graph.nodes:
        n.meta["tag"] = n.name
    new = Transformer(gm).transform()
    assert [n.meta.get("tag") for n in new.graph.nodes if n.op != "output"] == \
        [n.name for n in gm.graph.nodes if n.op != "output"]
    x = ember.randn(2, 4)
    assert new(x).tolist() == gm(x).tolist()


def test_flop_counter_matches_hand_count():
    name = "LeNet"
    m = build(ember, name)
    gm = symbolic_trace(m)
    x = ember.randn(*INPUT_SHAPES[name])
    fc = FlopCounter(gm)
    fc.run(x)
    b = INPUT_SHAPES[name][0]
    expected = {"conv1": 2 * b * 4 * 28 * 28 * (1 * 25), "conv2": 2 * b * 8 * 10 * 10 * (4 * 25),
                "fc1": 2 * b * 32 * 200, "fc2": 2 * b * 10 * 32}
    assert fc.flops_by_node == expected
    assert fc.parameter_bytes == 4 * sum(p.numel() for p in m.parameters())
    assert fc.activation_bytes_by_node["conv1"] == 4 * b * 4 * 28 * 28
    summary = count_flops(gm, x)
    assert summary["total_flops"] == sum(expected.values())
    # matmul / linear through functions count too
    g2 = symbolic_trace(lambda a, w: F.linear(a, w) @ w)
    assert count_flops(g2, ember.randn(3, 5), ember.randn(5, 5))["total_flops"] == 2 * 3 * 5 * 5 * 2
