"""Graph and Node: building, rewriting, dead-code elimination, lint, printing and codegen."""
import copy
import operator
import pickle

import pytest

import ember
import ember.fx
import ember.nn.functional as F
from ember.fx import Graph, GraphModule, Node, symbolic_trace


def _simple():
    def f(x, y):
        a = ember.relu(x)
        b = a + y
        return b.sum(-1)
    return symbolic_trace(f)


def test_build_by_hand_and_run():
    g = Graph()
    x = g.placeholder("x")
    w = g.get_attr("w")
    mm = g.call_function(ember.matmul, (x, w))
    r = g.call_method("relu", (mm,))
    s = g.call_module("lin", (r,))
    g.output(s)
    lin = ember.nn.Linear(2, 2)
    gm = GraphModule({"w": ember.eye(2), "lin": lin}, g)
    x_val = ember.randn(3, 2)
    assert gm(x_val).tolist() == lin((x_val @ ember.eye(2)).relu()).tolist()
    assert [n.op for n in g.nodes] == ["placeholder", "get_attr", "call_function", "call_method",
                                       "call_module", "output"]
    assert x.users == {mm: None} and mm.all_input_nodes == [x, w]
    assert mm.next is r and r.prev is mm and len(g.nodes) == 6
    with pytest.raises(RuntimeError, match="referenced target lin but that target was not"):
        GraphModule({"w": ember.eye(2)}, g)
    with pytest.raises(ValueError, match="Unsupported opcode"):
        Node(g, "n", "bad", "t", (), {})


def test_users_replace_all_uses_and_erase():
    gm = _simple()
    g = gm.graph
    relu = g.find_nodes(op="call_function", target=ember.relu)[0]
    x = relu.args[0]
    with g.inserting_after(relu):
        gelu = g.call_function(F.gelu, (x,))
    replaced = relu.replace_all_uses_with(gelu)
    assert [n.name for n in replaced] == ["add"] and not relu.users
    with pytest.raises(RuntimeError, match="Tried to erase Node gelu but it still had 1 users"):
        g.erase_node(gelu)
    g.erase_node(relu)
    g.lint()
    gm.recompile()
    assert "ember.nn.functional.gelu(x)" in gm.code and "relu" not in gm.code
    xv, yv = ember.randn(2, 3), ember.randn(2, 3)
    assert gm(xv, yv).tolist() == (F.gelu(xv) + yv).sum(-1).tolist()


def test_inserting_before_update_arg_replace_input_and_immutable_args():
    gm = _simple()
    g = gm.graph
    add = g.find_nodes(op="call_function", target=operator.add)[0]
    with g.inserting_before(add):
        doubled = g.call_function(operator.mul, (add.args[1], 2))
    add.update_arg(1, doubled)
    assert add.args[1] is doubled and doubled.users == {add: None}
    y = doubled.args[0]
    add.replace_input_with(add.args[0], y)
    assert add.args == (y, doubled)
    add.update_kwarg("alpha", 1)
    assert add.kwargs == {"alpha": 1}
    add.kwargs = {}
    with pytest.raises(NotImplementedError, match="does not support mutation"):
        add.kwargs["beta"] = 2
    add.args = (doubled, 1)
    with pytest.raises(NotImplementedError):
        g.call_function(ember.cat, ([y, y],)).args[0].append(y)


def test_prepend_append_and_ordering():
    g = Graph()
    a = g.placeholder("a")
    b = g.call_function(operator.neg, (a,))
    c = g.call_function(operator.abs, (a,))
    g.output((b, c))
    b.prepend(c)
    assert [n.name for n in g.nodes] == ["a", "abs_1", "neg", "output"]
    assert c < b and b > a
    g.lint()


def test_lint_catches_use_before_definition():
    g = Graph()
    a = g.placeholder("a")
    b = g.call_function(operator.neg, (a,))
    g.output(b)
    a.append(g.call_function(operator.abs, (b,)))  # abs(b) moved before b
    with pytest.raises(RuntimeError, match="was used before it has been defined"):
        g.lint()


def test_eliminate_dead_code_keeps_side_effects():
    def f(x):
        unused = x * 2  # noqa: F841
        x.add_(1)
        return x
    gm = symbolic_trace(f)
    assert gm.graph.eliminate_dead_code()
    assert [n.target for n in gm.graph.nodes if n.op != "placeholder"] == ["add_", "output"]
    assert not gm.graph.eliminate_dead_code()


