"""Passes: ShapeProp, split_module, graph drawing, replace_pattern, Conv/Linear+BN fusion."""
import re

import numpy as np
import pytest

import ember
import ember.fx
import ember.nn.functional as F
from ember import nn
from ember.fx import symbolic_trace
from ember.fx.passes.graph_drawer import FxGraphDrawer
from ember.fx.passes.shape_prop import ShapeProp, TensorMetadata
from ember.fx.passes.split_module import split_module
from ember.fx.subgraph_rewriter import replace_pattern, replace_pattern_with_filters
from ember.fx.experimental.optimization import fuse, fuse_conv_bn_weights

from ._models import INPUT_SHAPES, build


def _eager_shapes(gm, x):
    """Each node's output shape, computed by running the nodes one by one eagerly."""
    shapes = {}

    class Record(ember.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if isinstance(out, ember.Tensor):
                shapes[n.name] = tuple(out.shape)
            return out
    Record(gm).run(x)
    return shapes


@pytest.mark.parametrize("fake_mode", [None, "meta"])
@pytest.mark.parametrize("name", ["LeNet", "Encoder"])
def test_shape_prop_matches_eager(name, fake_mode):
    gm = symbolic_trace(build(ember, name))
    x = ember.randn(*INPUT_SHAPES[name])
    ShapeProp(gm, fake_mode=fake_mode).propagate(x)
    expected = _eager_shapes(gm, x)
    got = {n.name: tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes
           if isinstance(n.meta.get("tensor_meta"), TensorMetadata)}
    assert got == expected
    out = gm.graph.find_nodes(op="output")[0]
    tm = out.meta["tensor_meta"]
    assert tm.dtype == ember.float32 and tm.stride == tuple(gm(x).stride())
    # chunk returns a tuple: its metadata is a tuple of TensorMetadata
    if name == "Encoder":
        chunk = gm.graph.find_nodes(op="call_method", target="chunk")[0]
        assert len(chunk.meta["tensor_meta"]) == 3 and chunk.meta["type"] is tuple
    code = gm.graph.python_code("self", verbose=True).src
    assert '"float32[' in code


def test_split_module_runs_the_same():
    m = build(ember, "MLP")
    gm = symbolic_trace(m)
    qualnames = {}
    split = split_module(gm, m, lambda n: 0 if n.name in ("fc1", "relu") else 1, qualnames)
    assert [n.target for n in split.graph.find_nodes(op="call_module")] == ["submod_0", "submod_1"]
    assert qualnames == {"submod_0.fc1": "fc1", "submod_1.fc2": "fc2"}
    x = ember.randn(3, 8)
    assert split(x).tolist() == m(x).tolist()
    # a partition with two outputs returns a tuple, unpacked with getitem
    g = symbolic_trace(lambda x: (ember.relu(x) + ember.neg(x)) * 2)
    s2 = split_module(g, g, lambda n: 0 if n.name in ("relu", "neg") else 1)
    assert [n.op for n in s2.graph.nodes].count("call_function") == 2
    assert s2(ember.tensor([1.0, -2.0])).tolist() == [0.0, 4.0]


_STMT = re.compile(r'^\s*"((?:[^"\\]|\\.)*)"\s*(?:->\s*"((?:[^"\\]|\\.)*)"\s*)?(\[.*\])?;$')


def _parse_dot(text):
    """A small DOT reader: the digraph header, node statements with attributes, and edges."""
    lines = text.strip().splitlines()
    assert re.match(r'^digraph "[^"]*" \{$', lines[0]) and lines[-1] == "}"
    nodes, edges = set(), set()
    for line in lines[1:-1]:
        if line.strip().startswith(("rankdir", "node [")):
            continue
        m = _STMT.match(line)
        assert m, f"unparsable DOT statement: {line}"
        if m.group(2) is not None:
            edges.add((m.group(1), m.group(2)))
        else:
            attrs = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3)))
            assert attrs["label"].startswith("{") and attrs["label"].endswith("}")
            nodes.add(m.group(1))
    return nodes, edges


