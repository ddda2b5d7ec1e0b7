"""GraphModule: a real Module (state_dict, to, deepcopy, pickle, to_folder, recompile)."""
import copy
import importlib.util
import pickle
import sys

import numpy as np

import ember
import ember.fx
from ember import nn
from ember.fx import GraphModule, symbolic_trace


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.head = nn.Linear(8, 2)
        self.register_buffer("offset", ember.full((2,), 0.5))

    def forward(self, x):
        return self.head(self.body(x)) + self.offset


def _gm():
    return Net(), symbolic_trace(Net())


def test_is_a_module_with_the_used_state():
    m = Net()
    gm = symbolic_trace(m)
    assert isinstance(gm, nn.Module) and isinstance(gm, GraphModule)
    assert set(gm.state_dict()) == set(m.state_dict())
    assert getattr(gm.body, "0").weight is m.body[0].weight  # shared, not copied
    gm2 = GraphModule(m, gm.graph)
    x = ember.randn(3, 4)
    assert gm2(x).tolist() == m(x).tolist()
    # load_state_dict and to() behave as on any module
    other = Net()
    gm.load_state_dict(other.state_dict())
    assert gm(x).tolist() == other(x).tolist()
    gm64 = copy.deepcopy(gm).to(ember.float64)
    assert gm64(x.double()).dtype == ember.float64


def test_recompile_and_graph_assignment():
    m = Net()
    gm = symbolic_trace(m)
    head = gm.graph.find_nodes(op="call_module", target="head")[0]
    with gm.graph.inserting_after(head):
        neg = gm.graph.call_function(ember.neg, (head,))
    head.replace_all_uses_with(neg)
    neg.update_arg(0, head)
    assert "neg" not in gm.code
    gm.recompile()
    assert "ember.neg(head)" in gm.code
    x = ember.randn(2, 4)
    ref = -m.head(m.body(x)) + m.offset
    assert gm(x).tolist() == ref.tolist()
    g2 = copy.deepcopy(gm.graph)
    gm.graph = g2
    assert gm.graph is g2 and g2.owning_module is gm


def test_deepcopy_and_pickle_roundtrip():
    m, gm = _gm()
    gm.meta["note"] = 1
    x = ember.randn(2, 4)
    for clone in (copy.deepcopy(gm), pickle.loads(pickle.dumps(gm))):
        assert type(clone).__name__ == "Net" and type(clone) is not type(gm)
        assert clone.code == gm.code
        assert clone(x).tolist() == gm(x).tolist()
        assert clone.head.weight is not gm.head.weight
    assert copy.deepcopy(gm).meta == {"note": 1}
    shallow = copy.copy(gm)
    assert shallow.head is gm.head


def test_print_readable_and_str():
    _, gm = _gm()
    text = gm.print_readable(print_output=False)
    assert text.splitlines()[0] == "class Net(ember.nn.Module):"
    assert "        head = self.head(body_1);  body_1 = None" in text
    assert "graph_module.print_readable()" in str(gm)


def test_to_folder_writes_an_importable_module(tmp_path):
    m, gm = _gm()
    gm.to_folder(tmp_path / "exported", "Exported")
    spec = importlib.util.spec_from_file_location("exported_mod", tmp_path / "exported" / "module.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["exported_mod"] = mod
    try:
        spec.loader.exec_module(mod)
        loaded = mod.Exported()
    finally:
        del sys.modules["exported_mod"]
    x = ember.randn(3, 4)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), gm(x).detach().numpy())


def test_submodule_management():
    _, gm = _gm()
    assert gm.add_submodule("extra.inner", nn.ReLU())
    assert isinstance(gm.extra.inner, nn.ReLU)
    assert gm.delete_submodule("extra.inner") and not gm.delete_submodule("extra.inner")
    gm.delete_all_unused_submodules()
    assert not hasattr(gm, "extra")
    assert hasattr(gm, "head") and hasattr(gm.body, "0")