def test_node_copy_graph_copy_deepcopy_and_pickle():
    gm = _simple()
    g2 = Graph()
    val_map = {}
    out = g2.graph_copy(gm.graph, val_map)
    g2.output(out)
    assert [n.name for n in g2.nodes] == [n.name for n in gm.graph.nodes]
    assert all(k.graph is gm.graph and v.graph is g2 for k, v in val_map.items())
    g3 = copy.deepcopy(gm.graph)
    g3.lint()
    assert str(g3) == str(gm.graph)
    g4 = pickle.loads(pickle.dumps(gm.graph))
    assert str(g4) == str(gm.graph)
    # node_copy with an arg transform
    g5 = Graph()
    x = g5.placeholder("z")
    relu = next(iter(gm.graph.find_nodes(op="call_function", target=ember.relu)))
    r = g5.node_copy(relu, lambda n: x)
    assert r.args == (x,) and r.name == "relu"


def test_names_are_unique_and_legal():
    g = Graph()
    x = g.placeholder("input")
    s1 = g.call_method("sum", (x,))
    s2 = g.call_function(sum, ([x],))
    m = g.call_module("layer1.conv", (x,))
    assert [x.name, s1.name, s2.name, m.name] == ["input_1", "sum_1", "sum_2", "layer1_conv"]


TABULAR = """\
opcode         name    target                    args           kwargs
-------------  ------  ------------------------  -------------  ----------
placeholder    x       x                         ()             {}
placeholder    y       y                         ()             {}
call_function  relu    ember.relu                (x,)           {}
call_function  add     operator.add              (relu, y)      {}
call_method    sum_1   sum                       (add, -1)      {}
call_function  gelu    ember.nn.functional.gelu  (sum_1,)       {}
call_function  mul     operator.mul              (gelu, 2)      {}
call_function  cat     ember.cat                 ([mul, mul],)  {'dim': 0}
output         output  output                    (cat,)         {}"""

GRAPH = """\
graph():
    %x : [num_users=1] = placeholder[target=x]
    %y : [num_users=1] = placeholder[target=y]
    %relu : [num_users=1] = call_function[target=ember.relu](args = (%x,), kwargs = {})
    %add : [num_users=1] = call_function[target=operator.add](args = (%relu, %y), kwargs = {})
    %sum_1 : [num_users=1] = call_method[target=sum](args = (%add, -1), kwargs = {})
    %gelu : [num_users=1] = call_function[target=ember.nn.functional.gelu](args = (%sum_1,), kwargs = {})
    %mul : [num_users=1] = call_function[target=operator.mul](args = (%gelu, 2), kwargs = {})
    %cat : [num_users=1] = call_function[target=ember.cat](args = ([%mul, %mul],), kwargs = {dim: 0})
    return cat"""

CODE = """


def forward(self, x, y):
    relu = ember.relu(x);  x = None
    add = relu + y;  relu = y = None
    sum_1 = add.sum(-1);  add = None
    gelu = ember.nn.functional.gelu(sum_1);  sum_1 = None
    mul = gelu * 2;  gelu = None
    cat = ember.cat([mul, mul], dim = 0);  mul = None
    return cat
    """


def _snapshot_fn(x, y):
    m = F.gelu((ember.relu(x) + y).sum(-1)) * 2
    return ember.cat([m, m], dim=0)


def test_print_tabular_str_and_code_snapshots(capsys):
    gm = symbolic_trace(_snapshot_fn)
    gm.graph.print_tabular()
    printed = capsys.readouterr().out.rstrip("\n")
    assert printed == TABULAR
    assert str(gm.graph) == GRAPH
    assert gm.code == CODE
    readable = gm.print_readable(print_output=False)
    assert readable.startswith("class _snapshot_fn(ember.nn.Module):\n    def forward(self, x, y):")
    # the same function in torch prints the same lines, up to the library name
    import torch
    import torch.fx

    def tfn(x, y):
        m = torch.nn.functional.gelu((torch.relu(x) + y).sum(-1)) * 2
        return torch.cat([m, m], dim=0)
    tg = torch.fx.symbolic_trace(tfn)
    t_lines = [ln for ln in tg.code.replace("torch.", "ember.").splitlines() if ln.strip()]
    e_lines = [ln for ln in gm.code.splitlines() if ln.strip()]
    # torch's F.gelu is a C builtin living in torch._C._nn
    t_lines = [ln.replace("ember._C._nn.gelu", "ember.nn.functional.gelu") for ln in t_lines]
    assert e_lines == t_lines


def test_python_code_globals_for_user_functions():
    def helper(a):
        return a + 1
    g = Graph()
    x = g.placeholder("x")
    g.output(g.call_function(helper, (x,)))
    code = g.python_code("self")
    name = next(k for k, v in code.globals.items() if v is helper)
    assert name == "tests_fx_test_graph_helper" and f"{name}(x)" in code.src
    gm = GraphModule({}, g)
    assert gm(ember.ones(1)).tolist() == [2.0]