def test_graph_drawer_dot_parses():
    gm = symbolic_trace(build(ember, "ResBlock"))
    ShapeProp(gm).propagate(ember.randn(*INPUT_SHAPES["ResBlock"]))
    dot = FxGraphDrawer(gm, "resblock").get_dot_graph()
    nodes, edges = _parse_dot(dot.to_string())
    assert nodes == {n.name for n in gm.graph.nodes}
    assert edges == {(i.name, n.name) for n in gm.graph.nodes for i in n.all_input_nodes}
    assert "Conv2d" in dot.to_string() and "float32[2, 4, 6, 6]" in dot.to_string()
    import shutil
    if shutil.which("dot"):
        assert b"<svg" in dot.create_svg()
    else:
        with pytest.raises(RuntimeError, match="'dot' program was not found"):
            dot.create_svg()


def test_replace_pattern_known_pattern():
    class M(nn.Module):
        def forward(self, x, w1, w2):
            a = ember.cat([w1, w2]).sum()
            b = ember.cat([w1, w2]).sum()
            return x + ember.max(a) + ember.max(b)

    def pattern(w1, w2):
        return ember.cat([w1, w2]).sum()

    def replacement(w1, w2):
        return ember.stack([w1, w2])
    gm = symbolic_trace(M())
    matches = replace_pattern(gm, pattern, replacement)
    assert len(matches) == 2
    assert all(m.anchor.target is ember.Tensor.sum or m.anchor.target == "sum" for m in matches)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert ember.cat not in targets and targets.count(ember.stack) == 2
    x, w1, w2 = ember.randn(3), ember.randn(3), ember.randn(3)
    expected = x + ember.max(ember.stack([w1, w2])) * 2
    np.testing.assert_allclose(gm(x, w1, w2).numpy(), expected.numpy(), rtol=1e-6)


def test_replace_pattern_with_filters_and_literals():
    gm = symbolic_trace(lambda x: ember.relu(x + 1) + ember.relu(x + 2))

    def pattern(x):
        return ember.relu(x + 1)

    def replacement(x):
        return ember.sigmoid(x)
    # literals must match unless ignored: only the "+ 1" branch is replaced
    res = replace_pattern_with_filters(gm, pattern, replacement)
    assert len(res) == 1 and res[0].replacements[0].target is ember.sigmoid
    gm2 = symbolic_trace(lambda x: ember.relu(x + 1) + ember.relu(x + 2))
    res2 = replace_pattern_with_filters(
        gm2, pattern, replacement, ignore_literals=True,
        match_filters=[lambda m, g, p: m.placeholder_nodes[0].op == "placeholder"])
    assert len(res2) == 2
    x = ember.randn(4)
    np.testing.assert_allclose(gm2(x).numpy(), (ember.sigmoid(x) * 2).numpy(), rtol=1e-6)


def test_fuse_conv_bn_weights_against_functional_batch_norm():
    rng = np.random.default_rng(0)
    conv = nn.Conv2d(3, 4, 3)
    mean, var = ember.tensor(rng.standard_normal(4), dtype=ember.float32), \
        ember.tensor(rng.random(4) + 0.5, dtype=ember.float32)
    gamma, beta = ember.tensor(rng.standard_normal(4), dtype=ember.float32), \
        ember.tensor(rng.standard_normal(4), dtype=ember.float32)
    w, b = fuse_conv_bn_weights(conv.weight, conv.bias, mean, var, 1e-5, gamma, beta)
    x = ember.randn(2, 3, 8, 8)
    ref = F.batch_norm(conv(x), mean, var, gamma, beta, training=False, eps=1e-5)
    np.testing.assert_allclose(F.conv2d(x, w, b).detach().numpy(), ref.detach().numpy(),
                               rtol=1e-5, atol=1e-5)


def test_fuse_removes_batchnorm_and_keeps_results():
    class ConvBN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.lin = nn.Linear(4, 4)
            self.bn1 = nn.BatchNorm1d(4)

        def forward(self, x):
            y = F.relu(self.bn(self.conv(x))).mean((2, 3))
            return self.bn1(self.lin(y))
    m = ConvBN()
    m.train()
    for _ in range(3):  # non-trivial running statistics
        m(ember.randn(8, 3, 8, 8) * 2 + 1)
    m.eval()
    fused = fuse(m)
    kinds = [type(mod).__name__ for mod in fused.modules()]
    assert "BatchNorm2d" not in kinds and "BatchNorm1d" not in kinds
    assert not any("bn" in str(n.target) for n in fused.graph.nodes)
    x = ember.randn(2, 3, 8, 8)
    np.testing.assert_allclose(fused(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-5,
                               atol=1e-5)
