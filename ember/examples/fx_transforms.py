"""ember.fx tour: trace a model, print its graph, rewrite it, fuse Conv+BN, count FLOPs, draw it.

Run ``python -m ember.examples.fx_transforms [--out DIR]``. It prints:

1. the traced graph of a small CNN as a table (``print_tabular``) and its generated ``forward``;
2. the relu -> gelu rewrite (graph surgery, then ``recompile``) and the largest output change;
3. Conv+BatchNorm folding for inference (``experimental.optimization.fuse``): the fused module's
   layers and its largest difference from the eval-mode original;
4. shapes from ``ShapeProp`` and FLOPs/memory from the FLOP counter;
5. the graph in Graphviz DOT, written to ``DIR/graph.dot`` (and ``graph.svg`` when ``dot`` exists).

With ``import torch`` in place of ``import ember as torch`` steps 1-3 run the same on PyTorch.
"""
from __future__ import annotations

import argparse
import os
import shutil

import ember as torch
import ember.fx
import ember.nn as nn
import ember.nn.functional as F
from ember.fx.experimental.optimization import fuse
from ember.fx.passes.flop_counter import count_flops
from ember.fx.passes.graph_drawer import FxGraphDrawer
from ember.fx.passes.shape_prop import ShapeProp


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        x = x.mean((2, 3))
        return self.head(torch.relu(x))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="fx_out", help="folder for graph.dot / graph.svg")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model = SmallCNN()
    model.train()
    for _ in range(3):  # give BatchNorm non-trivial running statistics
        model(torch.randn(16, 1, 12, 12) * 2 + 1)
    model.eval()
    x = torch.randn(4, 1, 12, 12)

    print("== 1. trace")
    gm = ember.fx.symbolic_trace(model)
    gm.graph.print_tabular()
    print(gm.code)

    print("== 2. relu -> gelu")
    rewritten = ember.fx.symbolic_trace(model)
    for node in rewritten.graph.nodes:
        if node.op == "call_function" and node.target in (torch.relu, F.relu):
            node.target = F.gelu
            node.kwargs = {}
    rewritten.recompile()
    print(rewritten.code)
    print("max |gelu model - relu model| =", float((rewritten(x) - model(x)).abs().max()))

    print("== 3. Conv+BN fusion")
    fused = fuse(model)
    print([type(m).__name__ for m in fused.modules()][1:])
    print("max |fused - original| =", float((fused(x) - model(x)).abs().max()))

    print("== 4. shapes and cost")
    ShapeProp(gm).propagate(x)
    for node in gm.graph.nodes:
        tm = node.meta.get("tensor_meta")
        if tm is not None and hasattr(tm, "shape"):
            print(f"  {node.name:10s} {list(tm.shape)}")
    cost = count_flops(gm, x)
    print(f"  FLOPs {cost['total_flops']:,}  activations {cost['activation_bytes']:,} B  "
          f"parameters {cost['parameter_bytes']:,} B")

    print("== 5. drawing")
    os.makedirs(args.out, exist_ok=True)
    dot = FxGraphDrawer(gm, "small_cnn").get_dot_graph()
    dot.write_raw(os.path.join(args.out, "graph.dot"))
    print("wrote", os.path.join(args.out, "graph.dot"))
    if shutil.which("dot"):
        dot.write_svg(os.path.join(args.out, "graph.svg"))
        print("wrote", os.path.join(args.out, "graph.svg"))
    else:
        print("(Graphviz 'dot' not installed: no SVG)")


if __name__ == "__main__":
    main()
